import CiaoWire

/// The engine's continuous queries (RFC 6762 §5.2), with the queries found by the name they ask
/// about. Every change goes through this table, which keeps that index in step.
struct QueryTable {
    private var byID: [QueryID: ContinuousQuery] = [:]
    /// Query IDs by the name they ask about, each list ascending.
    private var byName: [DomainName: [QueryID]] = [:]
    private var nextNumber = 1

    /// The queries, in no particular order.
    var values: Dictionary<QueryID, ContinuousQuery>.Values { byID.values }

    /// The query IDs, ascending.
    var ids: [QueryID] { byID.keys.sorted() }

    /// The IDs of the queries asking about `name`, ascending.
    func asking(_ name: DomainName) -> [QueryID] { byName[name] ?? [] }

    /// The query `id`, nil once it is stopped; changed in place, so that a change to one schedule
    /// does not copy the query. A query is added by ``add(_:)`` and removed by ``remove(_:)`` only.
    subscript(id: QueryID) -> ContinuousQuery? {
        get { byID[id] }
        _modify {
            let wasPresent = byID[id] != nil
            yield &byID[id]
            precondition((byID[id] != nil) == wasPresent, "queries are added by add(_:), removed by remove(_:)")
        }
    }

    /// When the first query is due on any interface; nil when none is scheduled.
    var nextDue: Instant? {
        byID.values.reduce(nil) { due, query in query.schedules.reduce(due) { earlier($0, $1.nextDue) } }
    }

    /// The queries due at `now`, by interface, each list ascending. A schedule on an interface
    /// that `isPresent` no longer finds would stay due forever: it is dropped.
    mutating func due(at now: Instant, isPresent: (InterfaceID) -> Bool) -> [InterfaceID: [QueryID]] {
        var due: [InterfaceID: [QueryID]] = [:]
        for index in byID.values.indices {
            for schedule in byID.values[index].schedules where schedule.nextDue <= now {
                if isPresent(schedule.interface) {
                    due[schedule.interface, default: []].append(byID.keys[index])
                } else {
                    byID.values[index].forget(schedule.interface)
                }
            }
        }
        return due.mapValues { $0.sorted() }
    }

    /// Adds a query under the next unused ID.
    mutating func add(_ query: ContinuousQuery) -> QueryID {
        let id = QueryID(rawValue: nextNumber)
        nextNumber += 1
        byID[id] = query
        // IDs only grow: appended, each list stays ascending.
        byName[query.name, default: []].append(id)
        return id
    }

    /// Removes a query; returns it, or nil if it was not here.
    @discardableResult
    mutating func remove(_ id: QueryID) -> ContinuousQuery? {
        guard let query = byID.removeValue(forKey: id) else { return nil }
        byName[query.name]?.removeAll { $0 == id }
        if byName[query.name]?.isEmpty == true { byName[query.name] = nil }
        return query
    }
}
