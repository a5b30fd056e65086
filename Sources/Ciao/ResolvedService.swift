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

    /// Creates a resolved service; ``CiaoResolver`` and ``DiscoverySession`` report them.
    public init(service: Service, hostName: String, port: UInt16, addresses: [String], txtRecord: TXTRecord) {
        self.service = service
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
        self.txtRecord = txtRecord
    }
}
