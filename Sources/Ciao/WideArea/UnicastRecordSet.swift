import CiaoUnicastDNS
import CiaoWire

/// What a lookup in unicast DNS has reported of each type asked for, and the ``RecordEvent``
/// values each new answer makes of it: records added and removed, and
/// ``RecordEvent/noSuchRecord(_:_:)`` with the zone's SOA when the server says the name has none
/// of the type or does not exist (NODATA or NXDOMAIN, RFC 2308 §2). While the servers cannot be
/// asked, records are removed as their TTLs run out, as a cache would drop them; a denial stays
/// until an answer lifts it. Unicast answers carry no interface: their records are reported on
/// interface 0.
struct UnicastRecordSet: Sendable {
    /// The records last reported of each type, and when the answer that brought them came.
    private var reported: [RecordType: (records: [ResourceRecord], received: ContinuousClock.Instant)] = [:]
    /// The types last reported denied.
    private var denied: Set<RecordType> = []

    /// The events that bring what was reported of `answer`'s type, received at `now`, in line
    /// with it; none when only TTLs changed, or when a type already denied is denied again.
    mutating func take(_ answer: DNSAnswer, at now: ContinuousClock.Instant) -> [RecordEvent] {
        let old = reported[answer.type]?.records ?? []
        let new = answer.records
        reported[answer.type] = (new, now)
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

    /// The removals of the records of `type` whose TTLs have run out by `now`, for a round in
    /// which the question could not be asked.
    mutating func expire(_ type: RecordType, at now: ContinuousClock.Instant) -> [RecordEvent] {
        guard let (records, received) = reported[type] else { return [] }
        let age = now - received
        let expired = records.filter { .seconds($0.ttl) <= age }
        reported[type]?.records.removeAll { .seconds($0.ttl) <= age }
        return expired.map { .removed(DNSRecord(unicast: $0)) }
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
