@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// Same-host discovery's bookkeeping alone: which queries are compared again after which change,
/// and what each was told.
@Suite struct OwnRecordReportsTests {
    private let web = Names.instance("Web")
    private let printer = Names.instance("Printer")

    private func table() -> (QueryTable, browse: QueryID, web: QueryID, printer: QueryID) {
        var table = QueryTable()
        let browse = table.add(ContinuousQuery(name: Names.serviceType, type: .ptr, interfaces: nil))
        let web = table.add(ContinuousQuery(name: web, type: .srv, interfaces: nil))
        let printer = table.add(ContinuousQuery(name: printer, type: .srv, interfaces: nil))
        return (table, browse, web, printer)
    }

    /// A started query and the queries of a changed name are compared, once; nothing else is.
    @Test func onlyTheQueriesAChangeConcernsAreComparedOnce() {
        let (queries, browse, webQuery, printerQuery) = table()
        var reports = OwnRecordReports()
        reports.noteStarted(printerQuery)
        reports.noteChanged([web])
        let first = reports.takeStale(from: queries)
        let second = reports.takeStale(from: queries)
        #expect(first == [webQuery, printerQuery] && !first.contains(browse))
        #expect(second.isEmpty)
        reports.noteChanged([printer])
        #expect(reports.takeStale(from: queries) == [printerQuery])
    }

    @Test func aChangeThatReachesEveryQueryComparesThemAll() {
        let (queries, browse, webQuery, printerQuery) = table()
        var reports = OwnRecordReports()
        reports.noteEverythingChanged()
        #expect(reports.takeStale(from: queries) == [browse, webQuery, printerQuery])
        #expect(reports.takeStale(from: queries).isEmpty)
    }

    /// What a query was told is kept until it is told nothing or stops.
    @Test func whatAQueryWasToldIsKeptUntilItStops() {
        let (_, _, webQuery, printerQuery) = table()
        var reports = OwnRecordReports()
        let record = ResourceRecord(name: web, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1)))
        reports.setReported([InterfaceID(1): [record]], to: webQuery)
        reports.setReported([InterfaceID(1): [record]], to: printerQuery)
        reports.setReported([:], to: printerQuery)
        let kept = reports.reported(to: webQuery)
        reports.noteStopped(webQuery)
        #expect(kept == [InterfaceID(1): [record]])
        #expect(reports.reported(to: webQuery).isEmpty && reports.reported(to: printerQuery).isEmpty)
    }
}
