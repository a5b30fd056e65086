/// Enumerates the service types on the network through `_services._dns-sd._udp.local.`
/// (RFC 6763 §9), each type reported once while present. Enumeration lasts until ``stop()`` or
/// until ``types`` is released.
public final class ServiceTypeSession: Sendable {
    /// The types found; finishes after ``stop()``, or with an error if browsing could not start.
    public let types: AsyncThrowingStream<ServiceType, any Error>
    private let sink: AsyncThrowingStream<ServiceType, any Error>.Continuation

    /// Starts enumerating at once, in `domain` (empty or `local.`). A domain multicast DNS does
    /// not serve, or a failure to start, finishes ``types`` with the error.
    public convenience init(domain: String = "") {
        self.init(domain: domain, backend: MDNSRuntime.shared)
    }

    init(domain: String, backend: any DiscoveryBackend) {
        let (types, sink) = AsyncThrowingStream<ServiceType, any Error>.makeStream()
        self.types = types
        self.sink = sink
        guard Service.isLocalDomain(domain) else {
            sink.finish(throwing: CiaoError.invalidConfiguration("domain \"\(domain)\" is not served by multicast DNS"))
            return
        }
        do {
            let token = try backend.browseTypes { sink.yield($0) }
            sink.onTermination = { [backend] _ in backend.cancel(token) }
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Stops enumerating; ``types`` finishes, and its termination cancels the type browse.
    public func stop() {
        sink.finish()
    }
}
