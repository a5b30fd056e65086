import CiaoWire

/// Same-host discovery: our own queries see our own records, as if they had come from the network.
///
/// Our multicast is looped back by the kernel (and by the simulated network) but the engine drops
/// it (our own multicast is no news), so the engine reports its own records itself: a
/// service is visible from the moment it is registered (``EngineEvent/registered(_:name:)``) until
/// it is deregistered or loses its name, and the host's address records while it has addresses.
extension MDNSEngine {
    /// Reports the difference between the own records answering a query now and those reported
    /// before, for the queries whose answers may have changed: `added`, `removed`, or `updated`
    /// when a unique record's data changed (a TXT update).
    mutating func reportOwnRecords() {
        for id in ownRecordReports.takeStale(from: queries) {
            var current: [InterfaceID: [ResourceRecord]] = [:]
            if let query = queries[id] {
                for state in interfaces.states where query.appliesTo(state.interface.id) {
                    let matching = visibleOwnRecords(answering: query, on: state.interface)
                    if !matching.isEmpty { current[state.interface.id] = matching }
                }
            }
            let before = ownRecordReports.reported(to: id)
            for interface in Set(before.keys).union(current.keys).sorted() {
                reportChanges(
                    from: before[interface, default: []], to: current[interface, default: []], query: id, on: interface)
            }
            ownRecordReports.setReported(current, to: id)
        }
    }

    private mutating func reportChanges(
        from before: [ResourceRecord], to now: [ResourceRecord], query id: QueryID, on interface: InterfaceID
    ) {
        let beforeSet = Set(before), nowSet = Set(now)
        var gone = before.filter { !nowSet.contains($0) }
        let came = now.filter { !beforeSet.contains($0) }
        for record in came {
            // As the cache reports a cache-flush replacement (§10.2): one record of a unique
            // RRset replaced by one other, such as a TXT update or a single address changing.
            let sameSet = { (other: ResourceRecord) in other.name == record.name && other.type == record.type }
            if record.cacheFlush, gone.filter(sameSet).count == 1, came.filter(sameSet).count == 1,
                let replaced = gone.firstIndex(where: sameSet)
            {
                gone.remove(at: replaced)
                events.append(.updated(id, record, interface))
            } else {
                events.append(.added(id, record, interface))
            }
        }
        for record in gone { events.append(.removed(id, record, interface)) }
    }

    /// The records we publish on `interface` that answer `query`, from the host and the services
    /// that reported themselves registered, each once; NSEC is left out, since it only says what
    /// does not exist.
    private func visibleOwnRecords(answering query: ContinuousQuery, on interface: NetworkInterface) -> [ResourceRecord]
    {
        var result = UniqueRecords()
        for owner in owners(publishing: query.name) {
            guard let registration = registrations[owner] else { continue }
            if owner != .host {
                guard registration.hasReportedRegistered, registration.appliesTo(interface.id) else { continue }
            }
            for record in registration.records(hostName: registrations.host.name, interface: interface)
            where record.type != .nsec && query.matches(record) {
                result.insert(record)
            }
        }
        return result.records
    }
}
