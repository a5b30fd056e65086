import CiaoNetwork
import CiaoWire

/// A service for the backend to publish, already validated.
struct Publication: Hashable, Sendable {
    /// The instance name; empty for the host's name.
    var name: String
    var type: ServiceType
    var port: UInt16
    var txtRecord: TXTRecord
    var subtypes: [String]
    var allowsRenaming: Bool
    /// The key and servers of a publication in a unicast DNS domain; nil for `local.`.
    var wideArea: WideAreaOptions?
    /// The other host the service runs on, its SRV target; nil for this host.
    var hostName: DomainName? = nil
    /// The addresses of ``hostName`` to publish for it (a proxy); empty when it answers for itself.
    var hostAddresses: [IPAddress] = []
}

extension Publication {
    /// What the backend publishes of `configuration`, on `port`.
    init(_ configuration: PublicationConfiguration, port: UInt16) {
        self.init(
            name: configuration.name, type: configuration.type, port: port, txtRecord: configuration.txtRecord,
            subtypes: configuration.subtypes, allowsRenaming: configuration.allowsRenaming,
            wideArea: Service.isLocalDomain(configuration.domain) ? nil : configuration.wideArea,
            hostName: configuration.targetHostName, hostAddresses: configuration.parsedHostAddresses)
    }

    /// The instance name to publish: ``name``, or `hostLabel` when it is empty.
    func instanceName(hostLabel: String) -> String {
        name.isEmpty ? hostLabel : name
    }
}
