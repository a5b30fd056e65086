import CiaoWire

/// Answers kept until their TTL runs out, positive and negative alike (RFC 1035 §7.4, RFC 2308
/// §5), in at most ``capacity`` entries: when full, what expires soonest goes first.
struct DNSCache: Sendable {
    private struct Key: Hashable {
        var name: DomainName
        var type: RecordType
    }

    private struct Entry {
        var answer: DNSAnswer
        var stored: Duration
        var expires: Duration
    }

    /// The share of its TTL after which a refresh asks for an answer again: early enough that a
    /// round started at 80 % of a shorter TTL, with jitter, never finds it expired.
    static let refreshPoint = 0.75

    let capacity: Int
    private var entries: [Key: Entry] = [:]

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// The answer for the question with its TTLs counted down to `now`; nil when none is held, it
    /// has expired, or `unlessDue` and it has lived ``refreshPoint`` of its TTL.
    mutating func answer(name: DomainName, type: RecordType, unlessDue: Bool = false, at now: Duration)
        -> DNSAnswer?
    {
        let key = Key(name: name, type: type)
        guard let entry = entries[key] else { return nil }
        guard entry.expires > now else {
            entries[key] = nil
            return nil
        }
        if unlessDue, now - entry.stored >= (entry.expires - entry.stored) * Self.refreshPoint { return nil }
        let elapsed = UInt32(clamping: (now - entry.stored).components.seconds)
        var answer = entry.answer
        answer.ttl -= min(answer.ttl, elapsed)
        for index in answer.records.indices {
            answer.records[index].ttl -= min(answer.records[index].ttl, elapsed)
        }
        if let soaTTL = answer.soa?.ttl { answer.soa?.ttl = soaTTL - min(soaTTL, elapsed) }
        return answer
    }

    /// Keeps `answer` for its TTL; an answer with TTL 0 is not kept (RFC 1035 §3.2.1).
    mutating func store(_ answer: DNSAnswer, at now: Duration) {
        guard answer.ttl > 0, capacity > 0 else { return }
        let key = Key(name: answer.name, type: answer.type)
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[soonest.key] = nil
            }
        }
        entries[key] = Entry(answer: answer, stored: now, expires: now + .seconds(answer.ttl))
    }

    /// Forgets what is held for the question, so that the next query goes to the servers.
    mutating func remove(name: DomainName, type: RecordType) {
        entries[Key(name: name, type: type)] = nil
    }
}
