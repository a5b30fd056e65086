/// The records a lookup sees at present, kept up to date from its events: what a one-shot query
/// returns and what a ``HostSession`` derives its changes from.
struct RecordSet {
    private(set) var records: [DNSRecord] = []
    /// The types a responder said the name has no record of (RFC 6762 §6.1), on some interface.
    private(set) var deniedTypes: Set<DNSRecordType> = []

    /// Applies `event`; returns the records it took away and the one it brought, if new.
    /// A ``RecordEvent/noSuchRecord(_:_:)`` brings no record: its type is kept in ``deniedTypes``.
    mutating func apply(_ event: RecordEvent) -> (removed: [DNSRecord], added: DNSRecord?) {
        switch event {
        case .added(let record):
            guard !records.contains(where: { $0.isSame(as: record) }) else { return ([], nil) }
            records.append(record)
            return ([], record)
        case .updated(let record):
            // The new record replaces its RRset on its interface (RFC 6762 §10.2).
            let replaced = records.filter { $0.isOfRRSet(of: record) }
            records.removeAll { $0.isOfRRSet(of: record) }
            records.append(record)
            return (replaced, record)
        case .removed(let record):
            let removed = records.filter { $0.isSame(as: record) }
            records.removeAll { $0.isSame(as: record) }
            return (removed, nil)
        case .noSuchRecord(let type, _):
            deniedTypes.insert(type)
            return ([], nil)
        }
    }
}

extension DNSRecord {
    /// Of the same name (letter case aside, RFC 6762 §16), type and interface.
    fileprivate func isOfRRSet(of other: DNSRecord) -> Bool {
        type == other.type && interfaceIndex == other.interfaceIndex && name.lowercased() == other.name.lowercased()
    }

    /// The same record on the same interface, whatever its TTL.
    fileprivate func isSame(as other: DNSRecord) -> Bool {
        isOfRRSet(of: other) && data == other.data
    }
}
