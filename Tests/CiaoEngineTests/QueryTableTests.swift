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
        #expect(Set(table.map(\.key)) == [browse, srv, txt])
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
}
