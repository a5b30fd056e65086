import CiaoWire

/// The engine's continuous queries (RFC 6762 §5.2), with the queries found by the name they ask
/// about. Every change goes through this table, which keeps that index in step.
struct QueryTable: Sequence {
    private var byID: [QueryID: ContinuousQuery] = [:]
    /// Query IDs by the name they ask about, each list ascending.
    private var byName: [DomainName: [QueryID]] = [:]
    private var nextNumber = 1

    /// The queries, in no particular order.
    var values: Dictionary<QueryID, ContinuousQuery>.Values { byID.values }

    /// Each query with its ID, in no particular order.
    func makeIterator() -> Dictionary<QueryID, ContinuousQuery>.Iterator { byID.makeIterator() }

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
