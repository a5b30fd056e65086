/// What a resolution on a ``DiscoveryBackend`` learns, one result at a time.
enum ResolutionUpdate: Hashable, Sendable {
    /// The service's host, port, addresses and TXT, the first time and each time they change.
    case resolved(ResolvedService)
    /// A round could not resolve the service: no unicast DNS server would answer, or the service
    /// has no SRV record. It is asked again in the next round; multicast DNS never reports this.
    case failed(CiaoError)
}
