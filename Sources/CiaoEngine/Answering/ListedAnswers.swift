import CiaoWire

/// The answers another host listed in a message, each with the largest TTL listed for it: a
/// query's known answers (RFC 6762 §7.1) or a response's answers (§7.4). The same record listed
/// twice counts at its longer TTL.
struct ListedAnswers {
    private let ttls: [RecordKey: UInt32]

    init(_ records: [ResourceRecord]) {
        ttls = Dictionary(records.map { (RecordKey($0), $0.ttl) }, uniquingKeysWith: max)
    }

    var isEmpty: Bool { ttls.isEmpty }

    /// True when the record under `key`, whose full TTL is `ttl`, is listed with at least half of
    /// it: the querier holds it, and an answer would tell it nothing (§7.1).
    func holdsAtLeastHalf(of key: RecordKey, ttl: UInt32) -> Bool {
        ttls[key].map { UInt64($0) * 2 >= UInt64(ttl) } ?? false
    }

    /// True when `record` is listed with at least its TTL: a copy of our answer, as good as ours
    /// sent (§7.4).
    func copies(_ record: ResourceRecord) -> Bool {
        ttls[RecordKey(record)].map { $0 >= record.ttl } ?? false
    }
}
