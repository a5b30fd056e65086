/// One-shot lookups of any record, of a host's addresses and of an address's host name, as
/// `dns-sd -Q`, `avahi-resolve -n` and `avahi-resolve -a` do.
///
/// Each asks on the network (RFC 6762 §5.2; a name of two labels or more outside `local.` and
/// the reverse zones, of the unicast DNS servers of `/etc/resolv.conf`) and returns what has
/// answered once answers have paused for ``answerPause``: long enough for a host's other family. Shared PTR records (the
/// instances of a type, which many responders answer), and a host's addresses while only IPv6
/// ones have come and its responder has not said it has no IPv4 address, are collected for
/// ``sharedAnswerWindow`` at least: a responder that multicast its answer within the last second
/// answers only the second query, a second after the first (§6). It throws
/// `invalidConfiguration` for a non-positive timeout or a name that cannot be asked for (before
/// any network work), ``CiaoError/dnsService(_:)`` with ``CiaoError/Code/noSuchRecord`` at once
/// when the name's responder says, by an NSEC record on any interface (§6.1), or its zone's
/// server by NODATA or NXDOMAIN, that it has none of the types asked for, `timedOut`
/// (``CiaoError/noUsableInterface`` when no interface could carry the query) when nothing
/// answered in time, `network` when no unicast DNS server would answer a question (one refused it
/// or none could be reached) and no other type has records (at once, or at the timeout while
/// another type is unanswered), or `CancellationError`.
extension CiaoResolver {
    /// How long answers must pause before a one-shot lookup returns.
    public static let answerPause: Duration = .milliseconds(250)

    /// How long a one-shot lookup collects answers at least once a shared record has come, or
    /// IPv6 addresses without IPv4 ones.
    public static let sharedAnswerWindow: Duration = .seconds(2)

    /// The records of `type` for `name` (a trailing dot optional) on every interface, or on the
    /// one with `interfaceIndex`, with their TTLs and the interface each came over.
    public static func query(
        name: String, type: DNSRecordType, interfaceIndex: UInt32 = 0, timeout: Duration = .seconds(10)
    ) async throws -> [DNSRecord] {
        try await query(
            name: name, type: type, interfaceIndex: interfaceIndex, timeout: timeout, backends: .shared)
    }

    /// The addresses of `hostName` (`raspberrypi`, `raspberrypi.local` or `raspberrypi.local.`;
    /// `printer.example.com` by unicast DNS) over the families asked for, IPv4 first; an IPv6
    /// link-local address carries its `%zone`.
    public static func resolveHost(
        _ hostName: String, families: Set<NetworkScope.AddressFamily> = [.ipv4, .ipv6], interfaceIndex: UInt32 = 0,
        timeout: Duration = .seconds(10)
    ) async throws -> [HostAddress] {
        try await resolveHost(
            hostName, families: families, interfaceIndex: interfaceIndex, timeout: timeout, backends: .shared)
    }

    /// The host name that `address` (`192.0.2.7`, `fe80::1%eth0`) maps back to by its reverse PTR
    /// record (RFC 1035 §3.5, RFC 3596 §2.5), such as `raspberrypi.local.`.
    public static func resolveAddress(
        _ address: String, interfaceIndex: UInt32 = 0, timeout: Duration = .seconds(10)
    ) async throws -> String {
        try await resolveAddress(address, interfaceIndex: interfaceIndex, timeout: timeout, backends: .shared)
    }

    static func query(
        name: String, type: DNSRecordType, interfaceIndex: UInt32, timeout: Duration, backends: BackendSelection
    ) async throws -> [DNSRecord] {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(name: name, types: [type], interfaceIndex: interfaceIndex)
        return try await collect(lookup, timeout: timeout, backend: try backends.backend(for: lookup))
    }

    static func resolveHost(
        _ hostName: String, families: Set<NetworkScope.AddressFamily>, interfaceIndex: UInt32, timeout: Duration,
        backends: BackendSelection, window: Duration = sharedAnswerWindow
    ) async throws -> [HostAddress] {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(hostName: hostName, families: families, interfaceIndex: interfaceIndex)
        let records = try await collect(
            lookup, timeout: timeout, backend: try backends.backend(for: lookup), window: window)
        var addresses: [HostAddress] = []
        for address in records.compactMap(HostAddress.init) where !addresses.contains(address) {
            addresses.append(address)
        }
        return addresses.filter { $0.family == .ipv4 } + addresses.filter { $0.family == .ipv6 }
    }

    static func resolveAddress(
        _ address: String, interfaceIndex: UInt32, timeout: Duration, backends: BackendSelection
    ) async throws -> String {
        try checkTimeout(timeout)
        let lookup = try RecordLookup(reverseOf: address, interfaceIndex: interfaceIndex)
        let records = try await collect(lookup, timeout: timeout, backend: try backends.backend(for: lookup))
        // The lookup asks for PTR records alone, and returns only with one at least.
        return records.first { $0.type == .ptr }?.value ?? records[0].value
    }

    private static func checkTimeout(_ timeout: Duration) throws(CiaoError) {
        guard timeout > .zero else {
            throw CiaoError.invalidConfiguration("the lookup timeout must be positive, not \(timeout)")
        }
    }

    /// What answers `lookup`, as
    /// ``settle(_:timeout:backend:window:start:fold:answers:awaitsSecondQuery:isComplete:failure:)``
    /// collects it: past the answer pause, to the end of `window`, while a shared PTR record has
    /// come, or AAAA records without the A records also asked for (a dual-stack responder that
    /// multicast its A records within the last second, or avahi, which by default sends them over
    /// IPv4 only) unless an NSEC says there are none; `noSuchRecord` as soon as NSEC records deny
    /// every type asked for while nothing has answered. A unicast DNS server answers each question
    /// once and whole: a lookup of a name outside `local.` returns as soon as every type has its
    /// records or its denial or could not be asked, or at the timeout with what has come; without
    /// records, it throws why a type could not be asked.
    static func collect(
        _ lookup: RecordLookup, timeout: Duration, backend: any DiscoveryBackend,
        window: Duration = sharedAnswerWindow
    ) async throws -> [DNSRecord] {
        let asksForIPv4 = lookup.types.contains(.a)
        let asked = lookup.types.map { DNSRecordType(rawValue: $0.rawValue) }
        let isUnicast = !lookup.isMulticast
        let everyTypeSettled = { (progress: LookupProgress) in asked.allSatisfy(progress.isSettled) }
        let progress = try await settle(
            LookupProgress(), timeout: timeout, backend: backend, window: isUnicast ? timeout : window,
            start: { onUpdate throws(CiaoError) in try backend.lookUp(lookup, onUpdate: onUpdate) },
            fold: { progress, update in progress.apply(update) },
            answers: { !$0.present.records.isEmpty },
            awaitsSecondQuery: { progress in
                guard !isUnicast else { return !everyTypeSettled(progress) }
                let present = progress.present
                // A shared PTR, not an address record some responders send without the cache-flush bit.
                return present.records.contains { !$0.isUnique && $0.type == .ptr }
                    || asksForIPv4 && present.records.contains { $0.type == .aaaa }
                        && !present.records.contains { $0.type == .a } && !present.deniedTypes.contains(.a)
            },
            isComplete: { progress in
                isUnicast
                    ? everyTypeSettled(progress)
                    : progress.present.records.isEmpty && asked.allSatisfy(progress.present.deniedTypes.contains)
            },
            failure: { progress in progress.failure(amongst: asked) })
        // `settle` returns a value without records only when it is complete: every type denied,
        // or, in unicast DNS, some could not be asked.
        guard !progress.present.records.isEmpty else {
            throw progress.failure(amongst: asked) ?? CiaoError.dnsService(CiaoError.Code.noSuchRecord)
        }
        return progress.present.records
    }

    /// Runs a one-shot lookup that `start` begins, folding its updates into a value, and returns
    /// the value once it `answers` and updates have paused for ``answerPause``, or at once when it
    /// `isComplete`; while `awaitsSecondQuery` holds, not before `window` (``sharedAnswerWindow``)
    /// has passed since the start (a responder that multicast what is missing within the last
    /// second gives it only to the second query, a second after the first: RFC 6762 §6). At
    /// `timeout`, the value if it answers; otherwise the value's `failure`, or the backend's
    /// ``DiscoveryBackend/timeoutError``.
    static func settle<Update: Sendable, Value>(
        _ initial: Value, timeout: Duration, backend: any DiscoveryBackend, window: Duration = sharedAnswerWindow,
        start: (_ onUpdate: @escaping @Sendable (Update) -> Void) throws(CiaoError) -> BackendToken,
        fold: (inout Value, Update) -> Void, answers: (Value) -> Bool, awaitsSecondQuery: (Value) -> Bool,
        isComplete: (Value) -> Bool = { _ in false }, failure: (Value) -> CiaoError? = { _ in nil }
    ) async throws -> Value {
        let (signals, sink) = AsyncStream<LookupSignal<Update>>.makeStream()
        let started = ContinuousClock.now
        let token = try start { sink.yield(.update($0)) }
        let deadline = DeadlineScheduler.shared.schedule(after: timeout) { sink.yield(.timedOut) }
        var pauseEnd: DeadlineScheduler.Token?
        defer {
            backend.cancel(token)
            DeadlineScheduler.shared.cancel(deadline)
            DeadlineScheduler.shared.cancel(pauseEnd)
            sink.finish()
        }
        var value = initial
        var changes = 0
        // Iteration ends early when the task is cancelled.
        for await signal in signals {
            switch signal {
            case .update(let update):
                fold(&value, update)
                if isComplete(value) { return value }
                changes += 1
                DeadlineScheduler.shared.cancel(pauseEnd)
                pauseEnd =
                    answers(value)
                    ? DeadlineScheduler.shared.schedule(after: answerPause) { [changes] in
                        sink.yield(.paused(after: changes))
                    } : nil
            case .paused(let after) where after == changes:
                let waited = ContinuousClock.now - started
                guard awaitsSecondQuery(value), waited < window else { return value }
                pauseEnd = DeadlineScheduler.shared.schedule(after: window - waited) { [changes] in
                    sink.yield(.paused(after: changes))
                }
            case .paused:
                continue
            case .timedOut:
                guard answers(value) else { throw failure(value) ?? backend.timeoutError }
                return value
            }
        }
        try Task.checkCancellation()
        throw CancellationError()
    }
}

/// What a one-shot lookup has learnt: the records present and denied, and why the question of
/// each type last could not be asked.
private struct LookupProgress {
    var present = RecordSet()
    private var failures: [DNSRecordType: CiaoError] = [:]

    mutating func apply(_ update: LookupUpdate) {
        switch update {
        case .changes(let events): for event in events { _ = present.apply(event) }
        case .failed(let type, let error): failures[type] = error
        }
    }

    /// Whether `type` has records (any, for ANY) or a denial.
    func isAnswered(_ type: DNSRecordType) -> Bool {
        present.deniedTypes.contains(type) || present.records.contains { type == .any || $0.type == type }
    }

    /// Whether the question for `type` is done with: answered, or it could not be asked.
    func isSettled(_ type: DNSRecordType) -> Bool {
        isAnswered(type) || failures[type] != nil
    }

    /// Why the first of `types` without an answer could not be asked, if it could not.
    func failure(amongst types: [DNSRecordType]) -> CiaoError? {
        types.lazy.filter { !self.isAnswered($0) }.compactMap { self.failures[$0] }.first
    }
}

/// What a one-shot lookup waits for: an update, the end of a pause after the change numbered
/// so, or its timeout.
private enum LookupSignal<Update: Sendable>: Sendable {
    case update(Update)
    case paused(after: Int)
    case timedOut
}
