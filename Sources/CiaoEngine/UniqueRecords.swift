import CiaoWire

/// Records each at most once (the same name, class and data, RFC 6762 §6), in the order first
/// added: the engine's one way to drop repeated records, for answers, announcements, goodbyes and
/// same-host discovery alike.
///
/// Up to ``linearLimit`` records are compared in turn; past it a set of keys takes over, so that
/// n records cost n hashes, not n² comparisons.
struct UniqueRecords {
    /// Records compared in turn before a set of keys takes over.
    static let linearLimit = 16

    private(set) var records: [ResourceRecord] = []
    private var keys: Set<RecordKey>?

    init() {}

    init(_ records: some Sequence<ResourceRecord>) {
        for record in records { insert(record) }
    }

    /// Adds `record` unless the same record is already here; true when it was added, as
    /// `Set.insert` says.
    @discardableResult
    mutating func insert(_ record: ResourceRecord) -> Bool {
        if keys == nil && records.count < Self.linearLimit {
            guard !records.contains(where: { $0.isSameRecord(as: record) }) else { return false }
        } else {
            if keys == nil { keys = Set(records.map(RecordKey.init)) }
            guard keys!.insert(RecordKey(record)).inserted else { return false }
        }
        records.append(record)
        return true
    }
}

extension ResourceRecord {
    /// True when `other` is the same record: name (case-insensitively), class and data, whatever
    /// the TTL and cache-flush bit; what ``RecordKey`` equality says, without hashing.
    func isSameRecord(as other: ResourceRecord) -> Bool {
        data == other.data && rrClass == other.rrClass && name == other.name
    }
}
