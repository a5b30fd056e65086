import CiaoWire

/// A record received in answer to a query (by multicast DNS, or unicast DNS for a name outside
/// `local.`), as ``RecordQuerySession`` and
/// ``CiaoResolver/query(name:type:interfaceIndex:timeout:)`` report it.
public struct DNSRecord: Hashable, Sendable, CustomStringConvertible {
    /// The owner name with its trailing dot, labels escaped as in zone files (`My\032Printer._ipp._tcp.local.`).
    public var name: String
    /// The record type, such as ``DNSRecordType/srv``.
    public var type: DNSRecordType
    /// The time to live the responder gave, in seconds; 0 in a goodbye (RFC 6762 §10.1).
    public var ttl: UInt32
    /// The RDATA in uncompressed wire form.
    public var data: [UInt8]
    /// The RDATA as `dig` prints it: `192.0.2.7`, `0 0 80 host.local.`, `"k=v" "x"`; `\# 3 0a0b0c`
    /// for a type this library does not parse (RFC 3597 §5).
    public var value: String
    /// Whether the responder claims the record's name and type as its own (the cache-flush bit,
    /// RFC 6762 §10.2): a shared record such as a PTR comes from many responders.
    public var isUnique: Bool
    /// The interface it came over.
    public var interfaceIndex: UInt32

    /// A record with these fields; the lookups make them from what they receive.
    public init(
        name: String, type: DNSRecordType, ttl: UInt32, data: [UInt8], value: String, isUnique: Bool,
        interfaceIndex: UInt32
    ) {
        self.name = name
        self.type = type
        self.ttl = ttl
        self.data = data
        self.value = value
        self.isUnique = isUnique
        self.interfaceIndex = interfaceIndex
    }

    /// `name TTL IN TYPE value`, a zone file line as `dig` prints it.
    public var description: String { "\(name) \(ttl) IN \(type) \(value)" }
}

extension DNSRecord {
    init(_ record: ResourceRecord, interfaceIndex: UInt32) {
        self.init(
            name: record.name.description, type: DNSRecordType(rawValue: record.type.rawValue), ttl: record.ttl,
            data: record.data.uncompressedBytes, value: record.data.description, isUnique: record.cacheFlush,
            interfaceIndex: interfaceIndex)
    }
}
