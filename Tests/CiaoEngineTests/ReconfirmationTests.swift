import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Cache flush on failure indication (RFC 6762 §10.4): a record a client found wrong is asked for
/// again, and goes ten seconds later unless its responder answers.
@Suite struct ReconfirmationTests {
    /// Publishers "Web" on host "printer" and "Files" on host "nas", and a host "beta" browsing
    /// (and, with `resolving`, resolving) their type, settled.
    static func lab(seed: UInt64, resolving: Bool = true) -> (
        network: SimulatedNetwork, printer: SimulatedNetwork.HostID, nas: SimulatedNetwork.HostID,
        browsers: [ResolvingBrowser]
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let printer = network.addHost(named: "printer", links: [link])
        let nas = network.addHost(named: "nas", links: [link])
        let browserHost = network.addHost(named: "beta", links: [link])
        network.withStack(printer) { engine, now in _ = engine.register(Services.registration("Web"), at: now) }
        network.withStack(nas) { engine, now in _ = engine.register(Services.registration("Files"), at: now) }
        network.run(for: .seconds(3))
        var browsers = [ResolvingBrowser(host: browserHost, serviceType: Names.serviceType, resolves: resolving)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        return (network, printer, nas, browsers)
    }

    /// The queries `host` multicast since `start` that ask for `name`/`type`, with the data of
    /// the known answers each lists for it.
    static func queries(
        by host: SimulatedNetwork.HostID, for name: DomainName, _ type: RecordType, since start: Instant,
        in network: SimulatedNetwork
    ) throws -> [(time: Instant, known: [RecordData])] {
        try network.transmissions.filter { $0.sender == host && $0.time >= start && $0.datagram.purpose == .query }
            .compactMap { transmission in
                let message = try Message(decoding: transmission.datagram.bytes)
                guard message.questions.contains(where: { $0.name == name && $0.type == type }) else { return nil }
                let known = message.answers.filter { $0.name == name && $0.type == type }.map(\.data)
                return (transmission.time, known)
            }
    }

    /// A publisher gone without goodbyes: its PTR record, reconfirmed, is asked for twice without
    /// being listed while the other publisher's is, and is removed ten seconds on; the other
    /// publisher's service stays.
    @Test(arguments: [UInt64(1), 2, 3])
    func aSilentPublishersServiceGoesTenSecondsAfterAReconfirmation(seed: UInt64) throws {
        var (network, printer, _, browsers) = Self.lab(seed: seed)
        let web = Names.instance("Web")
        #expect(browsers[0].resolved[web] != nil && browsers[0].resolved[Names.instance("Files")] != nil)
        network.crash(printer)
        network.run(until: network.now + .seconds(2), browsers: &browsers)
        let start = network.now
        network.withStack(browsers[0].host) { engine, now in
            engine.reconfirm(name: Names.serviceType, type: .ptr, data: .ptr(web), at: now)
        }
        network.run(until: start + .seconds(15), browsers: &browsers)

        let asked = try Self.queries(by: browsers[0].host, for: Names.serviceType, .ptr, since: start, in: network)
        // At once and two seconds later (a browse's own query may come between).
        #expect(Set(asked.map { $0.time - start }).isSuperset(of: [.zero, .seconds(2)]), "\(asked.map(\.time))")
        for query in asked.prefix(4) {
            #expect(!query.known.contains(.ptr(web)))
            #expect(query.known.contains(.ptr(Names.instance("Files"))))
        }
        let removed = browsers[0].removals.filter {
            if case .removed(_, let record, _) = $0.event { record.name == Names.serviceType } else { false }
        }
        #expect(removed.count == 1)
        let removal = try #require(removed.first)
        guard case .removed(_, let record, _) = removal.event else { return }
        #expect(record.data == .ptr(web))
        #expect(removal.time - start >= .seconds(10) && removal.time - start <= .milliseconds(10_010))
    }

    /// A publisher still there answers the reconfirmation, asked without its record listed:
    /// nothing is removed, then or later, and a second call at once asks nothing more.
    @Test(arguments: [UInt64(4), 5, 6])
    func aLivePublisherAnswersAndKeepsItsService(seed: UInt64) throws {
        var (network, printer, _, browsers) = Self.lab(seed: seed)
        let web = Names.instance("Web")
        let start = network.now
        network.withStack(browsers[0].host) { engine, now in
            engine.reconfirm(name: Names.serviceType, type: .ptr, data: .ptr(web), at: now)
            engine.reconfirm(name: Names.name("printer.local."), type: .a, at: now)
        }
        network.run(until: start + .milliseconds(500), browsers: &browsers)
        network.withStack(browsers[0].host) { engine, now in
            engine.reconfirm(name: Names.serviceType, type: .ptr, data: .ptr(web), at: now)
        }
        network.run(until: start + .seconds(30), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty, "\(browsers[0].removals)")
        let asked = try Self.queries(by: browsers[0].host, for: Names.serviceType, .ptr, since: start, in: network)
        let first = try #require(asked.first)
        #expect(first.time == start && !first.known.contains(.ptr(web)))
        #expect(
            try Self.queries(by: browsers[0].host, for: Names.name("printer.local."), .a, since: start, in: network)
                .first?.time == start)
        // The publisher answered with its PTR record; nothing asked for it again after that.
        let answered = try network.transmissions.filter { $0.sender == printer && $0.time >= start }.contains {
            try Message(decoding: $0.datagram.bytes).answers.contains { $0.data == .ptr(web) }
        }
        #expect(answered)
        #expect(!asked.contains { $0.time > start && !$0.known.contains(.ptr(web)) }, "\(asked.map(\.time))")
    }

    /// A whole RRset can be reconfirmed: the address records of a host gone silent go, those of
    /// the host still there stay; and records no query watches are asked for all the same.
    @Test func anUnwatchedRRsetIsAskedForAndGoes() throws {
        var (network, printer, _, browsers) = Self.lab(seed: 7, resolving: false)
        let printerName = Names.name("printer.local.")
        let nasName = Names.name("nas.local.")
        let beta = browsers[0].host
        func cached(_ name: DomainName) -> [ResourceRecord] {
            network.engine(beta).cachedRecords(on: InterfaceID(1)).filter { $0.name == name && $0.type == .a }
        }
        // The answers' additional records cached the hosts' addresses; no query asks for them.
        #expect(!cached(printerName).isEmpty && !cached(nasName).isEmpty)
        network.crash(printer)
        let start = network.now
        network.withStack(beta) { engine, now in
            engine.reconfirm(name: printerName, type: .a, at: now)
            engine.reconfirm(name: nasName, type: .a, at: now)
        }
        network.run(until: start + .seconds(9), browsers: &browsers)
        let times = try Self.queries(by: beta, for: printerName, .a, since: start, in: network).map { $0.time - start }
        // Over IPv4 and over IPv6, at once and two seconds later.
        #expect(Set(times) == [.zero, .seconds(2)], "\(times)")
        #expect(!cached(printerName).isEmpty)
        network.run(until: start + .seconds(11), browsers: &browsers)
        #expect(cached(printerName).isEmpty)
        #expect(!cached(nasName).isEmpty)
        // The live host's answer to the first query ends its reconfirmation; nothing asks for
        // its address after that.
        network.run(until: start + .seconds(120), browsers: &browsers)
        let nasTimes = try Self.queries(by: beta, for: nasName, .a, since: start, in: network).map { $0.time - start }
        #expect(Set(nasTimes) == [.zero], "\(nasTimes)")
    }
}
