import CiaoWire

/// The records learned on one interface, with their lifetimes (RFC 6762 §10).
///
/// TTLs expire; goodbyes (TTL 0) expire after one second (§10.1); a cache-flush record flushes the
/// rest of its RRset received more than a second earlier (§10.2); both only for records that came
/// over the family they came over; records that other hosts keep
/// asking for without an answer are removed by Passive Observation Of Failures (§10.5), and so are
/// records a client found wrong and had reconfirmed (§10.4) when nobody answers our own queries
/// for them. Records that answer an active query ("watched") are refreshed at 80–95 % of their TTL
/// (§5.2).
///
/// The number of records is capped, and so are TTLs (``maximumTTL``). A full cache makes room by
/// evicting, in this order: records no active query asks for, closest to expiry first; then the
/// newest records of the source holding the most. A source that already holds half of a full
/// cache gets room only from unasked records, and only for records a query asks for: the rest it
/// sends is turned away. A flood arrives in bulk from one source, so it cannot push out what
/// others publish or what was cached before it, and once the cache is full it costs no events.
/// Entries live in slots; the indexes and the two ``DeadlineQueue``s (lifetimes and refreshes)
/// hold slot numbers, so a flood costs O(log n) cheap steps per record and ``nextDeadline`` is
/// O(1).
struct RecordCache {
    /// A cached record. Its name, class and data are those of its key, kept once.
    struct Entry {
        var key: RecordKey
        /// The TTL the record came with.
        var ttl: UInt32
        var cacheFlush: Bool
        var received: Instant
        /// The address of the host that sent it last.
        var source: IPAddress
        /// When the record was last multicast over each family: its responder will not multicast
        /// it there again within the second (RFC 6762 §6).
        var multicastOver = MulticastTimes()
        /// Whether the record has come over IPv4 and over IPv6, multicast or unicast: its
        /// responder speaks those families. Two flags, not a set: a flood fills the cache.
        var heardOverIPv4 = false
        var heardOverIPv6 = false

        func wasHeard(over family: IPFamily) -> Bool { family == .v4 ? heardOverIPv4 : heardOverIPv6 }
        var expiry: Instant
        /// Index into ``RecordCache/refreshPoints`` of the next refresh query, if any left.
        var refreshStep = 0
        var nextRefresh: Instant?
        /// Answers an active query: its refreshes are deadlines.
        var watched = false
        /// Queries from other hosts this record would answer, seen without an answer since (§10.5).
        var unansweredQueries = 0
        var firstUnansweredQuery: Instant?
        var lastUnansweredQuery: Instant?
        /// Our own queries still to send for a suspected record (``RecordCache/reconfirmations``):
        /// one POOF suspects that a query watches, or one reconfirmed.
        var reconfirmationsLeft = 0

        /// Two or more queries went unanswered: the record's responder may be gone (§10.5).
        var isSuspected: Bool { unansweredQueries >= 2 }
        /// Replaced by a cache-flush update: its removal is not reported.
        var replaced = false
        /// Said goodbye to, or flushed by a cache-flush update: it goes within a second and is no
        /// longer an answer to report to a new query (§10.1, §10.2).
        var isLeaving = false

        /// When the record leaves: TTL expiry, or earlier by POOF, ten seconds after the first of
        /// the unanswered queries and never before the last has had its time to be answered.
        var lifetimeDeadline: Instant {
            guard isSuspected, let first = firstUnansweredQuery, let last = lastUnansweredQuery else {
                return expiry
            }
            return min(expiry, max(first + RecordCache.poofWindow, last + RecordCache.poofAnswerTime))
        }

        /// The refresh that is a deadline: only watched records are refreshed, and suspected ones
        /// asked for until their reconfirmations are sent.
        var refreshDeadline: Instant? { watched || reconfirmationsLeft > 0 ? nextRefresh : nil }

        /// The record as received.
        var record: ResourceRecord {
            ResourceRecord(name: key.name, rrClass: key.rrClass, cacheFlush: cacheFlush, ttl: ttl, data: key.data)
        }
    }

    /// What an insertion did.
    enum Insertion: Equatable {
        /// A new record.
        case added
        /// A new record replacing the only other member of its unique RRset (e.g. a new TXT).
        case replaced
        /// A known record with its TTL refreshed, or a goodbye scheduled.
        case refreshed
        /// A known record with its TTL refreshed, come for the first time over this family: a
        /// dual-stack responder's copy over its second family.
        case refreshedOverNewFamily
        /// A goodbye for a record not in the cache.
        case ignored
        /// A new record turned away: the cache is full, its source holds half of it, and no unasked
        /// record can make room for it.
        case refused
    }

    /// TTLs above this are cut to it, as mDNSResponder does (RFC 6762 §10 recommends 4500 s for
    /// other records): an extreme TTL buys a record no longer life and no place in the eviction order.
    static let maximumTTL: UInt32 = 4500

    /// Refresh queries at 80, 85, 90 and 95 % of the TTL (RFC 6762 §5.2).
    static let refreshPoints = [0.80, 0.85, 0.90, 0.95]
    /// POOF removes a record this long after the first of two or more unanswered queries (§10.5).
    static let poofWindow: Duration = .seconds(10)
    /// A suspected record is asked for by us, this many times this far apart, before it is
    /// removed: once two queries of others went unanswered, if a query watches it (on a lossy
    /// link two lost answers in a row happen every few minutes with a querier every 5 s, and a
    /// live responder answers ours), and when it is reconfirmed (§10.4 asks for two or more).
    static let reconfirmations = 2
    static let reconfirmationInterval: Duration = .seconds(2)
    /// How long after the last unanswered query POOF waits: for the reconfirmations, each given a
    /// second to be answered (§6: at most 120 ms, with up to 500 ms of aggregation).
    static let poofAnswerTime: Duration = reconfirmationInterval * (reconfirmations - 1) + .seconds(1)

    let capacity: Int
    private var slots: [Entry?] = []
    private var freeSlots: [Int] = []
    private var slotOf: [RecordKey: Int] = [:]
    private var byRRSet: [RRSetKey: SlotSet] = [:]
    private var byName: [NameKey: SlotSet] = [:]
    /// How many entries each source holds.
    private var countBySource: [IPAddress: Int] = [:]
    /// How many entries no active query watches (by their ``Entry/watched`` flag).
    private var unwatchedCount = 0
    /// Lifetime deadlines; an item is live while its slot's ``Entry/lifetimeDeadline`` equals it.
    private var lifetimes = DeadlineQueue<Int>()
    /// Refresh deadlines of watched and reconfirmed entries; live while the slot's
    /// ``Entry/refreshDeadline`` equals it.
    private var refreshes = DeadlineQueue<Int>()

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { slotOf.count }

    /// Every record cached, those leaving within their last second included, in no particular
    /// order: for inspection.
    var records: [ResourceRecord] { slots.compactMap { $0?.record } }

    /// The entry of `key`, if cached: one lookup, whatever the size of its RRset.
    func entry(_ key: RecordKey) -> Entry? {
        slotOf[key].flatMap { slots[$0] }
    }

    /// The live records answering `name`/`type` (`ANY` matches every type).
    func records(named name: DomainName, type: RecordType) -> [Entry] {
        slots(named: name, type: type).compactMap { slots[$0] }
    }

    /// Adds or refreshes `record` (whose key is `key`), received from `source` over `family`, by
    /// multicast or not. Returns what happened and the watched records it pushed out of the cache
    /// by overflowing the cap (their removal is to be reported; unwatched ones answer no query and
    /// go silently). `isWatched` says whether an RRset answers an active query: such records are
    /// refreshed, and evicted last.
    mutating func insert(
        _ record: ResourceRecord, key: RecordKey? = nil, from source: IPAddress, over family: IPFamily, multicast: Bool,
        at now: Instant, random: inout SplitMix64, isWatched: (RRSetKey) -> Bool
    ) -> (Insertion, evicted: [ResourceRecord]) {
        defer { discardStaleTops() }
        let key = key ?? RecordKey(record)
        let existing = slotOf[key]
        // A source holding half of a full cache: only what a query asks for, in place of unasked records.
        let dominant =
            existing == nil && record.ttl > 0 && slotOf.count >= capacity
            && countBySource[source, default: 0] >= capacity / 2
        if dominant && (unwatchedCount == 0 || !isWatched(key.rrset)) { return (.refused, []) }
        if record.ttl == 0 {
            // A responder says goodbye over each family it announced on; one over a family the
            // record never came over is another host's (an IPv4-only responder cannot hear, and
            // so cannot refute, a goodbye forged over IPv6).
            guard let slot = existing, var entry = slots[slot], entry.wasHeard(over: family) else {
                return (.ignored, [])
            }
            entry.expiry = min(entry.expiry, now + .seconds(1))
            entry.nextRefresh = nil
            entry.isLeaving = true
            store(entry, in: slot)
            return (.refreshed, [])
        }
        var insertion = Insertion.added
        if record.cacheFlush, let members = byRRSet[key.rrset] {
            // Members of the RRset older than one second go in a second (RFC 6762 §10.2).
            let others = members.filter { $0 != existing }
            // As for goodbyes, only members that came over the family the new record came over.
            for other in others {
                guard var entry = slots[other], now - entry.received > .seconds(1), entry.wasHeard(over: family)
                else { continue }
                entry.expiry = min(entry.expiry, now + .seconds(1))
                entry.nextRefresh = nil
                entry.isLeaving = true
                if existing == nil && others.count == 1 {
                    entry.replaced = true
                    insertion = .replaced
                }
                store(entry, in: other)
            }
        }
        let stored = sharingStoredNames(key)
        let previous = existing.flatMap { slots[$0] }
        let ttl = min(record.ttl, Self.maximumTTL)
        var entry = Entry(
            key: stored, ttl: ttl, cacheFlush: record.cacheFlush, received: now, source: source,
            expiry: now + .seconds(Int64(ttl)))
        entry.multicastOver = previous?.multicastOver ?? MulticastTimes()
        if multicast { entry.multicastOver[family] = now }
        entry.heardOverIPv4 = family == .v4 || previous?.heardOverIPv4 == true
        entry.heardOverIPv6 = family == .v6 || previous?.heardOverIPv6 == true
        entry.watched = isWatched(key.rrset)
        scheduleRefresh(&entry, random: &random)
        if let slot = existing {
            store(entry, in: slot)
            return (previous?.wasHeard(over: family) == false ? .refreshedOverNewFamily : .refreshed, [])
        }
        let slot =
            freeSlots.popLast()
            ?? {
                slots.append(nil)
                return slots.count - 1
            }()
        let rrset = stored.rrset
        slotOf[stored] = slot
        byRRSet[rrset, default: .none].insert(slot)
        byName[rrset.nameKey, default: .none].insert(slot)
        store(entry, in: slot)
        guard slotOf.count > capacity else { return (insertion, []) }
        let evicted = evict(isProtected: isWatched, sparingWatched: dominant)
        if slotOf.count > capacity {
            // No unasked record was left to give way after all.
            remove(slot)
            return (.refused, [])
        }
        return (insertion, evicted)
    }

    /// Marks the records answering `name`/`type` as watched by an active query whose question just
    /// went out: their refreshes become deadlines. Refresh points already past are skipped (the
    /// question just asked for them).
    mutating func watch(name: DomainName, type: RecordType, at now: Instant, random: inout SplitMix64) {
        defer { discardStaleTops() }
        for slot in slots(named: name, type: type) {
            guard var entry = slots[slot], !entry.watched else { continue }
            entry.watched = true
            while let refresh = entry.nextRefresh, refresh <= now { scheduleRefresh(&entry, random: &random) }
            store(entry, in: slot)
        }
    }

    /// Notes a query from another host for `name`/`type`, multicast over `family` with
    /// `knownAnswers` (and the TTLs they list), for Passive Observation Of Failures (RFC 6762
    /// §10.5). It counts against a record only where a live responder holding it must have
    /// answered: the record came over that family, was not multicast there within the last second
    /// (§6), and is not listed with at least half its TTL left (§7.1).
    mutating func noteUnansweredQuery(
        name: DomainName, type: RecordType, knownAnswers: ListedAnswers, over family: IPFamily, at now: Instant
    ) {
        defer { discardStaleTops() }
        for slot in slots(named: name, type: type) {
            guard var entry = slots[slot], entry.wasHeard(over: family),
                entry.multicastOver[family].map({ now - $0 >= MDNSEngine.multicastInterval }) ?? true,
                !knownAnswers.holdsAtLeastHalf(of: entry.key, ttl: entry.ttl)
            else { continue }
            // Queries further apart than the window are no run of failures: one answer lost
            // long ago and one now say nothing of a responder that answered in between.
            if let first = entry.firstUnansweredQuery, now - first > Self.poofWindow { entry.unansweredQueries = 0 }
            if entry.unansweredQueries == 0 { entry.firstUnansweredQuery = now }
            entry.unansweredQueries += 1
            entry.lastUnansweredQuery = now
            if entry.unansweredQueries == 2 && entry.watched {
                // Suspected: ask ourselves at once, so that a live responder can answer (§10.5).
                Self.askAgain(&entry, at: now)
            }
            store(entry, in: slot)
        }
    }

    /// Suspects the records of `name`/`type` (only the one with `data`, when given) that a client
    /// found wrong, such as the address of a host it could not reach (RFC 6762 §10.4): the doubt
    /// counts as the two unanswered queries of §10.5, so they are asked for ``reconfirmations``
    /// times without being listed as known, watched or not, and removed about ten seconds from
    /// now unless their responder answers. A record heard within the last second is alive (and
    /// its responder would not multicast it again within that second, §6); one already being
    /// asked for, or leaving, keeps its course; one POOF suspects keeps its deadline.
    mutating func reconfirm(name: DomainName, type: RecordType, data: RecordData?, at now: Instant) {
        defer { discardStaleTops() }
        for slot in slots(named: name, type: type) {
            guard var entry = slots[slot], !entry.isLeaving, entry.reconfirmationsLeft == 0,
                now - entry.received >= MDNSEngine.multicastInterval, data.map({ $0 == entry.key.data }) ?? true
            else { continue }
            if !entry.isSuspected {
                entry.unansweredQueries = 2
                entry.firstUnansweredQuery = now
                entry.lastUnansweredQuery = now
            }
            Self.askAgain(&entry, at: now)
            store(entry, in: slot)
        }
    }

    /// Schedules our ``reconfirmations`` of a suspected record, the first at once.
    private static func askAgain(_ entry: inout Entry, at now: Instant) {
        entry.reconfirmationsLeft = reconfirmations
        entry.nextRefresh = now
    }

    /// The records whose time is up at `now`: expired, cache-flushed or POOFed. Replaced records are
    /// dropped without being returned.
    mutating func removeExpired(at now: Instant) -> [ResourceRecord] {
        defer { discardStaleTops() }
        var removed: [ResourceRecord] = []
        while let top = lifetimes.first, top.time <= now {
            lifetimes.removeFirst()
            guard let entry = slots[top.id], entry.lifetimeDeadline == top.time else { continue }
            remove(top.id)
            if !entry.replaced { removed.append(entry.record) }
        }
        return removed
    }

    /// The RRsets due for a refresh query at `now` that `isQueried` still asks for, or that a
    /// reconfirmation still asks for; advances their refresh schedule. Records no query asks for
    /// any more stop being watched.
    mutating func takeDueRefreshes(
        at now: Instant, random: inout SplitMix64, isQueried: (RRSetKey) -> Bool
    ) -> Set<RRSetKey> {
        defer { discardStaleTops() }
        var due: Set<RRSetKey> = []
        while let top = refreshes.first, top.time <= now {
            refreshes.removeFirst()
            guard var entry = slots[top.id], entry.refreshDeadline == top.time else { continue }
            if entry.reconfirmationsLeft > 0 || isQueried(entry.key.rrset) {
                due.insert(entry.key.rrset)
                if entry.reconfirmationsLeft > 0 {
                    entry.reconfirmationsLeft -= 1
                    entry.nextRefresh = now + Self.reconfirmationInterval
                    if entry.reconfirmationsLeft == 0 {
                        // Back to the refresh point it had reached.
                        entry.refreshStep = max(entry.refreshStep - 1, 0)
                        scheduleRefresh(&entry, random: &random)
                    }
                } else {
                    scheduleRefresh(&entry, random: &random)
                }
            } else {
                entry.watched = false
            }
            store(entry, in: top.id)
        }
        return due
    }

    /// True when a record's lifetime (TTL, cache-flush or POOF deadline) may have ended by `now`.
    func hasExpiry(at now: Instant) -> Bool {
        lifetimes.first.map { $0.time <= now } ?? false
    }

    /// True when a watched record is due for a refresh at `now`.
    func hasDueRefresh(at now: Instant) -> Bool {
        refreshes.first.map { $0.time <= now } ?? false
    }

    /// Removes every record, returning those to report.
    mutating func removeAll() -> [ResourceRecord] {
        let remaining = slots.compactMap { $0 }.filter { !$0.replaced }.map(\.record)
        self = RecordCache(capacity: capacity)
        return remaining
    }

    /// The earliest expiry or POOF deadline (``removeExpired(at:)``).
    var nextExpiry: Instant? { lifetimes.first?.time }

    /// The earliest refresh of a watched record (``takeDueRefreshes(at:random:isQueried:)``).
    var nextRefresh: Instant? { refreshes.first?.time }

    /// Remaining TTL of `record` at `now`, in whole seconds, or nil if not cached.
    func remainingTTL(of key: RecordKey, at now: Instant) -> UInt32? {
        guard let slot = slotOf[key], let entry = slots[slot] else { return nil }
        let remaining = (entry.expiry - now).nanoseconds / 1_000_000_000
        return remaining > 0 ? UInt32(clamping: remaining) : nil
    }

    // MARK: Private

    /// `key` with its owner name and the names in its data replaced by byte-identical names
    /// already cached as owner names (a service's SRV, TXT and NSEC share the instance name, its
    /// PTR the type, its SRV target the host's address records), so that a thousand services
    /// keep one copy of each name rather than one per record.
    private func sharingStoredNames(_ key: RecordKey) -> RecordKey {
        var data = key.data
        switch data {
        case .ptr(let target):
            data = .ptr(storedName(target, key: NameKey(target)))
        case .srv(var srv):
            srv.target = storedName(srv.target, key: NameKey(srv.target))
            data = .srv(srv)
        case .nsec(var nsec):
            nsec.nextDomainName = storedName(nsec.nextDomainName, key: NameKey(nsec.nextDomainName))
            data = .nsec(nsec)
        default:
            break
        }
        return key.sharing(storedName(key.name, key: key.rrset.nameKey), data)
    }

    /// The cached owner name byte-identical to `name` (whose by-name key is `key`), or `name`.
    private func storedName(_ name: DomainName, key: NameKey) -> DomainName {
        guard let index = byName.index(forKey: key) else { return name }
        let stored = byName.keys[index].name
        return stored.isIdentical(to: name) ? stored : name
    }

    private func slots(named name: DomainName, type: RecordType) -> SlotSet {
        let slots = type == .any ? byName[NameKey(name)] : byRRSet[RRSetKey(name: name, type: type, rrClass: .internet)]
        return slots ?? .none
    }

    /// Next refresh point plus 0–2 % of the TTL of jitter (RFC 6762 §5.2).
    private func scheduleRefresh(_ entry: inout Entry, random: inout SplitMix64) {
        guard entry.refreshStep < Self.refreshPoints.count, !entry.replaced else {
            entry.nextRefresh = nil
            return
        }
        let ttl = Duration.seconds(Int64(entry.ttl))
        let fraction = Self.refreshPoints[entry.refreshStep] + Double.random(in: 0...0.02, using: &random)
        entry.nextRefresh = entry.received + ttl.scaled(by: fraction)
        entry.refreshStep += 1
    }

    /// Writes an entry and pushes its deadlines where they changed.
    private mutating func store(_ entry: Entry, in slot: Int) {
        let old = slots[slot]
        slots[slot] = entry
        if old?.source != entry.source {
            if let old { countBySource(of: old.source, add: -1) }
            countBySource(of: entry.source, add: 1)
        }
        if (old.map { !$0.watched } ?? false) != !entry.watched { unwatchedCount += entry.watched ? -1 : 1 }
        if old?.lifetimeDeadline != entry.lifetimeDeadline {
            lifetimes.schedule(slot, at: entry.lifetimeDeadline)
        }
        if let refresh = entry.refreshDeadline, old?.refreshDeadline != refresh {
            refreshes.schedule(slot, at: refresh)
        }
        if lifetimes.needsRebuild(liveCount: slotOf.count) || refreshes.needsRebuild(liveCount: slotOf.count) {
            rebuildDeadlineQueues()
        }
    }

    private mutating func remove(_ slot: Int) {
        guard let entry = slots[slot] else { return }
        slots[slot] = nil
        freeSlots.append(slot)
        slotOf[entry.key] = nil
        countBySource(of: entry.source, add: -1)
        if !entry.watched { unwatchedCount -= 1 }
        let rrset = entry.key.rrset
        Self.remove(slot, from: &byRRSet, at: rrset)
        Self.remove(slot, from: &byName, at: rrset.nameKey)
    }

    private mutating func countBySource(of source: IPAddress, add change: Int) {
        let count = countBySource[source, default: 0] + change
        countBySource[source] = count > 0 ? count : nil
    }

    /// Removes `slot` from an index's set at `key`, and the set once it is empty.
    private static func remove<Key: Hashable>(_ slot: Int, from index: inout [Key: SlotSet], at key: Key) {
        guard let position = index.index(forKey: key) else { return }
        index.values[position].remove(slot)
        if index.values[position].isEmpty { index.remove(at: position) }
    }

    /// Drops the first deadlines while no entry has them, so that the first of each queue is a
    /// real next deadline.
    private mutating func discardStaleTops() {
        lifetimes.discardFirst { slots[$0]?.lifetimeDeadline != $1 }
        refreshes.discardFirst { slots[$0]?.refreshDeadline != $1 }
    }

    /// Builds the deadline queues again from the entries, when deadlines no entry has pile up.
    private mutating func rebuildDeadlineQueues() {
        var lifetimeDeadlines: [(id: Int, time: Instant)] = []
        var refreshDeadlines: [(id: Int, time: Instant)] = []
        for (slot, entry) in slots.enumerated() {
            guard let entry else { continue }
            lifetimeDeadlines.append((slot, entry.lifetimeDeadline))
            if let refresh = entry.refreshDeadline { refreshDeadlines.append((slot, refresh)) }
        }
        lifetimes = DeadlineQueue(lifetimeDeadlines)
        refreshes = DeadlineQueue(refreshDeadlines)
    }

    /// Makes room: unwatched records down to 7/8 of the capacity, soonest lifetime deadline first,
    /// so that one pass over the entries pays for the next capacity/8 insertions; then, if still
    /// over and unless `sparingWatched`, watched records one by one, the newest of the source
    /// holding the most (each a removal to report, so no more than the cap requires).
    private mutating func evict(isProtected: (RRSetKey) -> Bool, sparingWatched: Bool) -> [ResourceRecord] {
        let excess = slotOf.count - (capacity - capacity / 8)
        var unwatched: [(deadline: Instant, slot: Int)] = []
        for (slot, entry) in slots.enumerated() {
            if let entry, !isProtected(entry.key.rrset) { unwatched.append((entry.lifetimeDeadline, slot)) }
        }
        for (_, slot) in unwatched.sorted(by: { ($0.deadline, $0.slot) < ($1.deadline, $1.slot) }).prefix(excess) {
            remove(slot)
        }
        var evicted: [ResourceRecord] = []
        while slotOf.count > capacity && !sparingWatched {
            var victim: (held: Int, received: Instant, slot: Int)?
            for (slot, entry) in slots.enumerated() {
                guard let entry else { continue }
                let candidate = (countBySource[entry.source, default: 0], entry.received, slot)
                if victim.map({ candidate > $0 }) ?? true { victim = candidate }
            }
            guard let victim, let entry = slots[victim.slot] else { break }
            if !entry.replaced { evicted.append(entry.record) }
            remove(victim.slot)
        }
        return evicted
    }
}
