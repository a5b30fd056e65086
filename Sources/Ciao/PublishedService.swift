/// A service as it is actually published: the name after any renaming, and the port in use.
public struct PublishedService: Equatable, Hashable, Sendable {
    public var service: Service
    public var port: UInt16
    /// The host name in the service's SRV record, such as `ciao.local.`.
    public var hostName: String

    public init(service: Service, port: UInt16, hostName: String = "") {
        self.service = service
        self.port = port
        self.hostName = hostName
    }

    /// Service and port, as in Ciao 4; the host name is extra information, not identity.
    public static func == (lhs: PublishedService, rhs: PublishedService) -> Bool {
        lhs.service == rhs.service && lhs.port == rhs.port
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(port)
    }
}
