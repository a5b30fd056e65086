/// A resource record as it appears in the answer, authority or additional section
/// (RFC 1035 §4.1.3), with the class's top bit split out as mDNS's cache-flush flag (RFC 6762 §10.2).
public struct ResourceRecord: Hashable, Sendable {
    public var name: DomainName
    public var rrClass: RecordClass
    /// The top bit of the class: other cached records of this RRset are to be flushed.
    public var cacheFlush: Bool
    /// Time to live in seconds; 0 is a goodbye (RFC 6762 §10.1).
    public var ttl: UInt32
    public var data: RecordData

    public init(
        name: DomainName, rrClass: RecordClass = .internet, cacheFlush: Bool = false,
        ttl: UInt32, data: RecordData
    ) {
        self.name = name
        self.rrClass = rrClass
        self.cacheFlush = cacheFlush
        self.ttl = ttl
        self.data = data
    }

    public var type: RecordType { data.type }
}

/// A question (RFC 1035 §4.1.2), with the class's top bit split out as mDNS's unicast-response
/// ("QU") flag (RFC 6762 §5.4).
public struct Question: Hashable, Sendable {
    public var name: DomainName
    public var type: RecordType
    public var qClass: RecordClass
    /// The top bit of the class: the querier prefers a unicast reply.
    public var unicastResponse: Bool

    public init(name: DomainName, type: RecordType, qClass: RecordClass = .internet, unicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.qClass = qClass
        self.unicastResponse = unicastResponse
    }
}
