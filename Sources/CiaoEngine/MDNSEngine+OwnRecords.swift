import CiaoWire

/// Same-host discovery: our own queries see our own records, as if they had come from the network.
///
/// Our multicast is looped back by the kernel but the runtime drops it (our own packets are not
/// news), and the simulation never delivers it, so the engine reports its own records itself: a
/// service is visible from the moment it is registered (``EngineEvent/registered(_:name:)``) until
/// it is deregistered or loses its name, and the host's address records while it has addresses.
extension MDNSEngine {
    /// Reports the difference between the own records answering each query now and those reported
    /// before: `added`, `removed`, or `updated` when a unique record's data changed (a TXT update).
    mutating func reportOwnRecords() {
        guard ownRecordsChanged else { return }
        ownRecordsChanged = false
        var current: [QueryID: [InterfaceID: [ResourceRecord]]] = [:]
        for state in interfaces.values {
            let published = ownRecordsByName(on: state.interface)
            for (id, query) in queries where query.appliesTo(state.interface.id) {
                let matching = published[query.name, default: []].filter(query.matches)
                if !matching.isEmpty { current[id, default: [:]][state.interface.id] = matching }
            }
        }
        for id in Set(current.keys).union(reportedOwnRecords.keys).sorted() {
            let before = reportedOwnRecords[id, default: [:]], now = current[id, default: [:]]
            for interface in Set(before.keys).union(now.keys).sorted() {
                reportChanges(from: before[interface, default: []], to: now[interface, default: []], query: id, on: interface)
            }
        }
        reportedOwnRecords = current
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

    /// The records we publish on `interface`, by owner name; NSEC is left out, since it only says
    /// what does not exist.
    private func ownRecordsByName(on interface: NetworkInterface) -> [DomainName: [ResourceRecord]] {
        let visible = [host] + registrations.filter { reportedRegistrations.contains($0.key) && $0.value.appliesTo(interface.id) }
            .sorted { $0.key < $1.key }.map(\.value)
        var byName: [DomainName: [ResourceRecord]] = [:]
        var seen: Set<ResourceRecord> = []
        for registration in visible {
            for record in registration.records(hostName: host.name, interface: interface)
            where record.type != .nsec && seen.insert(record).inserted {
                byName[record.name, default: []].append(record)
            }
        }
        return byName
    }
}
