@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// One continuous query's schedule on one interface, send by send: which families each send asks
/// over as the interface's families change, and what another host's query stands in for
/// (RFC 6762 §5.2, §7.3).
@Suite struct ContinuousQueryTests {
    static let interface = InterfaceID(1)
    static let first = Instant.zero + .milliseconds(100)
    static let dualStack: [IPFamily] = [.v4, .v6]

    static func query() -> ContinuousQuery {
        var query = ContinuousQuery(name: Names.serviceType, type: .ptr, interfaces: nil)
        query.schedule(on: interface, firstAt: first)
        return query
    }

    static func after(_ milliseconds: Int64) -> Instant { first + .milliseconds(milliseconds) }

    /// IPv4 alone, IPv6 150 ms later, then both a full second after IPv6's: each group sees its
    /// first two queries at least a second apart (§5.2).
    @Test func dualStackAsksOverIPv4ThenIPv6ThenBoth() {
        var query = Self.query()
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first) == .ipv4First)
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.after(149)) == nil)
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.after(150)) == .ipv6AfterIPv4)
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.after(1149)) == nil)
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.after(1150)) == .allFamilies)
        #expect(query.schedules.first?.nextDue == Self.after(3150))
    }

    /// An interface with one family is asked over it from the first query on, with its known
    /// answers in full: nothing waits for, or follows, another family.
    @Test(arguments: [[IPFamily.v4], [.v6]])
    func singleFamilyInterfaceIsAskedOverWhatItHas(families: [IPFamily]) {
        var query = Self.query()
        #expect(query.takeDue(on: Self.interface, families: families, at: Self.first) == .allFamilies)
        #expect(query.schedules.first?.nextDue == Self.after(1000))
        #expect(query.takeDue(on: Self.interface, families: families, at: Self.after(1000)) == .allFamilies)
    }

    /// IPv4 gone after the first query: the IPv6 query still follows it.
    @Test func ipv6QueryFollowsEvenWhenIPv4IsGone() {
        var query = Self.query()
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first) == .ipv4First)
        #expect(query.takeDue(on: Self.interface, families: [.v6], at: Self.after(150)) == .ipv6AfterIPv4)
    }

    /// IPv6 gone after the first query: no IPv6 query, and nothing left due in the past.
    @Test func ipv6QueryIsDroppedWhenIPv6IsGone() {
        var query = Self.query()
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first) == .ipv4First)
        #expect(query.takeDue(on: Self.interface, families: [.v4], at: Self.after(150)) == nil)
        #expect(query.schedules.first?.nextDue == Self.after(1000))
    }

    /// Another host asking the same (§7.3): over IPv6 it stands in for our first IPv6 query;
    /// over IPv4 our IPv6 query now follows theirs.
    @Test func anotherHostsQueryStandsInForOurs() {
        var overIPv6 = Self.query()
        _ = overIPv6.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first)
        overIPv6.noteAskedByAnother(on: Self.interface, over: .v6, at: Self.after(100), margin: .milliseconds(200))
        #expect(overIPv6.schedules.first?.firstIPv6Send == nil)

        var overIPv4 = Self.query()
        _ = overIPv4.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first)
        overIPv4.noteAskedByAnother(on: Self.interface, over: .v4, at: Self.after(100), margin: .milliseconds(200))
        #expect(overIPv4.schedules.first?.firstIPv6Send == Self.after(250))
    }

    /// A dual-stack peer's query arrives twice, once per family (and Ciao's first IPv6 query
    /// 150 ms after its IPv4 one): counted once, the interval doubles once, not twice.
    @Test func aPeersQueryOverBothFamiliesCountsOnce() {
        var query = Self.query()
        query.noteAskedByAnother(on: Self.interface, over: .v4, at: Self.after(-50), margin: .milliseconds(200))
        query.noteAskedByAnother(on: Self.interface, over: .v6, at: Self.after(100), margin: .milliseconds(200))
        // Theirs stood in for ours: our next waits their interval and the margin, so theirs comes first.
        #expect(query.schedules.first?.nextSend == Self.after(1150))
        #expect(query.schedules.first?.interval == .seconds(2))
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.after(1150)) == .allFamilies)
        #expect(query.schedules.first?.nextSend == Self.after(3150))
        // Their next query, well after ours: counted, the interval doubles again.
        query.noteAskedByAnother(on: Self.interface, over: .v4, at: Self.after(2000), margin: .milliseconds(200))
        #expect(query.schedules.first?.nextSend == Self.after(6200))
        #expect(query.schedules.first?.interval == .seconds(8))
    }

    /// Their query right after our own: both went out together. Ours moves by the margin, with
    /// the interval unchanged, so that the two stop coinciding; their other copy changes nothing.
    @Test func queriesAskedTogetherAreMovedApart() {
        var query = Self.query()
        #expect(query.takeDue(on: Self.interface, families: Self.dualStack, at: Self.first) == .ipv4First)
        query.noteAskedByAnother(on: Self.interface, over: .v4, at: Self.after(1), margin: .milliseconds(200))
        #expect(query.schedules.first?.nextSend == Self.after(1200))
        #expect(query.schedules.first?.interval == .seconds(2))
        query.noteAskedByAnother(on: Self.interface, over: .v6, at: Self.after(2), margin: .milliseconds(250))
        #expect(query.schedules.first?.nextSend == Self.after(1200))
    }

    /// An NSEC of the query's name denies the types it does not list (RFC 6762 §6.1); a goodbye
    /// denies nothing, nor does an NSEC of another class or name, any NSEC a query for ANY or
    /// NSEC, or one without a type of their window a type of 256 or more.
    @Test func anNSECDeniesTheTypesItDoesNotList() {
        let host = Names.name("alpha.local.")
        func nsec(_ name: DomainName = host, types: [RecordType], ttl: UInt32 = 120) -> ResourceRecord {
            ResourceRecord(
                name: name, cacheFlush: true, ttl: ttl, data: .nsec(NSECData(nextDomainName: name, types: types)))
        }
        func query(_ type: RecordType) -> ContinuousQuery { ContinuousQuery(name: host, type: type, interfaces: nil) }
        #expect(query(.aaaa).isDenied(by: nsec(types: [.a])))
        #expect(!query(.a).isDenied(by: nsec(types: [.a])))
        #expect(!query(.aaaa).isDenied(by: nsec(types: [.a], ttl: 0)))
        #expect(!query(.any).isDenied(by: nsec(types: [.a])))
        #expect(!query(.nsec).isDenied(by: nsec(types: [.a])))
        #expect(!query(.aaaa).isDenied(by: nsec(Names.name("beta.local."), types: [.a])))
        #expect(
            !query(.aaaa).isDenied(
                by: ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 9)))))
        var chaos = nsec(types: [.a])
        chaos.rrClass = RecordClass(rawValue: 3)
        #expect(!query(.aaaa).isDenied(by: chaos))
        #expect(!query(RecordType(257)).isDenied(by: nsec(types: [.a, .aaaa])))
        #expect(query(RecordType(257)).isDenied(by: nsec(types: [.a, RecordType(258)])))
    }
}
