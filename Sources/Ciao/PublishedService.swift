/// A service as it is actually published: the name after any renaming, and the port in use.
public struct PublishedService: Equatable, Hashable, Sendable {
    /// The service: its instance name after any renaming, its type and domain `local.`.
    public var service: Service
    /// The port in the SRV record: the configured one, or the listener's in listener mode.
    public var port: UInt16
    /// The host name in the service's SRV record, such as `ciao.local.`.
    public var hostName: String

    /// Creates a published service; ``CiaoServer`` reports them.
    public init(service: Service, port: UInt16, hostName: String = "") {
        self.service = service
        self.port = port
        self.hostName = hostName
    }

    /// Service and port, as in Ciao 4; the host name is extra information, not identity.
    public static func == (lhs: PublishedService, rhs: PublishedService) -> Bool {
        lhs.service == rhs.service && lhs.port == rhs.port
    }

    /// Hashes the service and the port, as ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(port)
    }
}
