import CiaoWire

/// What same-host discovery has told each query of our own records, and which queries to compare
/// again at the next report: those started since, those asking about a name whose own records
/// changed, or all of them after a change that reaches every query (an interface, the host name).
/// Only the queries a change concerns are compared, so that a thousand services and queries do not
/// make each change cost a thousand comparisons.
struct OwnRecordReports {
    private var reported: [QueryID: [InterfaceID: [ResourceRecord]]] = [:]
    private var everythingChanged = false
    private var changedNames: Set<DomainName> = []
    private var startedQueries: Set<QueryID> = []

    /// Own records may have changed for every query.
    mutating func noteEverythingChanged() {
        everythingChanged = true
    }

    /// Own records published under `names` may have changed: a service registered, renamed,
    /// withdrawn or given a new TXT.
    mutating func noteChanged(_ names: some Sequence<DomainName>) {
        changedNames.formUnion(names)
    }

    /// A query started: it is compared at the next report.
    mutating func noteStarted(_ id: QueryID) {
        startedQueries.insert(id)
    }

    /// A query stopped: what it was told is forgotten.
    mutating func noteStopped(_ id: QueryID) {
        reported[id] = nil
    }

    /// The queries to compare again, ascending (one started and stopped since may be among
    /// them: it is no longer in `queries`); the notes start afresh.
    mutating func takeStale(from queries: QueryTable) -> [QueryID] {
        var stale = startedQueries
        if everythingChanged {
            stale.formUnion(queries.ids)
        } else {
            for name in changedNames { stale.formUnion(queries.asking(name)) }
        }
        everythingChanged = false
        changedNames = []
        startedQueries = []
        return stale.sorted()
    }

    /// What query `id` was last told, by interface.
    func reported(to id: QueryID) -> [InterfaceID: [ResourceRecord]] {
        reported[id, default: [:]]
    }

    /// Notes what query `id` has now been told, by interface.
    mutating func setReported(_ records: [InterfaceID: [ResourceRecord]], to id: QueryID) {
        reported[id] = records.isEmpty ? nil : records
    }
}
