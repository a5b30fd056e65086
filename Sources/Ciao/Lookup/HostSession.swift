import Synchronization

/// Follows a host's addresses until stopped, as `dns-sd -G v4v6` does: its A and AAAA records on
/// each interface as they come and go (RFC 6762 §5.2 continuous querying), those already cached
/// first. It lasts until ``stop()`` or until ``events`` is released.
public final class HostSession: Sendable {
    /// The changes; finishes after ``stop()``, or with `invalidConfiguration` for a host name
    /// DNS cannot carry or no family, `network` if unicast DNS cannot start for it.
    public let events: AsyncThrowingStream<HostAddressEvent, any Error>
    private let sink: AsyncThrowingStream<HostAddressEvent, any Error>.Continuation

    /// Follows `hostName` (`raspberrypi`, `raspberrypi.local` or `raspberrypi.local.`; a name in
    /// another domain, such as `printer.example.com`, by unicast DNS, whatever `interfaceIndex`
    /// says) over the families asked for, on every interface or on the one with `interfaceIndex`.
    public convenience init(
        hostName: String, families: Set<NetworkScope.AddressFamily> = [.ipv4, .ipv6], interfaceIndex: UInt32 = 0
    ) {
        self.init(hostName: hostName, families: families, interfaceIndex: interfaceIndex, backends: .shared)
    }

    init(
        hostName: String, families: Set<NetworkScope.AddressFamily>, interfaceIndex: UInt32,
        backends: BackendSelection
    ) {
        let (events, sink) = AsyncThrowingStream<HostAddressEvent, any Error>.makeStream()
        self.events = events
        self.sink = sink
        do {
            let lookup = try RecordLookup(hostName: hostName, families: families, interfaceIndex: interfaceIndex)
            let present = Mutex(RecordSet())
            let backend = try backends.backend(for: lookup)
            let token = try backend.lookUp(lookup) { update in
                // A question that could not be asked is asked again; the backend logs it.
                guard case .changes(let events) = update else { return }
                present.withLock { present in
                    for event in events {
                        let (removed, added) = present.apply(event)
                        for record in removed { if let address = HostAddress(record) { sink.yield(.removed(address)) } }
                        if let record = added, let address = HostAddress(record) { sink.yield(.added(address)) }
                    }
                }
            }
            sink.onTermination = { [backend] _ in backend.cancel(token) }
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Stops following; ``events`` finishes.
    public func stop() {
        sink.finish()
    }
}
