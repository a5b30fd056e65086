@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The query table alone: queries found by the name they ask about, in the order they started,
/// whatever was added, changed or removed (RFC 6762 §5.2).
@Suite struct QueryTableTests {
    private let web = Names.instance("Web")

    private func query(_ name: DomainName, _ type: RecordType) -> ContinuousQuery {
        ContinuousQuery(name: name, type: type, interfaces: nil)
    }

    @Test func queriesAreFoundByTheirNameInStartOrder() {
        var table = QueryTable()
        let browse = table.add(query(Names.serviceType, .ptr))
        let srv = table.add(query(web, .srv))
        let txt = table.add(query(web, .txt))
        #expect(table.asking(web) == [srv, txt])
        #expect(table.asking(Names.serviceType) == [browse])
        #expect(table.asking(Names.servicesName).isEmpty)
        #expect(table.ids == [browse, srv, txt])
        #expect(table.values.count == 3)
    }

    /// A stopped query is found under its name no more, and the name is gone with its last query;
    /// a change in place keeps the query where it is.
    @Test func removalsLeaveTheIndexAndChangesKeepIt() {
        var table = QueryTable()
        let srv = table.add(query(web, .srv))
        let txt = table.add(query(web, .txt))
        table[txt]?.schedule(on: InterfaceID(1), firstAt: .zero)
        #expect(table[txt]?.schedules.count == 1)
        #expect(table.remove(srv)?.type == .srv)
        #expect(table.remove(srv) == nil)
        #expect(table.asking(web) == [txt])
        table.remove(txt)
        #expect(table.asking(web).isEmpty && table.ids.isEmpty)
        // IDs are not reused: a later query is told from the stopped ones.
        let again = table.add(query(web, .srv))
        #expect(again > txt && table.asking(web) == [again])
    }

    /// What is due where, in start order, with the next deadline over every query and interface;
    /// a schedule on an interface that is gone is dropped instead of staying due.
    @Test func dueQueriesComeByInterfaceInStartOrder() {
        var table = QueryTable()
        let t = Instant.zero + .seconds(10)
        let (one, two) = (InterfaceID(1), InterfaceID(2))
        #expect(table.nextDue == nil)
        let txt = table.add(query(web, .txt))
        let srv = table.add(query(web, .srv))
        let browse = table.add(query(Names.serviceType, .ptr))
        table[srv]?.schedule(on: one, firstAt: t)
        table[txt]?.schedule(on: one, firstAt: t)
        table[txt]?.schedule(on: two, firstAt: t)
        table[browse]?.schedule(on: one, firstAt: t + .seconds(1))
        #expect(table.nextDue == t)
        #expect(table.due(at: t - .seconds(1), isPresent: { _ in true }).isEmpty)
        #expect(table.due(at: t, isPresent: { _ in true }) == [one: [txt, srv], two: [txt]])
        #expect(table.due(at: t, isPresent: { $0 == one }) == [one: [txt, srv]])
        #expect(table.due(at: t, isPresent: { _ in true }) == [one: [txt, srv]])
        #expect(table.due(at: t + .seconds(1), isPresent: { _ in true }) == [one: [txt, srv, browse]])
    }
}
