/// A change to the records answering a ``RecordQuerySession``'s question, on one interface.
public enum RecordEvent: Hashable, Sendable {
    /// A record appeared.
    case added(DNSRecord)
    /// A unique record's data changed (a cache-flush replacement, RFC 6762 §10.2): `record`
    /// replaces the records of its name and type on its interface.
    case updated(DNSRecord)
    /// A record expired, said goodbye, or its interface went away; its `ttl` is as last received.
    case removed(DNSRecord)
    /// The name has no record of `type` on the record's interface, as its responder says:
    /// `record` is the NSEC it sent, listing the types the name has (RFC 6762 §6.1); for a name
    /// asked of unicast DNS, the zone's SOA that came with NODATA or NXDOMAIN (RFC 2308). Reported
    /// when such a record comes, or at once from the cache; no event marks its end, and a record
    /// of `type` that comes later is ``added(_:)``.
    case noSuchRecord(DNSRecordType, DNSRecord)

    /// The record the event is about: for ``noSuchRecord(_:_:)``, the NSEC or SOA.
    public var record: DNSRecord {
        switch self {
        case .added(let record), .updated(let record), .removed(let record), .noSuchRecord(_, let record): record
        }
    }
}
