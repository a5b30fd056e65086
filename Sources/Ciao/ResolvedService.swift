/// A service resolved to its SRV target host, port, addresses and TXT record (RFC 6763 §5, §6).
///
/// `addresses` are numeric strings (`192.0.2.7`, `fe80::1%eth0`); an IPv6 link-local address keeps its `%zone`.
public struct ResolvedService: Equatable, Hashable, Sendable {
    /// The service instance that was resolved; asked for on every interface (an `interfaceIndex`
    /// of 0, or one that no longer exists), its `interfaceIndex` is the interface that answered.
    public var service: Service
    /// The SRV target host name, e.g. `raspberrypi.local.`.
    public var hostName: String
    /// The SRV port.
    public var port: UInt16
    /// The host's addresses as numeric strings; IPv6 link-local addresses carry their `%zone`.
    public var addresses: [String]
    /// The service's TXT attributes.
    public var txtRecord: TXTRecord
    /// The addresses, in the order of ``addresses``, that came over each family's multicast (or
    /// unicast) replies, for `ciao browse -p`'s line per protocol; not part of equality. Empty
    /// when unknown.
    package var addressesHeardOver: [NetworkScope.AddressFamily: [String]] = [:]
    /// The families the host's responder says it has no address of, by an NSEC record (RFC 6762
    /// §6.1), so that a one-shot resolution need not wait for them; not part of equality.
    package var familiesDenied: Set<NetworkScope.AddressFamily> = []

    /// Creates a resolved service; ``CiaoResolver`` and ``DiscoverySession`` report them.
    public init(service: Service, hostName: String, port: UInt16, addresses: [String], txtRecord: TXTRecord) {
        self.service = service
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
        self.txtRecord = txtRecord
    }

    /// Whether some address is of `family`.
    func hasAddress(of family: NetworkScope.AddressFamily) -> Bool {
        addresses.contains { NetworkScope.AddressFamily(ofAddress: $0) == family }
    }

    /// Equal when service, host, port, addresses and TXT are: not by the families addresses came
    /// over, or those denied.
    public static func == (lhs: ResolvedService, rhs: ResolvedService) -> Bool {
        lhs.service == rhs.service && lhs.hostName == rhs.hostName && lhs.port == rhs.port
            && lhs.addresses == rhs.addresses && lhs.txtRecord == rhs.txtRecord
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(hostName)
        hasher.combine(port)
        hasher.combine(addresses)
        hasher.combine(txtRecord)
    }
}
