/// One-shot lookups of any record, of a host's addresses and of an address's host name, as
/// `dns-sd -Q`, `avahi-resolve -n` and `avahi-resolve -a` do.
///
/// Each asks on the network (RFC 6762 §5.2) and returns what has answered once answers have
/// paused for ``answerPause``: long enough for a host's other family. Shared PTR records (the
/// instances of a type, which many responders answer) are collected for ``sharedAnswerWindow`` at least: a responder
/// that multicast its answer within the last second answers only the second query, a second
/// after the first (§6). It throws `invalidConfiguration` for a
/// non-positive timeout or a name that cannot be asked for (before any network work), `timedOut`
/// (``CiaoError/noUsableInterface`` when no interface could carry the query) when nothing
/// answered in time, or `CancellationError`.
extension CiaoResolver {
    /// How long answers must pause before a one-shot lookup returns.
    public static let answerPause: Duration = .milliseconds(250)

    /// How long a one-shot lookup collects answers at least once a shared record has come.
    public static let sharedAnswerWindow: Duration = .seconds(2)

    /// The records of `type` for `name` (a trailing dot optional) on every interface, or on the
    /// one with `interfaceIndex`, with their TTLs and the interface each came over.
    public static func query(
        name: String, type: DNSRecordType, interfaceIndex: UInt32 = 0, timeout: Duration = .seconds(10)
    ) async throws -> [DNSRecord] {
        try await query(
            name: name, type: type, interfaceIndex: interfaceIndex, timeout: timeout, backend: MDNSRuntime.shared)
    }

    /// The addresses of `hostName` (`raspberrypi`, `raspberrypi.local` or `raspberrypi.local.`)
    /// over the families asked for, IPv4 first; an IPv6 link-local address carries its `%zone`.
    public static func resolveHost(
        _ hostName: String, families: Set<NetworkScope.AddressFamily> = [.ipv4, .ipv6], interfaceIndex: UInt32 = 0,
        timeout: Duration = .seconds(10)
    ) async throws -> [HostAddress] {
        try await resolveHost(
            hostName, families: families, interfaceIndex: interfaceIndex, timeout: timeout, backend: MDNSRuntime.shared)
    }

    /// The host name that `address` (`192.0.2.7`, `fe80::1%eth0`) maps back to by its reverse PTR
    /// record (RFC 1035 §3.5, RFC 3596 §2.5), such as `raspberrypi.local.`.
    public static func resolveAddress(
        _ address: String, interfaceIndex: UInt32 = 0, timeout: Duration = .seconds(10)
    ) async throws -> String {
        try await resolveAddress(address, interfaceIndex: interfaceIndex, timeout: timeout, backend: MDNSRuntime.shared)
    }

    static func query(
        name: String, type: DNSRecordType, interfaceIndex: UInt32, timeout: Duration, backend: any DiscoveryBackend
    ) async throws -> [DNSRecord] {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(name: name, types: [type], interfaceIndex: interfaceIndex)
        return try await collect(lookup, timeout: timeout, backend: backend)
    }

    static func resolveHost(
        _ hostName: String, families: Set<NetworkScope.AddressFamily>, interfaceIndex: UInt32, timeout: Duration,
        backend: any DiscoveryBackend
    ) async throws -> [HostAddress] {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(hostName: hostName, families: families, interfaceIndex: interfaceIndex)
        let records = try await collect(lookup, timeout: timeout, backend: backend)
        var addresses: [HostAddress] = []
        for address in records.compactMap(HostAddress.init) where !addresses.contains(address) {
            addresses.append(address)
        }
        return addresses.filter { $0.family == .ipv4 } + addresses.filter { $0.family == .ipv6 }
    }

    static func resolveAddress(
        _ address: String, interfaceIndex: UInt32, timeout: Duration, backend: any DiscoveryBackend
    ) async throws -> String {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(reverseOf: address, interfaceIndex: interfaceIndex)
        let records = try await collect(lookup, timeout: timeout, backend: backend)
        // The lookup asks for PTR records alone, and returns only with one at least.
        return records.first { $0.type == .ptr }?.value ?? records[0].value
    }

    private static func checkTimeout(_ timeout: Duration) throws(CiaoError) {
        guard timeout > .zero else {
            throw CiaoError.invalidConfiguration("the lookup timeout must be positive, not \(timeout)")
        }
    }

    /// What answers `lookup`, once answers have paused for ``answerPause`` after the first, or at
    /// `timeout` if they have not paused by then; `timedOut` if none came.
    static func collect(_ lookup: RecordLookup, timeout: Duration, backend: any DiscoveryBackend) async throws
        -> [DNSRecord]
    {
        enum Signal: Sendable {
            case events([RecordEvent])
            /// ``answerPause`` has passed since the change numbered so.
            case paused(after: Int)
            case timedOut
        }
        let (signals, sink) = AsyncStream<Signal>.makeStream()
        let started = ContinuousClock.now
        let token = try backend.lookUp(lookup) { sink.yield(.events($0)) }
        let deadline = DeadlineScheduler.shared.schedule(after: timeout) { sink.yield(.timedOut) }
        var pause: DeadlineScheduler.Token?
        defer {
            backend.cancel(token)
            DeadlineScheduler.shared.cancel(deadline)
            DeadlineScheduler.shared.cancel(pause)
            sink.finish()
        }
        var present = RecordSet()
        var changes = 0
        // Iteration ends early when the task is cancelled.
        for await signal in signals {
            switch signal {
            case .events(let events):
                for event in events { _ = present.apply(event) }
                changes += 1
                DeadlineScheduler.shared.cancel(pause)
                pause =
                    present.records.isEmpty
                    ? nil
                    : DeadlineScheduler.shared.schedule(after: answerPause) { [changes] in
                        sink.yield(.paused(after: changes))
                    }
            case .paused(let after) where after == changes:
                let waited = ContinuousClock.now - started
                // A shared PTR, not an address record some responders send without the cache-flush bit.
                guard present.records.contains(where: { !$0.isUnique && $0.type == .ptr }), waited < sharedAnswerWindow
                else {
                    return present.records
                }
                pause = DeadlineScheduler.shared.schedule(after: sharedAnswerWindow - waited) { [changes] in
                    sink.yield(.paused(after: changes))
                }
            case .paused:
                continue
            case .timedOut:
                guard !present.records.isEmpty else { throw backend.timeoutError }
                return present.records
            }
        }
        try Task.checkCancellation()
        throw CancellationError()
    }
}
