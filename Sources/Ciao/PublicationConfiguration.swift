import CiaoNetwork
import CiaoWire

/// What ``CiaoServer/start(_:timeout:)`` publishes: a service type, an instance name, a port and
/// a TXT record (RFC 6763 §4–§6).
public struct PublicationConfiguration: Hashable, Sendable {
    /// Who owns the advertised port.
    public enum Mode: Hashable, Sendable {
        /// ``port`` is a nonzero port of a service you run yourself.
        case externalPort
        /// Ciao opens a listener of the type's transport (TCP or UDP) on an ephemeral port that
        /// refuses connections, and advertises that port for as long as the publication lasts.
        case listener
    }

    /// The service type to publish under.
    public var type: ServiceType
    /// The instance name, up to 63 bytes of UTF-8; empty means the host name (``hostName``'s
    /// first label when it is set).
    public var name: String
    /// Empty or `local.` for multicast DNS (RFC 6762 §3); any other domain is a unicast DNS
    /// zone the service is registered in by DNS UPDATE, which needs ``wideArea``.
    public var domain: String
    /// The port to advertise in ``Mode-swift.enum/externalPort`` mode; ignored in
    /// ``Mode-swift.enum/listener`` mode, where Ciao picks one.
    public var port: UInt16
    /// Who owns the advertised port.
    public var mode: Mode
    /// On a name conflict, rename to `Name (2)`, `Name (3)` …; when false the publication fails
    /// with ``CiaoError/dnsService(_:)`` −65548 (RFC 6762 §9).
    public var allowsRenaming: Bool
    /// The TXT record to publish (RFC 6763 §6); ``CiaoServer/updateTXT(_:)`` replaces it later.
    public var txtRecord: TXTRecord
    /// Subtypes under which the service is also found, such as `_printer` (RFC 6763 §7.1).
    public var subtypes: [String]
    /// The key (and optionally server and host name) for a domain other than `local.`.
    public var wideArea: WideAreaOptions?
    /// The host the service runs on when it is not this one, as `printer.local.` or `printer`
    /// (in `local.`): the SRV record names it, and that host answers for its own addresses, as
    /// with `avahi-publish -H` (RFC 6763 §5). Needs ``Mode-swift.enum/externalPort`` mode and
    /// `local.`. nil: this host.
    public var hostName: String?
    /// The addresses of ``hostName`` (numeric IPv4 or IPv6), for a host that does not answer for
    /// its own: Ciao publishes them under that name too, probed and defended, and maps each back
    /// to it (RFC 6762 §4), as `avahi-publish -a` does; a conflict over the name fails the
    /// publication. Needs a `hostName` of one label in `local.`. Empty: the host answers for
    /// itself.
    public var hostAddresses: [String]

    /// A configuration of `type`. By default: the host name as instance name, domain `local.`,
    /// ``Mode-swift.enum/listener`` mode, renaming allowed, an empty TXT record, no subtypes.
    /// ``CiaoServer/start(_:timeout:)`` checks the values.
    public init(
        type: ServiceType, name: String = "", domain: String = "", port: UInt16 = 0, mode: Mode = .listener,
        allowsRenaming: Bool = true, txtRecord: TXTRecord = .empty, subtypes: [String] = [],
        wideArea: WideAreaOptions? = nil, hostName: String? = nil, hostAddresses: [String] = []
    ) {
        self.type = type
        self.name = name
        self.domain = domain
        self.port = port
        self.mode = mode
        self.allowsRenaming = allowsRenaming
        self.txtRecord = txtRecord
        self.subtypes = subtypes
        self.wideArea = wideArea
        self.hostName = hostName
        self.hostAddresses = hostAddresses
    }

    /// Checks what the network cannot: the name's length, the domain, the port and the subtypes.
    func validate() throws(CiaoError) {
        guard name.utf8.count <= 63 else {
            throw .invalidConfiguration(
                "the instance name is \(name.utf8.count) bytes of UTF-8; at most 63 are allowed")
        }
        if !Service.isLocalDomain(domain) {
            do {
                _ = try DomainName(parsing: domain)
            } catch {
                throw .invalidConfiguration("domain \"\(domain)\" is not a domain name: \(error)")
            }
            guard wideArea != nil else {
                throw .invalidConfiguration(
                    "publishing in \"\(domain)\" is a DNS UPDATE, signed with a key: set wideArea"
                )
            }
        }
        if mode == .externalPort && port == 0 {
            throw .invalidConfiguration("external-port mode needs the nonzero port your service listens on")
        }
        if let hostName { try Self.checkHostName(hostName, domain: domain, mode: mode) }
        if !hostAddresses.isEmpty { try checkHostAddresses() }
        try Self.checkFits(txtRecord, name: name, type: type)
        for subtype in subtypes { try ServiceType.checkSubtype(subtype) }
    }

    /// ``hostName`` as the SRV target: a single label is a name in `local.`; nil when it is not
    /// set or not a domain name (``validate()`` rejects the latter).
    var targetHostName: DomainName? {
        guard let hostName, let name = try? DomainName(parsing: hostName) else { return nil }
        guard name.labelCount == 1 else { return name }
        return (try? name.appending(ServiceDirectory.localDomain)) ?? name
    }

    /// ``hostAddresses`` parsed, each once; those that do not parse are left out (``validate()``
    /// rejects them).
    var parsedHostAddresses: [IPAddress] {
        var seen: Set<IPAddress> = []
        return hostAddresses.compactMap(IPAddress.init).filter { seen.insert($0).inserted }
    }

    private func checkHostAddresses() throws(CiaoError) {
        guard let target = targetHostName, target.labelCount == 2, target.parent == ServiceDirectory.localDomain,
            let label = target.firstLabel, String(validating: label, as: UTF8.self) != nil
        else {
            throw .invalidConfiguration(
                "hostAddresses are published under hostName, which must then be a name such as printer.local")
        }
        for text in hostAddresses {
            guard let address = IPAddress(text) else {
                throw .invalidConfiguration(
                    "host address \"\(text)\" is not a numeric IPv4 or IPv6 address"
                        + (text.contains("%") ? " (leave out the %zone: it is published on every interface)" : ""))
            }
            guard !address.isUnreachableAsHost else {
                throw .invalidConfiguration(
                    "host address \(text) is unspecified, loopback, multicast or IPv4-mapped: no host has it on the network"
                )
            }
        }
    }

    private static func checkHostName(_ hostName: String, domain: String, mode: Mode) throws(CiaoError) {
        guard Service.isLocalDomain(domain) else {
            throw .invalidConfiguration(
                "hostName names another host in local.; in \"\(domain)\" the SRV target is wideArea's hostName")
        }
        guard mode == .externalPort else {
            throw .invalidConfiguration(
                "a service on another host (hostName) listens on that host: use external-port mode with its port")
        }
        let name: DomainName
        do {
            name = try DomainName(parsing: hostName)
        } catch {
            throw .invalidConfiguration("host name \"\(hostName)\" is not a domain name: \(error)")
        }
        guard name.labelCount > 0 else {
            throw .invalidConfiguration("the host name is empty; leave hostName nil for this host")
        }
    }

    /// Throws `invalidTXTRecord` when the TXT record, under the instance's name, would not fit a
    /// 9000-byte packet (RFC 6762 §17): nothing could announce it. An empty name stands for the
    /// host name, counted at its longest.
    package static func checkFits(_ txtRecord: TXTRecord, name: String, type: ServiceType) throws(CiaoError) {
        let ownerName = (name.isEmpty ? 63 : name.utf8.count) + type.rawValue.utf8.count + 9
        let messageSize = 12 + ownerName + 10 + txtRecord.wireData.count
        guard messageSize <= 9000 else {
            throw .invalidTXTRecord(
                "the TXT record is \(txtRecord.wireData.count) bytes; with its name it needs a \(messageSize)-byte "
                    + "packet, over the 9000 bytes multicast DNS allows")
        }
    }
}
