import CiaoWire

/// What a server said about one question: the records of the RRset asked for (at the end of a
/// CNAME chain inside the reply), or that the name or the type does not exist (RFC 2308 §1).
public struct DNSAnswer: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The RRset exists; ``DNSAnswer/records`` holds it.
        case records
        /// The name exists but has no record of the type (NODATA).
        case noData
        /// The name does not exist (NXDOMAIN).
        case nameError
    }

    /// The question's name.
    public var name: DomainName
    public var type: RecordType
    public var outcome: Outcome
    /// The RRset's records, their TTLs the seconds left; empty unless the outcome is `records`.
    public var records: [ResourceRecord]
    /// Seconds this answer holds: the RRset's smallest TTL, or the negative TTL from the SOA
    /// (RFC 2308 §5), capped by the client; 0 for a negative answer without an SOA.
    public var ttl: UInt32
    /// The zone's SOA record that came with a negative answer (RFC 2308 §3), its TTL the seconds
    /// left of the negative TTL; nil for records, or when the server sent none.
    public var soa: ResourceRecord?

    public init(
        name: DomainName, type: RecordType, outcome: Outcome, records: [ResourceRecord], ttl: UInt32,
        soa: ResourceRecord? = nil
    ) {
        self.name = name
        self.type = type
        self.outcome = outcome
        self.records = records
        self.ttl = ttl
        self.soa = soa
    }
}
