import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire
import Testing

/// The SOA walk to a registration's zone and the server that takes its updates.
@Suite struct UpdateServerLocatorTests {
    static let zone = Names.name("lab.example.")
    static let typeName = Names.name("_http._tcp.lab.example.")
    static let soa = SOAData(
        primaryServer: Names.name("ns.lab.example."), responsibleMailbox: Names.name("admin.lab.example."), serial: 1,
        refresh: 3600, retry: 600, expire: 86400, minimum: 10)

    static func answer(_ name: DomainName, _ type: RecordType, _ records: [RecordData]) -> Result<
        DNSAnswer, UnicastDNSError
    > {
        .success(
            DNSAnswer(
                name: name, type: type, outcome: records.isEmpty ? .noData : .records,
                records: records.map { ResourceRecord(name: name, ttl: 300, data: $0) }, ttl: 300))
    }

    static let soaRecord = RecordData.unknown(.soa, soa.rdata)

    @Test func theWalkGoesUpToTheSOAThenToThePrimarysAddress() {
        var locator = UpdateServerLocator(name: Self.typeName)
        #expect(locator.firstStep == .query(Self.typeName, .soa))
        #expect(locator.answered(Self.answer(Self.typeName, .soa, [])) == .query(Names.name("_tcp.lab.example."), .soa))
        #expect(
            locator.answered(Self.answer(Names.name("_tcp.lab.example."), .soa, [])) == .query(Self.zone, .soa))
        #expect(
            locator.answered(Self.answer(Self.zone, .soa, [Self.soaRecord]))
                == .query(Names.name("_dns-update._udp.lab.example."), .srv))
        #expect(
            locator.answered(Self.answer(Names.name("_dns-update._udp.lab.example."), .srv, []))
                == .query(Names.name("ns.lab.example."), .a))
        #expect(
            locator.answered(Self.answer(Names.name("ns.lab.example."), .a, [.a(IPv4Address(198, 18, 0, 1))]))
                == .found(zone: Self.zone, server: DNSServer(parsing: "198.18.0.1")!))
    }

    @Test func anUpdateServiceSRVWinsOverThePrimaryAndAAAAFollowsNoA() {
        var locator = UpdateServerLocator(name: Self.zone)
        _ = locator.firstStep
        _ = locator.answered(Self.answer(Self.zone, .soa, [Self.soaRecord]))
        let service = Names.name("_dns-update._udp.lab.example.")
        #expect(
            locator.answered(
                Self.answer(service, .srv, [.srv(SRVData(port: 5353, target: Names.name("updates.lab.example.")))]))
                == .query(Names.name("updates.lab.example."), .a))
        #expect(
            locator.answered(Self.answer(Names.name("updates.lab.example."), .a, []))
                == .query(Names.name("updates.lab.example."), .aaaa))
        #expect(
            locator.answered(
                Self.answer(Names.name("updates.lab.example."), .aaaa, [.aaaa(IPv6Address("fd00:198:18::1")!)]))
                == .found(zone: Self.zone, server: DNSServer(parsing: "fd00:198:18::1#5353")!))
    }

    @Test func aGivenServerTakesTheUpdatesOnceTheZoneIsKnown() {
        let server = DNSServer(parsing: "198.18.0.9#53")!
        var locator = UpdateServerLocator(name: Self.typeName, server: server)
        _ = locator.firstStep
        _ = locator.answered(Self.answer(Self.typeName, .soa, []))
        _ = locator.answered(Self.answer(Names.name("_tcp.lab.example."), .soa, []))
        #expect(
            locator.answered(Self.answer(Self.zone, .soa, [Self.soaRecord])) == .found(zone: Self.zone, server: server))
    }

    @Test func noSOAUpToTheTopLevelAndFailedQueriesAreTypedErrors() {
        var walk = UpdateServerLocator(name: Names.name("a.example."))
        _ = walk.firstStep
        #expect(walk.answered(Self.answer(Names.name("a.example."), .soa, [])) == .query(Names.name("example."), .soa))
        guard case .failed(.zoneNotFound) = walk.answered(Self.answer(Names.name("example."), .soa, [])) else {
            Issue.record("the walk went on to the root")
            return
        }
        var failing = UpdateServerLocator(name: Self.typeName)
        _ = failing.firstStep
        let failure = failing.answered(.failure(.timedOut(name: Self.typeName, type: .soa)))
        guard case .failed(.zoneNotFound(let name, let reason)) = failure else {
            Issue.record("\(failure)")
            return
        }
        #expect(name == Self.typeName && reason.contains("no DNS server answered"))
    }

    @Test func anSOAOfAnotherNameInTheAnswerDoesNotEndTheWalk() {
        var locator = UpdateServerLocator(name: Self.typeName)
        _ = locator.firstStep
        let elsewhere = Result<DNSAnswer, UnicastDNSError>.success(
            DNSAnswer(
                name: Self.typeName, type: .soa, outcome: .records,
                records: [ResourceRecord(name: Names.name("evil.example."), ttl: 300, data: Self.soaRecord)], ttl: 300))
        #expect(locator.answered(elsewhere) == .query(Names.name("_tcp.lab.example."), .soa))
    }
}
