import CiaoWire

/// A record's identity: name, type, class and data (RFC 6762 §10.2 treats records with the same
/// name, type and class as one RRset).
struct RecordKey: Hashable {
    var name: DomainName
    var rrClass: RecordClass
    var data: RecordData

    init(_ record: ResourceRecord) {
        name = record.name
        rrClass = record.rrClass
        data = record.data
    }

    var rrset: RRSetKey { RRSetKey(name: name, type: data.type, rrClass: rrClass) }
}

/// Name, type and class: an RRset.
struct RRSetKey: Hashable {
    var name: DomainName
    var type: RecordType
    var rrClass: RecordClass
}

/// The records learned on one interface, with their lifetimes (RFC 6762 §10).
///
/// TTLs expire; goodbyes (TTL 0) expire after one second (§10.1); a cache-flush record flushes the
/// rest of its RRset received more than a second earlier (§10.2); records that other hosts keep
/// asking for without an answer are flushed by Passive Observation Of Failures (§10.5). The number of
/// records is capped; when it overflows, the records closest to expiry go first, and records
/// answering active queries last.
struct RecordCache {
    struct Entry {
        var record: ResourceRecord
        var received: Instant
        var expiry: Instant
        /// Index into ``RecordCache/refreshPoints`` of the next refresh query, if any left.
        var refreshStep = 0
        var nextRefresh: Instant?
        /// Queries from other hosts this record would answer, seen without an answer since (§10.5).
        var unansweredQueries = 0
        var firstUnansweredQuery: Instant?
        /// Replaced by a cache-flush update: its removal is not reported.
        var replaced = false
    }

    /// What an insertion did.
    enum Insertion: Equatable {
        /// A new record.
        case added
        /// A new record replacing the only other member of its unique RRset (e.g. a new TXT).
        case replaced
        /// A known record with its TTL refreshed, or a goodbye scheduled.
        case refreshed
        /// A goodbye for a record not in the cache.
        case ignored
    }

    /// Refresh queries at 80, 85, 90 and 95 % of the TTL (RFC 6762 §5.2).
    static let refreshPoints = [0.80, 0.85, 0.90, 0.95]
    /// POOF flushes a record after this long with two or more unanswered queries (§10.5).
    static let poofWindow: Duration = .seconds(10)

    let capacity: Int
    private(set) var entries: [RecordKey: Entry] = [:]
    private var byRRSet: [RRSetKey: Set<RecordKey>] = [:]

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The live records answering `name`/`type` (`ANY` matches every type).
    func records(named name: DomainName, type: RecordType) -> [Entry] {
        if type == .any {
            return entries.values.filter { $0.record.name == name }
        }
        return (byRRSet[RRSetKey(name: name, type: type, rrClass: .internet)] ?? []).compactMap { entries[$0] }
    }

    /// Adds or refreshes `record`. Returns what happened and the records it pushed out of the cache
    /// by overflowing the cap (their removal is to be reported). `isProtected` says whether an
    /// RRset answers an active query.
    mutating func insert(
        _ record: ResourceRecord, at now: Instant, random: inout SplitMix64, isProtected: (RRSetKey) -> Bool
    ) -> (Insertion, evicted: [ResourceRecord]) {
        let key = RecordKey(record)
        if record.ttl == 0 {
            guard var entry = entries[key] else { return (.ignored, []) }
            entry.expiry = min(entry.expiry, now + .seconds(1))
            entry.nextRefresh = nil
            entries[key] = entry
            return (.refreshed, [])
        }
        var insertion = Insertion.added
        if record.cacheFlush {
            // Members of the RRset older than one second go in a second (RFC 6762 §10.2).
            let others = (byRRSet[key.rrset] ?? []).filter { $0 != key }
            for other in others {
                guard var entry = entries[other], now - entry.received > .seconds(1) else { continue }
                entry.expiry = min(entry.expiry, now + .seconds(1))
                entry.nextRefresh = nil
                if entries[key] == nil && others.count == 1 {
                    entry.replaced = true
                    insertion = .replaced
                }
                entries[other] = entry
            }
        }
        var entry = Entry(record: record, received: now, expiry: now + .seconds(Int64(record.ttl)))
        if entries[key] != nil { insertion = .refreshed }
        scheduleRefresh(&entry, random: &random)
        entries[key] = entry
        byRRSet[key.rrset, default: []].insert(key)
        let evicted = entries.count > capacity ? evict(isProtected: isProtected) : []
        return (insertion, evicted)
    }

    /// Notes a query from another host for `name`/`type` whose known answers did not include these
    /// records (RFC 6762 §10.5).
    mutating func noteUnansweredQuery(name: DomainName, type: RecordType, knownAnswers: Set<RecordKey>, at now: Instant) {
        for entry in records(named: name, type: type) {
            let key = RecordKey(entry.record)
            guard !knownAnswers.contains(key), var updated = entries[key] else { continue }
            if updated.unansweredQueries == 0 { updated.firstUnansweredQuery = now }
            updated.unansweredQueries += 1
            entries[key] = updated
        }
    }

    /// The records whose time is up at `now`: expired, flushed or POOFed. Replaced records are
    /// dropped without being returned.
    mutating func removeExpired(at now: Instant) -> [ResourceRecord] {
        var removed: [ResourceRecord] = []
        for (key, entry) in entries where entry.expiry <= now || isPoofed(entry, at: now) {
            remove(key)
            if !entry.replaced { removed.append(entry.record) }
        }
        return removed
    }

    /// The RRsets due for a refresh query at `now`; advances their refresh schedule.
    mutating func takeDueRefreshes(at now: Instant, random: inout SplitMix64) -> Set<RRSetKey> {
        var due: Set<RRSetKey> = []
        for (key, entry) in entries {
            guard let refresh = entry.nextRefresh, refresh <= now else { continue }
            var updated = entry
            scheduleRefresh(&updated, random: &random)
            entries[key] = updated
            due.insert(key.rrset)
        }
        return due
    }

    /// Removes every record, returning those to report.
    mutating func removeAll() -> [ResourceRecord] {
        defer {
            entries = [:]
            byRRSet = [:]
        }
        return entries.values.filter { !$0.replaced }.map(\.record)
    }

    /// The earliest expiry, POOF deadline or refresh among `entries`; `includeRefresh` filters which
    /// entries' refreshes matter (only records answering active queries are refreshed).
    func nextDeadline(refreshing includeRefresh: (RRSetKey) -> Bool) -> Instant? {
        var deadline: Instant?
        for (key, entry) in entries {
            var candidates = [entry.expiry]
            if entry.unansweredQueries >= 2, let first = entry.firstUnansweredQuery {
                candidates.append(first + Self.poofWindow)
            }
            if let refresh = entry.nextRefresh, includeRefresh(key.rrset) { candidates.append(refresh) }
            let earliest = candidates.min()!
            if deadline == nil || earliest < deadline! { deadline = earliest }
        }
        return deadline
    }

    /// Remaining TTL of `record` at `now`, in whole seconds, or nil if not cached.
    func remainingTTL(of key: RecordKey, at now: Instant) -> UInt32? {
        guard let entry = entries[key] else { return nil }
        let remaining = (entry.expiry - now).nanoseconds / 1_000_000_000
        return remaining > 0 ? UInt32(clamping: remaining) : nil
    }

    // MARK: Private

    private func isPoofed(_ entry: Entry, at now: Instant) -> Bool {
        guard entry.unansweredQueries >= 2, let first = entry.firstUnansweredQuery else { return false }
        return now >= first + Self.poofWindow
    }

    /// Next refresh point plus 0–2 % of the TTL of jitter (RFC 6762 §5.2).
    private func scheduleRefresh(_ entry: inout Entry, random: inout SplitMix64) {
        guard entry.refreshStep < Self.refreshPoints.count, !entry.replaced else {
            entry.nextRefresh = nil
            return
        }
        let ttl = Duration.seconds(Int64(entry.record.ttl))
        let fraction = Self.refreshPoints[entry.refreshStep] + Double.random(in: 0...0.02, using: &random)
        entry.nextRefresh = entry.received + ttl.scaled(by: fraction)
        entry.refreshStep += 1
    }

    private mutating func remove(_ key: RecordKey) {
        entries[key] = nil
        byRRSet[key.rrset]?.remove(key)
        if byRRSet[key.rrset]?.isEmpty == true { byRRSet[key.rrset] = nil }
    }

    /// Brings the cache down to 7/8 of its capacity in one pass, so a flood costs O(log n) per
    /// record: unprotected records first, soonest expiry first.
    private mutating func evict(isProtected: (RRSetKey) -> Bool) -> [ResourceRecord] {
        let target = capacity - capacity / 8
        let victims = entries.map { (key: $0.key, protected: isProtected($0.key.rrset), expiry: $0.value.expiry) }
            .sorted { ($0.protected ? 1 : 0, $0.expiry) < ($1.protected ? 1 : 0, $1.expiry) }
            .prefix(entries.count - target)
        var evicted: [ResourceRecord] = []
        for victim in victims {
            if let entry = entries[victim.key], !entry.replaced { evicted.append(entry.record) }
            remove(victim.key)
        }
        return evicted
    }
}
