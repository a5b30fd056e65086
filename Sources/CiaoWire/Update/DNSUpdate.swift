/// A DNS UPDATE (RFC 2136 §2): the zone to change, prerequisites that must hold, and the
/// changes, carried in a message's question, answer and authority sections with OPCODE 5.
public struct DNSUpdate: Hashable, Sendable {
    /// OPCODE UPDATE (RFC 2136 §1.3).
    public static let opcode: UInt8 = 5
    /// CLASS NONE (RFC 2136 §1.3): in a prerequisite "not in use", in an update "delete this record".
    public static let classNone = RecordClass(rawValue: 254)

    public var id: UInt16
    /// The zone's apex, asked for as SOA in the zone section (§2.3).
    public var zone: DomainName
    /// The prerequisite section (§2.4), in the message's answer section.
    public var prerequisites: [ResourceRecord]
    /// The update section (§2.5), in the message's authority section.
    public var updates: [ResourceRecord]
    /// The additional section: an OPT record with an Update Lease (RFC 9664), for example.
    public var additionals: [ResourceRecord]

    /// An update of `zone`; its records are built with the functions below.
    public init(
        id: UInt16, zone: DomainName, prerequisites: [ResourceRecord] = [], updates: [ResourceRecord] = [],
        additionals: [ResourceRecord] = []
    ) {
        self.id = id
        self.zone = zone
        self.prerequisites = prerequisites
        self.updates = updates
        self.additionals = additionals
    }

    /// The message to send (then to sign with ``TSIG/sign(_:with:at:fudge:requestMAC:)``).
    public var message: Message {
        var header = MessageHeader(id: id)
        header.opcode = Self.opcode
        return Message(
            header: header, questions: [Question(name: zone, type: .soa)], answers: prerequisites,
            authorities: updates, additionals: additionals)
    }

    /// Prerequisite "name is not in use" (§2.4.5): no RRset of any type at `name`.
    public static func nameIsNotInUse(_ name: DomainName) -> ResourceRecord {
        ResourceRecord(name: name, rrClass: classNone, ttl: 0, data: .unknown(.any, []))
    }

    /// Update "delete an RR from an RRset" (§2.5.4): exactly `record`'s data, the RRset's other
    /// members left alone.
    public static func delete(_ record: ResourceRecord) -> ResourceRecord {
        var deletion = record
        deletion.rrClass = classNone
        deletion.cacheFlush = false
        deletion.ttl = 0
        return deletion
    }

    /// Update "delete an RRset" (§2.5.2): every record of `type` at `name`.
    public static func deleteRRset(named name: DomainName, type: RecordType) -> ResourceRecord {
        ResourceRecord(name: name, rrClass: .any, ttl: 0, data: .unknown(type, []))
    }
}

extension EDNSOption {
    /// The Update Lease option's code (RFC 9664 §4).
    public static let updateLeaseCode: UInt16 = 2

    /// An Update Lease (RFC 9664 §4): how long, in seconds, the registrant asks to keep its
    /// records, and optionally its KEY records.
    public static func updateLease(_ lease: UInt32, keyLease: UInt32? = nil) -> EDNSOption {
        let words = [lease] + (keyLease.map { [$0] } ?? [])
        return EDNSOption(code: updateLeaseCode, data: words.flatMap { TSIGRecord.bytes($0) })
    }

    /// For an Update Lease option, the lease and key lease it holds; nil for other options or a
    /// malformed one.
    public var updateLease: (lease: UInt32, keyLease: UInt32?)? {
        guard code == Self.updateLeaseCode, data.count == 4 || data.count == 8 else { return nil }
        let words = stride(from: 0, to: data.count, by: 4).map {
            data[$0..<$0 + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        return (words[0], words.count == 2 ? words[1] : nil)
    }
}
