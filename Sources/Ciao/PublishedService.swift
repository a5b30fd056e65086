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
}

/// What happens to a ``CiaoServer``'s publication.
public enum PublicationEvent: Equatable, Hashable, Sendable {
    /// The name is ours and announced; repeated with the new name after a rename (RFC 6762 §9).
    case started(PublishedService)
    /// The publication was withdrawn by ``CiaoServer/stop()`` (goodbyes sent).
    case stopped
    /// The publication ended: a name conflict with renaming off, or a timeout.
    case failed(CiaoError)
}
