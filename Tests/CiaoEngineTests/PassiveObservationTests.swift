import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Passive Observation Of Failures (RFC 6762 §10.5) that live responders cannot fool: only a
/// query that a responder holding the record must have answered counts against it.
@Suite struct PassiveObservationTests {
    /// A publisher of "Web" (IPv4 only when `ipv4Only`), a dual-stack browser of its type, and a
    /// dual-stack observer without an engine, settled.
    static func lab(seed: UInt64, ipv4Only: Bool, loss: Double = 0) -> (
        network: SimulatedNetwork, link: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        observer: SimulatedNetwork.HostID, browsers: [ResolvingBrowser]
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(.init(loss: loss))
        if ipv4Only { network.families = [.v4] }
        let publisher = network.addHost(named: "printer", links: [link])
        network.families = [.v4, .v6]
        let browserHost = network.addHost(named: "beta", links: [link])
        let observer = network.addHost(named: nil, links: [link])
        network.withStack(publisher) { engine, now in _ = engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(3))
        var browsers = [ResolvingBrowser(host: browserHost, serviceType: Names.serviceType)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        return (network, link, publisher, observer, browsers)
    }

    static let browse = Messages.query([Messages.question(Names.serviceType, .ptr)])

    /// An IPv4-only responder (a printer, JmDNS) never hears IPv6 queries: a third host asking over
    /// IPv6 without the answer, every second for half a minute, removes nothing.
    @Test(arguments: [UInt64(1), 2, 3])
    func ipv6QueriesDoNotCountAgainstAnIPv4OnlyResponder(seed: UInt64) {
        var (network, link, _, observer, browsers) = Self.lab(seed: seed, ipv4Only: true)
        #expect(browsers[0].resolved[Names.instance("Web")] != nil)
        let v6 = network.address(of: observer, on: link, family: .v6)
        for _ in 0..<30 {
            network.inject(Self.browse, from: observer, on: link, sourceAddress: v6)
            network.run(until: network.now + .seconds(1), browsers: &browsers)
        }
        network.run(until: network.now + .seconds(15), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty, "\(browsers[0].removals)")
    }

    /// Goodbyes and cache-flush records for an IPv4-only responder's records, forged over IPv6 by
    /// a third host (which the responder cannot hear to refute), remove and replace nothing; the
    /// responder's own goodbye, over IPv4, still removes its service.
    @Test func recordsOfAnIPv4OnlyResponderIgnoreGoodbyesAndFlushesOverIPv6() throws {
        var (network, link, publisher, observer, browsers) = Self.lab(seed: 9, ipv4Only: true)
        let instance = Names.instance("Web")
        #expect(browsers[0].resolved[instance] != nil)
        let v6 = network.address(of: observer, on: link, family: .v6)
        let srv = try #require(
            network.engine(browsers[0].host).cachedRecords(on: InterfaceID(1)).first {
                $0.name == instance && $0.type == .srv
            })
        var goodbyes = [ResourceRecord(name: Names.serviceType, ttl: 0, data: .ptr(instance)), srv]
        goodbyes[1].ttl = 0
        var moved = srv
        moved.data = .srv(SRVData(priority: 0, weight: 0, port: 9, target: Names.name("forger.local.")))
        network.inject(Messages.response(goodbyes), from: observer, on: link, sourceAddress: v6)
        network.inject(Messages.response([moved]), from: observer, on: link, sourceAddress: v6)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty, "\(browsers[0].removals)")
        #expect(
            network.engine(browsers[0].host).cachedRecords(on: InterfaceID(1)).contains {
                $0.name == instance && $0.data == srv.data
            })
        // The responder leaves the link: its goodbyes, over IPv4, remove the service.
        network.setLink(link, of: publisher, up: false)
        network.run(until: network.now + .seconds(3), browsers: &browsers)
        #expect(
            browsers[0].removals.contains {
                if case .removed(_, let record, _) = $0.event { record.data == .ptr(instance) } else { false }
            })
    }

    /// Three ordinary queries 0.2 s apart, and a responder that, like avahi-daemon, answers the
    /// first and by the once-a-second rule (§6) not the others, nor later: nothing is removed.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func queriesWithinTheSecondOfAnAnswerDoNotCount(seed: UInt64) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let responder = network.addHost(named: nil, links: [link])
        let browserHost = network.addHost(named: "beta", links: [link])
        let asker = network.addHost(named: nil, links: [link])
        network.run(for: .seconds(3))
        var browsers = [ResolvingBrowser(host: browserHost, serviceType: Names.serviceType, resolves: false)]
        browsers[0].start(&network)
        let records = Services.records(
            instance: Names.instance("Web"), host: Names.name("printer.local."),
            address: IPv4Address(198, 18, 0, 77))
        network.inject(Messages.response(records), from: responder, on: link)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        let question = Messages.question(Names.serviceType, .ptr)
        network.inject(Messages.query([question]), from: asker, on: link)
        network.run(until: network.now + .milliseconds(50), browsers: &browsers)
        network.inject(Messages.response([records[0]]), from: responder, on: link)
        network.run(until: network.now + .milliseconds(150), browsers: &browsers)
        for _ in 0..<2 {
            network.inject(Messages.query([question]), from: asker, on: link)
            network.run(until: network.now + .milliseconds(200), browsers: &browsers)
        }
        network.run(until: network.now + .seconds(20), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty, "\(browsers[0].removals)")
    }

    /// A known answer listed with less than half its TTL left must be answered (§7.1): such
    /// queries, unanswered, count; listed with more, they do not.
    @Test func aStaleKnownAnswerStillCounts() throws {
        var (network, link, publisher, observer, browsers) = Self.lab(seed: 6, ipv4Only: false)
        let ptr = Services.ptr(to: Names.instance("Web"))
        // The publisher goes silent: only the observer's queries arrive from now on.
        network.crash(publisher)
        network.run(until: network.now + .seconds(2), browsers: &browsers)
        var fresh = ptr
        fresh.ttl = 4000
        for _ in 0..<3 {
            network.inject(
                Messages.query([Messages.question(Names.serviceType, .ptr)], knownAnswers: [fresh]), from: observer,
                on: link)
            network.run(until: network.now + .seconds(2), browsers: &browsers)
        }
        network.run(until: network.now + .seconds(12), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty)
        var stale = ptr
        stale.ttl = 1000
        let start = network.now
        for _ in 0..<2 {
            network.inject(
                Messages.query([Messages.question(Names.serviceType, .ptr)], knownAnswers: [stale]), from: observer,
                on: link)
            network.run(until: network.now + .seconds(2), browsers: &browsers)
        }
        network.run(until: network.now + .seconds(12), browsers: &browsers)
        let removal = try #require(browsers[0].removals.first)
        #expect(removal.time - start <= .milliseconds(10_010))
    }

    /// Ten virtual minutes at 5 % loss with another host asking every 5 s, dual-stack and
    /// IPv4-only responders: the live service is never reported removed.
    @Test(arguments: (UInt64(1)...8).map { ($0, $0 % 2 == 0) })
    func aLossyLinkWithARegularQuerierRemovesNothing(seed: UInt64, ipv4Only: Bool) {
        var (network, link, _, observer, browsers) = Self.lab(seed: seed, ipv4Only: ipv4Only, loss: 0.05)
        network.recordsTransmissions = false
        let v6 = network.address(of: observer, on: link, family: .v6)
        for round in 0..<120 {
            network.inject(Self.browse, from: observer, on: link, sourceAddress: round % 2 == 0 ? nil : v6)
            network.run(until: network.now + .seconds(5), browsers: &browsers)
        }
        #expect(
            browsers[0].removals.isEmpty, "\(browsers[0].removals.count) removals: \(browsers[0].removals.prefix(3))")
    }
}
