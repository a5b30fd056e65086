/// Enumerates the service types of a domain through `_services._dns-sd._udp.<domain>`
/// (RFC 6763 §9), each type reported once while present. Enumeration lasts until ``stop()`` or
/// until ``types`` is released.
public final class ServiceTypeSession: Sendable {
    /// The types found; finishes after ``stop()``, or with an error if browsing could not start.
    public let types: AsyncThrowingStream<ServiceType, any Error>
    private let sink: AsyncThrowingStream<ServiceType, any Error>.Continuation

    /// Starts enumerating at once, in `domain`: empty or `local.` by multicast DNS, another by
    /// unicast DNS through the servers of `/etc/resolv.conf`. A domain that is not a domain name,
    /// or a failure to start, finishes ``types`` with the error.
    public convenience init(domain: String = "") {
        self.init(domain: domain, backends: .shared)
    }

    init(domain: String, backends: BackendSelection) {
        let (types, sink) = AsyncThrowingStream<ServiceType, any Error>.makeStream()
        self.types = types
        self.sink = sink
        do {
            let backend = try backends.backend(for: domain)
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
