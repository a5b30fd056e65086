import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Continuous query timing (RFC 6762 §5.2): the first query 20–120 ms after the start, then
/// intervals of 1 s, 2 s, 4 s … up to an hour; over IPv6 the first follows IPv4's by 150 ms.
@Suite struct QuerierTimingTests {
    /// When a dual-stack browser's PTR query went out over `family`.
    static func queryTimes(seed: UInt64, hours: Int, family: IPFamily = .v4) -> (start: Instant, times: [Instant]) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let browserHost = network.addHost(named: "beta", links: [link])
        network.run(for: .seconds(10))
        let start = network.now
        network.withStack(browserHost) { engine, now in
            _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(Int64(hours) * 3600))
        let times = network.sentMessages(by: browserHost, family: family, since: start).filter { entry in
            !entry.message.header.isResponse && entry.message.questions.contains { $0.name == Names.serviceType }
        }.map(\.time)
        return (start, times)
    }

    /// Over each family the intervals double from one second: IPv6's from its first query,
    /// 150 ms after IPv4's; IPv4's second query goes with IPv6's, a full second after it.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func intervalsDoubleFromOneSecondToAnHour(seed: UInt64) throws {
        let (start, ipv4) = Self.queryTimes(seed: seed, hours: 4, family: .v4)
        let (_, ipv6) = Self.queryTimes(seed: seed, hours: 4, family: .v6)
        try #require(ipv4.count >= 3 && ipv6.count == ipv4.count)
        let first = ipv4[0] - start
        #expect(first >= .milliseconds(20) && first <= .milliseconds(120), "first query after \(first)")
        let intervals = zip(ipv6.dropFirst(), ipv6).map { $0 - $1 }
        var expected: [Duration] = []
        var interval = Duration.seconds(1)
        var elapsed = Duration.zero
        while elapsed + interval <= .seconds(4 * 3600) - first - .milliseconds(150) {
            expected.append(interval)
            elapsed += interval
            interval = min(interval * 2, .seconds(3600))
        }
        #expect(intervals == expected)
        #expect(intervals.max() == .seconds(3600))
        #expect(ipv4[1] - ipv4[0] == .milliseconds(1150))
        if seed == 1 {
            print(
                "query intervals over 4 h: first after \(first), then \(intervals.map { "\($0.components.seconds)s" })")
        }
    }

    /// Each question's first query over each family asks for unicast replies (QU, §5.4), whenever
    /// the question starts; its retransmissions are QM.
    @Test(arguments: [UInt64(1), 2, 3])
    func onlyEachQuestionsFirstQueryAsksForUnicast(seed: UInt64) throws {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let host = network.addHost(named: "beta", links: [link])
        network.withStack(host) { engine, now in _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(10))
        network.withStack(host) { engine, now in
            _ = engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
        }
        network.run(for: .seconds(10))
        for family in IPFamily.allCases {
            let questions = network.sentMessages(.queries, by: host, family: family)
                .flatMap(\.message.questions)
            let ptr = questions.filter { $0.type == .ptr }
            let srv = questions.filter { $0.type == .srv }
            try #require(ptr.count >= 4 && srv.count >= 3)
            #expect(ptr[0].unicastResponse, "first PTR query over \(family)")
            #expect(!ptr.dropFirst().contains { $0.unicastResponse })
            #expect(srv[0].unicastResponse, "first SRV query over \(family)")
            #expect(!srv.dropFirst().contains { $0.unicastResponse })
        }
    }

    /// Over a family on which another stack on this host shares the mDNS port, a unicast reply
    /// may be handed to that stack instead (§15.1): there the first query is QM too.
    @Test func firstQueryIsQMWhereAnotherStackSharesThePort() throws {
        var network = SimulatedNetwork(seed: 4)
        let link = network.addLink()
        let host = network.addHost(named: "beta", links: [link], unicastReplyFamilies: [.v6])
        network.withStack(host) { engine, now in _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(5))
        func firstQuestion(over family: IPFamily) -> Question? {
            network.sentMessages(.queries, by: host, family: family)
                .flatMap(\.message.questions).first { $0.type == .ptr }
        }
        let ipv4 = try #require(firstQuestion(over: .v4))
        let ipv6 = try #require(firstQuestion(over: .v6))
        #expect(!ipv4.unicastResponse)
        #expect(ipv6.unicastResponse)
    }

    /// A dual-stack interface is asked over IPv4 first and over IPv6 150 ms later, so that the
    /// IPv6 query can list what IPv4 brought; from the second query on, both go together.
    @Test(arguments: [UInt64(1), 2, 3])
    func firstIPv6QueryFollowsIPv4s(seed: UInt64) throws {
        let (_, ipv4) = Self.queryTimes(seed: seed, hours: 1, family: .v4)
        let (_, ipv6) = Self.queryTimes(seed: seed, hours: 1, family: .v6)
        try #require(ipv4.count >= 3 && ipv6.count == ipv4.count)
        #expect(ipv6[0] - ipv4[0] == .milliseconds(150))
        #expect(Array(ipv6.dropFirst()) == Array(ipv4.dropFirst()))
    }

    /// A responder with one family only is found over it: over IPv4 after the first query, over
    /// IPv6 after the first IPv6 query, at most 150 ms later.
    @Test(arguments: [UInt64(1), 2, 3])
    func singleFamilyRespondersAreFoundOverTheirFamily(seed: UInt64) throws {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        network.families = [.v4]
        let ipv4Only = network.addHost(named: "four", links: [link])
        network.families = [.v6]
        let ipv6Only = network.addHost(named: "six", links: [link])
        _ = network.registerServices(1, prefix: "Four", on: ipv4Only)
        _ = network.registerServices(1, prefix: "Six", on: ipv6Only)
        network.run(for: .seconds(10))
        // The browser comes after the announcements: what it finds, its queries draw.
        network.families = [.v4, .v6]
        let browserHost = network.addHost(named: "beta", links: [link])
        network.run(for: .seconds(1))
        let start = network.now
        let browse = network.withStack(browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(2))
        func foundAfter(_ instance: String) -> Duration? {
            network.events.first { timed in
                guard timed.host == browserHost, case .added(browse, let record, _) = timed.event else { return false }
                return record.data == .ptr(Names.instance(instance))
            }.map { $0.time - start }
        }
        let four = try #require(foundAfter("Four 0"))
        let six = try #require(foundAfter("Six 0"))
        // The first query after 20–120 ms (§5.2), QU and answered at once by unicast (§5.4); the
        // bounds leave room for a shared answer 20–120 ms later (§6), as a QM query would get.
        #expect(four <= .milliseconds(250), "IPv4-only found after \(four)")
        #expect(six <= .milliseconds(400), "IPv6-only found after \(six)")
    }

    /// Queries started together (a resolution's SRV and TXT) ask in one packet, on one schedule;
    /// one started later, once the first query has gone, gets its own 20–120 ms delay.
    @Test(arguments: [UInt64(1), 2, 3])
    func queriesStartedTogetherShareTheirPackets(seed: UInt64) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let host = network.addHost(named: "beta", links: [link])
        network.run(for: .seconds(10))
        let start = network.now
        let instance = Names.instance("Web")
        network.withStack(host) { engine, now in
            _ = engine.startQuery(name: instance, type: .srv, at: now)
            _ = engine.startQuery(name: instance, type: .txt, at: now + .milliseconds(5))
        }
        network.run(for: .seconds(200))
        network.withStack(host) { engine, now in _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(10))
        let queries = network.sentMessages(.queries, by: host, family: nil, since: start)
        let resolution = queries.filter { $0.message.questions.contains { $0.name == instance } }
        #expect(!resolution.isEmpty)
        #expect(resolution.allSatisfy { Set($0.message.questions.map(\.type)).isSuperset(of: [.srv, .txt]) })
        let browse = queries.filter { $0.message.questions.contains { $0.name == Names.serviceType } }
        #expect(browse.first.map { $0.message.questions.count } == 1, "a late query waits for no one")
    }

    /// A query for a unique record already cached with more than half its TTL left asks nothing
    /// until the record nears 80 % of its TTL (§7.1); the cached answer is reported at once.
    @Test func uniqueAnswerInTheCacheNeedsNoQuery() {
        var published = PublishedWeb(seed: 9)
        let browse = published.network.withStack(published.browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        published.network.run(for: .seconds(2))
        #expect(published.network.browsed(browse, by: published.browser) == [Names.instance("Web")])
        let start = published.network.now
        let srvQuery = published.network.withStack(published.browser) { engine, now in
            engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
        }
        let reported = published.network.events(of: published.browser).contains {
            if case .added(srvQuery, let record, _) = $0 { record.type == .srv } else { false }
        }
        #expect(reported, "the cached SRV is reported at once")
        published.network.run(for: .seconds(60))
        let asked = published.network.sentMessages(.queries, by: published.browser, family: nil, since: start).filter {
            $0.message.questions.contains { $0.type == .srv }
        }
        #expect(asked.isEmpty, "asked for the SRV at \(asked.map(\.time))")
        published.network.run(for: .seconds(60))
        let refreshed = published.network.sentMessages(.queries, by: published.browser, family: nil, since: start)
            .filter {
                $0.message.questions.contains { $0.type == .srv }
            }
        #expect(!refreshed.isEmpty, "the SRV is asked for again before its TTL runs out")
    }

    /// Records that answer a query are refreshed at 80, 85, 90 and 95 % of their TTL, plus up to
    /// 2 % jitter (§5.2), and the schedule starts over when an answer arrives.
    @Test func refreshQueriesAtEightyToNinetyFivePercent() {
        var (network, link, ghost, browserHost) = SimulatedNetwork.observerAndBrowser(seed: 21, settle: .seconds(3))
        let host = Names.name("ghost.local.")
        network.withStack(browserHost) { engine, now in _ = engine.startQuery(name: host, type: .a, at: now) }
        network.run(for: .seconds(10))
        let record = ResourceRecord(name: host, cacheFlush: true, ttl: 100, data: .a(IPv4Address(198, 18, 0, 9)))
        network.inject(Messages.response([record]), from: ghost, on: link)
        let received = network.now + .milliseconds(1)
        network.run(for: .seconds(100))
        var times: [Duration] = []
        for entry in network.sentMessages(by: browserHost, family: nil, since: received)
        where entry.message.questions.contains(where: { $0.name == host }) && times.last != entry.time - received {
            times.append(entry.time - received)
        }
        // The continuous query is at 15 s-ish or 31 s-ish intervals; take the ones in the refresh window.
        let refreshes = times.filter { $0 >= .seconds(79) }
        #expect(refreshes.count == 4, "\(times)")
        for (refresh, point) in zip(refreshes, [80, 85, 90, 95]) {
            #expect(refresh >= .seconds(Int64(point)) && refresh <= .seconds(Int64(point + 2)), "refresh at \(refresh)")
        }
        // Refresh queries carry no known answer for the record: it has less than half its TTL left (§7.1).
        let refreshMessages = network.sentMessages(by: browserHost, family: nil, since: received + .seconds(79))
        #expect(refreshMessages.allSatisfy { $0.message.answers.isEmpty })
    }
}
