/// Asks for the records of a name and type until stopped, as `dns-sd -Q` does: the records
/// answering it as they come, change and go (RFC 6762 §5.2 continuous querying), those already
/// cached first. It lasts until ``stop()`` or until ``events`` is released.
public final class RecordQuerySession: Sendable {
    /// The changes, each on one interface; finishes after ``stop()``, or with
    /// `invalidConfiguration` if the name cannot be asked for, `network` if unicast DNS cannot
    /// start for it.
    public let events: AsyncThrowingStream<RecordEvent, any Error>
    private let sink: AsyncThrowingStream<RecordEvent, any Error>.Continuation

    /// Asks for `type` records of `name` (such as `printer.local.` or `_ipp._tcp.local.`; a
    /// trailing dot is optional) on every interface, or on the one with `interfaceIndex`. A name
    /// of two labels or more outside `local.` and the reverse zones, such as `www.example.com.`, is
    /// asked of the unicast DNS servers of `/etc/resolv.conf`, again at 80 % of its TTL, whatever
    /// `interfaceIndex` says; its records come on interface 0.
    public convenience init(name: String, type: DNSRecordType, interfaceIndex: UInt32 = 0) {
        self.init(name: name, types: [type], interfaceIndex: interfaceIndex, backends: .shared)
    }

    /// As ``init(name:type:interfaceIndex:)``, telling `questionFailed` why each time no unicast
    /// DNS server would answer (one refused, or none could be reached); the question is asked
    /// again in the next round. `ciao query -c` says it on standard error.
    package convenience init(
        name: String, type: DNSRecordType, interfaceIndex: UInt32 = 0,
        questionFailed: @escaping @Sendable (CiaoError) -> Void
    ) {
        self.init(
            name: name, types: [type], interfaceIndex: interfaceIndex, backends: .shared, questionFailed: questionFailed
        )
    }

    init(
        name: String, types: [DNSRecordType], interfaceIndex: UInt32, backends: BackendSelection,
        questionFailed: (@Sendable (CiaoError) -> Void)? = nil
    ) {
        let (events, sink) = AsyncThrowingStream<RecordEvent, any Error>.makeStream()
        self.events = events
        self.sink = sink
        do {
            let lookup = try RecordLookup(name: name, types: types, interfaceIndex: interfaceIndex)
            let backend = try backends.backend(for: lookup)
            let token = try backend.lookUp(lookup) { update in
                switch update {
                case .changes(let events): for event in events { sink.yield(event) }
                case .failed(_, let error): questionFailed?(error)
                }
            }
            sink.onTermination = { [backend] _ in backend.cancel(token) }
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Stops asking; ``events`` finishes.
    public func stop() {
        sink.finish()
    }
}
