import CiaoUnicastDNS
import CiaoWire

/// What a lookup in unicast DNS has reported of each type asked for, and the ``RecordEvent``
/// values each new answer makes of it: records added and removed, and
/// ``RecordEvent/noSuchRecord(_:_:)`` with the zone's SOA when the server says the name has none
/// of the type or does not exist (NODATA or NXDOMAIN, RFC 2308 §2). Unicast answers carry no
/// interface: their records are reported on interface 0.
struct UnicastRecordSet: Sendable {
    /// The records last reported of each type.
    private var reported: [RecordType: [ResourceRecord]] = [:]
    /// The types last reported denied.
    private var denied: Set<RecordType> = []

    /// The events that bring what was reported of `answer`'s type in line with it; none when
    /// only TTLs changed, or when a type already denied is denied again.
    mutating func take(_ answer: DNSAnswer) -> [RecordEvent] {
        let old = reported[answer.type] ?? []
        let new = answer.records
        reported[answer.type] = new
        var events = old.filter { record in !new.contains { $0.isSameRecord(as: record) } }
            .map { RecordEvent.removed(DNSRecord(unicast: $0)) }
        events += new.filter { record in !old.contains { $0.isSameRecord(as: record) } }
            .map { RecordEvent.added(DNSRecord(unicast: $0)) }
        switch answer.outcome {
        case .records:
            denied.remove(answer.type)
        case .noData, .nameError:
            // An SOA-less negative answer says nothing a lookup can show.
            if let soa = answer.soa, denied.insert(answer.type).inserted {
                events.append(.noSuchRecord(DNSRecordType(rawValue: answer.type.rawValue), DNSRecord(unicast: soa)))
            }
        }
        return events
    }
}

extension ResourceRecord {
    /// The same owner name and data, whatever the TTLs.
    fileprivate func isSameRecord(as other: ResourceRecord) -> Bool {
        name == other.name && type == other.type && data == other.data
    }
}

extension DNSRecord {
    /// `record` from a unicast DNS server, on interface 0; unique, as an answer from the
    /// zone's server is the whole RRset.
    init(unicast record: ResourceRecord) {
        self.init(record, interfaceIndex: 0)
        isUnique = true
    }
}
