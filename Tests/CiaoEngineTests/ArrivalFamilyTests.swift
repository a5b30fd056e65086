import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Which address families a record came over, as `avahi-browse` prints a line per protocol: a
/// dual-stack responder's second copy is news once, an IPv4-only responder's records stay IPv4.
@Suite struct ArrivalFamilyTests {
    static let instance = Names.name("Printer._ciao._tcp.local.")
    static let host = Names.name("printer.local.")

    /// A browser, with known answers per family or not, asking for the instance's type; 0.5 s
    /// on, the instance's PTR record comes from `observer` over IPv4 alone.
    static func browserHearingOverIPv4Alone(seed: UInt64, perFamily: Bool) -> (
        network: SimulatedNetwork, link: SimulatedNetwork.LinkID, observer: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, records: [ResourceRecord]
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let browser = network.addHost(named: "beta", links: [link], knownAnswersPerFamily: perFamily)
        network.run(for: .seconds(3))
        _ = network.withStack(browser) { engine, now in
            engine.startQuery(name: Self.instance.parent, type: .ptr, at: now)
        }
        network.run(for: .milliseconds(500))
        let records = Services.records(
            instance: Self.instance, host: Self.host, address: IPv4Address(198, 18, 0, 9))
        network.inject(Messages.response([records[0]]), from: observer, on: link, family: .v4)
        return (network, link, observer, browser, records)
    }

    @Test func aRecordFirstComingOverIPv6IsReportedOnceWithBothFamilies() throws {
        var (network, link, observer, browser) = SimulatedNetwork.observerAndBrowser(seed: 81, settle: .seconds(3))
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Self.instance.parent, type: .ptr, at: now)
        }
        let records = Services.records(
            instance: Self.instance, host: Self.host, address: IPv4Address(198, 18, 0, 9))
        let response = Messages.response([records[0]])
        network.inject(response, from: observer, on: link, family: .v4)
        network.run(for: .milliseconds(100))
        let ptr = records[0]
        #expect(network.engine(browser).arrival(of: ptr, on: InterfaceID(1))?.families == [.v4])
        for family in [IPFamily.v6, .v6, .v4] {
            network.inject(response, from: observer, on: link, family: family)
            network.run(for: .milliseconds(100))
        }
        let heard = network.events(of: browser).compactMap { event -> IPFamily? in
            guard case .heardOver(query, ptr, InterfaceID(1), let family) = event else { return nil }
            return family
        }
        #expect(heard == [.v6])
        #expect(network.engine(browser).arrival(of: ptr, on: InterfaceID(1))?.families == [.v4, .v6])
    }

    @Test func anIPv4OnlyRespondersRecordIsHeardOverIPv4Alone() {
        var (network, link, observer, browser) = SimulatedNetwork.observerAndBrowser(seed: 82, settle: .seconds(3))
        _ = network.withStack(browser) { engine, now in
            engine.startQuery(name: Self.instance.parent, type: .ptr, at: now)
        }
        let records = Services.records(
            instance: Self.instance, host: Self.host, address: IPv4Address(198, 18, 0, 9))
        for _ in 0..<3 {
            network.inject(Messages.response([records[0]]), from: observer, on: link, family: .v4)
            network.run(for: .seconds(1))
        }
        #expect(!network.events(of: browser).contains { if case .heardOver = $0 { true } else { false } })
        #expect(network.engine(browser).arrival(of: records[0], on: InterfaceID(1))?.families == [.v4])
    }

    /// A dual-stack responder answers the IPv4 query over IPv4: the browser's IPv6 query lists
    /// that answer as known, so that it is not sent again, unless each family keeps its own
    /// known answers (`ciao browse -p`, as avahi-daemon does); then it comes over IPv6 too.
    @Test(arguments: [false, true])
    func knownAnswersPerFamilyLetADualStackResponderAnswerOverBoth(perFamily: Bool) {
        var network = SimulatedNetwork(seed: 84)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        _ = network.registerServices(1, on: publisher)
        network.run(for: .seconds(5))
        let browser = network.addHost(named: "beta", links: [link], knownAnswersPerFamily: perFamily)
        network.run(for: .seconds(3))
        let start = network.now
        _ = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(2))
        let ptr = ResourceRecord(name: Names.serviceType, ttl: 4500, data: .ptr(Names.instance("Service 0")))
        let ipv6Query = network.sentMessages(.queries, by: browser, family: .v6, since: start).first
        #expect(ipv6Query?.message.answers.contains { $0.data == ptr.data } == !perFamily)
        let families = network.engine(browser).arrival(of: ptr, on: InterfaceID(1))?.families
        #expect(families == (perFamily ? [.v4, .v6] : [.v4]))
    }

    /// With known answers per family, no IPv6 query lists a record that came over IPv4 alone: not
    /// the first, and not the later ones, which ask the same questions over both families, while
    /// the IPv4 queries list it.
    @Test func everyIPv6QueryListsOnlyWhatCameOverIPv6() {
        var (network, _, _, browser, records) = Self.browserHearingOverIPv4Alone(seed: 86, perFamily: true)
        let start = network.now
        network.run(for: .seconds(10))
        func listing(_ family: IPFamily) -> [Bool] {
            network.sentMessages(.queries, by: browser, family: family, since: start).filter {
                $0.message.questions.contains { $0.name == Self.instance.parent }
            }.map { $0.message.answers.contains { $0.data == records[0].data } }
        }
        #expect(listing(.v4).count >= 2 && listing(.v4).allSatisfy { $0 })
        #expect(listing(.v6).count >= 2 && listing(.v6).allSatisfy { !$0 })
    }

    /// A unique answer that came over IPv4 alone (avahi sends A records over IPv4 only, and
    /// answers over IPv6 only what is asked for there) ends the query's asking, unless each family
    /// keeps its own known answers: then the query asks on over IPv6, and once it has come over
    /// IPv6 too no more.
    @Test(arguments: [false, true])
    func aUniqueAnswerHeardOverIPv4AloneIsAskedForOverIPv6PerFamily(perFamily: Bool) {
        var network = SimulatedNetwork(seed: 87)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let browser = network.addHost(named: "beta", links: [link], knownAnswersPerFamily: perFamily)
        network.run(for: .seconds(3))
        let address = Services.records(
            instance: Self.instance, host: Self.host, address: IPv4Address(198, 18, 0, 9))[3]
        _ = network.withStack(browser) { engine, now in
            engine.startQuery(name: Self.host, type: .a, at: now)
        }
        network.run(for: .milliseconds(10))
        network.inject(Messages.response([address]), from: observer, on: link, family: .v4)
        let start = network.now
        network.run(for: .seconds(5))
        func asked(_ family: IPFamily, since: Instant) -> Int {
            network.sentMessages(.queries, by: browser, family: family, since: since).filter {
                $0.message.questions.contains { $0.name == Self.host && $0.type == .a }
            }.count
        }
        #expect((asked(.v6, since: start) > 0) == perFamily)
        network.inject(Messages.response([address]), from: observer, on: link, family: .v6)
        network.run(for: .milliseconds(100))
        let heard = network.now
        network.run(for: .seconds(30))
        #expect(asked(.v6, since: heard) == 0)
    }

    /// Another host's IPv6 query listing a record that came to us over IPv4 alone stands in for
    /// ours (§7.3) only when our IPv6 query would list it too: with known answers per family, ours
    /// still asks for it over IPv6.
    @Test(arguments: [false, true])
    func anotherHostsQueryListingWhatCameOverIPv4AloneSuppressesOursOnlyAcrossFamilies(perFamily: Bool) {
        var (network, link, observer, browser, records) = Self.browserHearingOverIPv4Alone(
            seed: 85, perFamily: perFamily)
        let start = network.now
        let theirs = Messages.query([Messages.question(Self.instance.parent, .ptr)], knownAnswers: [records[0]])
        for _ in 0..<40 {
            network.run(for: .milliseconds(200))
            network.inject(theirs, from: observer, on: link, family: .v6)
        }
        let ours = network.sentMessages(.queries, by: browser, family: .v6, since: start).filter {
            $0.message.questions.contains { $0.name == Self.instance.parent }
        }
        #expect(ours.isEmpty == !perFamily)
    }

    @Test func ourOwnRecordsAreHeardOverEveryFamilyOfTheInterface() {
        var network = SimulatedNetwork(seed: 83)
        let link = network.addLink()
        let host = network.addHost(named: "alpha", links: [link])
        _ = network.registerServices(1, on: host)
        network.run(for: .seconds(3))
        let own = ResourceRecord(name: Names.serviceType, ttl: 4500, data: .ptr(Names.instance("Service 0")))
        #expect(network.engine(host).arrival(of: own, on: InterfaceID(1))?.families == [.v4, .v6])
    }
}
