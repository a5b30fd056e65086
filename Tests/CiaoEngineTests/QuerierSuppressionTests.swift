import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Known-answer suppression (RFC 6762 §7.1) and duplicate question suppression (§7.3), measured in
/// packets and records.
@Suite struct QuerierSuppressionTests {
    static let serviceCount = 20

    /// Responses and answer records a publisher sent after `start`.
    static func responses(of host: SimulatedNetwork.HostID, in network: SimulatedNetwork, after start: Instant)
        -> (packets: Int, answers: Int, bytes: Int)
    {
        let responses = network.sentMessages(.responses, by: host, family: nil, since: start).filter { $0.time > start }
        return (
            responses.count, responses.reduce(0) { $0 + $1.message.answers.count }, responses.reduce(0) { $0 + $1.size }
        )
    }

    /// A publisher with 20 services, settled.
    static func publisherNetwork(seed: UInt64) -> (SimulatedNetwork, SimulatedNetwork.LinkID, SimulatedNetwork.HostID) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        _ = network.registerServices(serviceCount, on: publisher)
        network.run(for: .seconds(15))
        return (network, link, publisher)
    }

    /// A browser's continuous queries carry the PTRs it holds, so after the first answer the
    /// responder stays silent: it answers once, over IPv4, and the IPv6 query that follows 150 ms
    /// later already lists every PTR. The same queries without known answers (as from an empty
    /// cache) draw the full answer every time.
    @Test func knownAnswersSilenceTheResponder() {
        // With known answers: a real browser for five minutes.
        var (network, link, publisher) = Self.publisherNetwork(seed: 30)
        let browserHost = network.addHost(named: "beta", links: [link])
        let start = network.now
        let browse = network.withStack(browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(300))
        #expect(network.browsed(browse, by: browserHost).count == Self.serviceCount)
        let queries = IPFamily.allCases.flatMap { family in
            network.sentMessages(by: browserHost, family: family, since: start).filter { entry in
                !entry.message.header.isResponse && entry.message.questions.contains { $0.name == Names.serviceType }
            }.map { (time: $0.time, family: family, message: $0.message) }
        }.sorted { $0.time < $1.time }
        let withKnownAnswers = Self.responses(of: publisher, in: network, after: start)
        // Every query but the very first lists all 20 PTRs.
        #expect(
            queries.dropFirst().allSatisfy { $0.message.answers.filter { $0.type == .ptr }.count == Self.serviceCount })

        // Without known answers: the same questions at the same moments from an observer.
        var (control, controlLink, controlPublisher) = Self.publisherNetwork(seed: 30)
        let observer = control.addHost(named: nil, links: [controlLink])
        let controlStart = control.now
        for query in queries {
            control.run(until: controlStart + (query.time - start))
            control.inject(
                Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: controlLink,
                family: query.family)
        }
        control.run(until: controlStart + .seconds(300))
        let withoutKnownAnswers = Self.responses(of: controlPublisher, in: control, after: controlStart)
        print(
            """
            KAS, \(queries.count) queries in 5 min: responder sent \(withKnownAnswers.packets) responses / \
            \(withKnownAnswers.answers) answers / \(withKnownAnswers.bytes) B with known answers, \
            \(withoutKnownAnswers.packets) / \(withoutKnownAnswers.answers) / \(withoutKnownAnswers.bytes) B without
            """)
        #expect(queries.count >= 16)
        // One answer per service, over one family.
        #expect(withKnownAnswers.answers == Self.serviceCount)
        // Without: every query draws all 20 answers, but for the one on each family within a
        // second of that family's first answer (§6: once a second per record).
        #expect(withoutKnownAnswers.answers >= (queries.count - 2) * Self.serviceCount)
        #expect(withKnownAnswers.bytes * (queries.count - 2) <= withoutKnownAnswers.bytes)
    }

    /// The first IPv6 query, 150 ms after IPv4's, lists what came over IPv4 alone. What came over
    /// IPv6 as well, from a responder answering over both families (as python-zeroconf does), it
    /// leaves out: that responder will not repeat it within the second (RFC 6762 §6), and the
    /// next query, a second later, lists everything.
    @Test func firstIPv6QueryListsWhatCameOverIPv4Alone() throws {
        var (network, link, observer, browserHost) = SimulatedNetwork.observerAndBrowser(seed: 32, settle: .seconds(2))
        let start = network.now
        network.withStack(browserHost) { engine, now in
            _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .milliseconds(125))
        func ptr(_ name: String) -> ResourceRecord {
            ResourceRecord(name: Names.serviceType, ttl: 4500, data: .ptr(Names.instance(name)))
        }
        network.inject(Messages.response([ptr("Both"), ptr("Four")]), from: observer, on: link, family: .v4)
        network.inject(Messages.response([ptr("Both")]), from: observer, on: link, family: .v6)
        network.run(for: .seconds(2))
        let queries = network.sentMessages(.queries, by: browserHost, family: .v6, since: start).filter {
            $0.message.questions.contains { $0.name == Names.serviceType }
        }
        try #require(queries.count >= 2)
        #expect(queries[0].message.answers.map(\.data) == [ptr("Four").data])
        #expect(Set(queries[1].message.answers.map(\.data)) == [ptr("Both").data, ptr("Four").data])
    }

    /// Queries that share a schedule (a resolution's SRV and TXT) keep sharing it, and their
    /// packet, when another host's query asks both: one margin for the whole message (§7.3).
    @Test func queriesStandingBackTogetherStayTogether() {
        var (network, link, observer, browserHost) = SimulatedNetwork.observerAndBrowser(seed: 33, settle: .seconds(2))
        let instance = Names.instance("Nobody")
        network.withStack(browserHost) { engine, now in
            _ = engine.startQuery(name: instance, type: .srv, at: now)
            _ = engine.startQuery(name: instance, type: .txt, at: now)
        }
        // Past the first IPv4 and IPv6 queries and the second one.
        network.run(for: .milliseconds(1500))
        let start = network.now
        let both = [Messages.question(instance, .srv), Messages.question(instance, .txt)]
        network.inject(Messages.query(both), from: observer, on: link, family: .v4)
        network.run(for: .seconds(60))
        let queries = network.sentMessages(.queries, by: browserHost, family: nil, since: start)
        #expect(queries.count >= 4)
        #expect(queries.allSatisfy { Set($0.message.questions.map(\.type)) == [.srv, .txt] })
    }

    /// Two browsers asking the same question: each treats the other's query as its own (§7.3), so
    /// together they send about as many queries as one alone, not twice as many. Only QM queries
    /// stand in for others: each new host's first queries are QU (§5.4), and are counted apart.
    @Test(arguments: [false, true])
    func duplicateQuestionsAreSuppressed(withPublisher: Bool) {
        func count(browsers: Int) -> (qm: Int, qu: Int) {
            var network = SimulatedNetwork(seed: 31)
            let link = network.addLink()
            if withPublisher {
                let publisher = network.addHost(named: "alpha", links: [link])
                _ = network.registerServices(Self.serviceCount, on: publisher)
            }
            network.run(for: .seconds(15))
            let hosts = (0..<browsers).map { network.addHost(named: "browser\($0)", links: [link]) }
            let start = network.now
            for host in hosts {
                network.withStack(host) { engine, now in
                    _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
                }
            }
            network.run(for: .seconds(1800))
            // Queries at distinct instants (the two families' copies of one query go together).
            func instants(unicast: Bool) -> Int {
                hosts.reduce(0) { total, host in
                    total
                        + network.sentMessages(by: host, family: nil, since: start).filter { entry in
                            !entry.message.header.isResponse
                                && entry.message.questions.contains {
                                    $0.name == Names.serviceType && $0.unicastResponse == unicast
                                }
                        }.map(\.time).reduce(into: [Instant]()) { if $0.last != $1 { $0.append($1) } }.count
                }
            }
            return (instants(unicast: false), instants(unicast: true))
        }
        let one = count(browsers: 1)
        let two = count(browsers: 2)
        let four = count(browsers: 4)
        print(
            "duplicate question suppression (publisher: \(withPublisher)), 30 min, QM (QU) queries: 1 browser \(one.qm) (\(one.qu)), 2 browsers \(two.qm) (\(two.qu)), 4 browsers \(four.qm) (\(four.qu))"
        )
        // One host asks and the others stand back, the first queries aside; and not less than
        // one host asks alone.
        #expect(two.qm <= one.qm + 1 && two.qm >= one.qm)
        #expect(four.qm <= one.qm + 2 && four.qm >= one.qm)
        // Each host's first query over each family, and no other, asks for unicast replies.
        #expect(one.qu == 2 && two.qu == 4 && four.qu == 8)
    }

    /// A unique answer that arrives before its query first goes out (in another response, as
    /// SRV and TXT follow the PTRs of a large browse) is not asked for: the query waits while the
    /// cache keeps the answer (§7.1), and asks again once it expires.
    @Test func answerArrivingBeforeTheFirstQueryIsNotAskedFor() throws {
        var (network, link, ghost, browserHost) = SimulatedNetwork.observerAndBrowser(seed: 31, settle: .seconds(3))
        let instance = Names.name("Web._ciao._tcp.local.")
        let srv = ResourceRecord(
            name: instance, cacheFlush: true, ttl: 120,
            data: .srv(SRVData(priority: 0, weight: 0, port: 80, target: Names.name("ghost.local."))))
        let start = network.now
        let query = network.withStack(browserHost) { engine, now in
            engine.startQuery(name: instance, type: .srv, at: now)
        }
        // Within the first query's 20 ms minimum delay (§5.2).
        network.inject(Messages.response([srv]), from: ghost, on: link)
        network.run(for: .seconds(130))
        #expect(network.events(of: browserHost).contains { if case .added(query, srv, _) = $0 { true } else { false } })
        let asked = network.sentMessages(by: browserHost, family: nil, since: start)
            .filter { $0.message.questions.contains { $0.name == instance && $0.type == .srv } }.map { $0.time - start }
        #expect(!asked.isEmpty && asked.allSatisfy { $0 >= .seconds(96) }, "asked at \(asked)")
        #expect(asked.contains { $0 >= .seconds(120) }, "asked again after it expired: \(asked)")
    }
}
