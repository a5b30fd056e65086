import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// How cached records leave: goodbyes (RFC 6762 §10.1), TTL expiry (§10) and Passive Observation
/// Of Failures (§10.5).
@Suite struct QuerierLifetimeTests {
    static let instance = Names.instance("Gone")
    static let hostName = Names.name("gone.local.")
    static let address = IPv4Address(198, 18, 0, 77)

    /// Goodbye → removed one second after it arrives, every record of the service.
    @Test func goodbyeRemovesAfterOneSecond() {
        let web = PublishedWeb(seed: 10)
        var network = web.network
        let (publisher, browserHost, registration) = (web.publisher, web.browser, web.registration)
        var browsers = [ResolvingBrowser(host: browserHost)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        #expect(Set(browsers[0].resolved.keys) == [Names.instance("Web")])
        let byeAt = network.now
        network.withStack(publisher) { engine, now in engine.deregister(registration, at: now) }
        network.run(until: network.now + .seconds(5), step: .milliseconds(1), browsers: &browsers)
        let removals = browsers[0].removals
        // PTR (browse), SRV and TXT (resolver queries) each reported removed once, and the host's
        // addresses, which leave with its last service.
        let removedTypes = removals.compactMap { entry -> RecordType? in
            if case .removed(_, let record, _) = entry.event { return record.type }
            return nil
        }
        #expect(
            removedTypes.sorted { $0.rawValue < $1.rawValue }
                == [.ptr, .txt, .srv, .a, .aaaa].sorted { $0.rawValue < $1.rawValue })
        for removal in removals {
            let delay = removal.time - byeAt
            // Goodbye crosses the link in 1 ms, then the record lives one more second.
            #expect(delay >= .seconds(1) && delay <= .milliseconds(1010), "removed \(delay) after the goodbye")
        }
        print("goodbye: removed after \(removals.map { $0.time - byeAt })")
        #expect(network.browsed(browsers[0].browse!, by: browserHost).isEmpty)
    }

    /// A publisher that vanishes without goodbyes (simulated by an observer that announces once
    /// and then falls silent) is removed exactly when each record's TTL runs out, although the
    /// browser keeps asking (its refresh queries at 80–95 % go unanswered).
    @Test func silentPublisherExpiresAtTTL() {
        var (network, link, ghost, browserHost) = SimulatedNetwork.observerAndBrowser(seed: 11, settle: .seconds(3))
        var browsers = [ResolvingBrowser(host: browserHost)]
        browsers[0].start(&network)
        let records = Services.records(
            instance: Self.instance, host: Self.hostName, address: Self.address, ttl: 120, ptrTTL: 300)
        network.inject(Messages.response(records), from: ghost, on: link)
        let announcedAt = network.now + .milliseconds(1)
        network.run(until: network.now + .seconds(400), step: .milliseconds(20), browsers: &browsers)
        #expect(Set(browsers[0].resolved.keys) == [Self.instance])
        var removedAt: [RecordType: Duration] = [:]
        for removal in browsers[0].removals {
            if case .removed(_, let record, _) = removal.event { removedAt[record.type] = removal.time - announcedAt }
        }
        print("silent publisher: removed after \(removedAt)")
        #expect(removedAt[.srv] == .seconds(120))
        #expect(removedAt[.a] == .seconds(120))
        #expect(removedAt[.ptr] == .seconds(300))
        #expect(removedAt[.txt] == .seconds(300))
        // The browser did try to refresh: queries for the SRV between 80 % and 97 % of its TTL,
        // none in between (the answer was cached), and the resolution's own query again the moment
        // the record expired.
        let srvQueries = network.sentMessages(by: browserHost, family: nil).filter { entry in
            entry.message.questions.contains { $0.name == Self.instance && $0.type == .srv }
        }.map { $0.time - announcedAt }
        let refreshes = srvQueries.filter { $0 >= .seconds(10) && $0 < .seconds(120) }
        #expect(refreshes.count >= 4, "refresh queries at \(refreshes)")
        #expect(refreshes.allSatisfy { $0 >= .seconds(96) && $0 <= .milliseconds(116_400) }, "\(refreshes)")
        #expect(
            srvQueries.contains(.seconds(120)), "asked again at expiry: \(srvQueries.filter { $0 >= .seconds(100) })")
    }

    /// POOF (§10.5): when another host asks twice for a record and no answer comes, it is flushed
    /// ten seconds after the first unanswered query, long before its TTL. The asker's very first
    /// query is QU (§5.4), which may be answered out of sight by unicast: it does not count.
    @Test func unansweredQueriesFromOthersFlushEarly() {
        var (network, link, _, browsers, _) = browsingGhostService(seed: 12, settle: .seconds(20))
        #expect(browsers[0].found.keys.contains(Self.instance))
        #expect(browsers[0].removals.isEmpty)

        // A third host, with an empty cache, browses: its queries carry no known answers, nobody answers.
        let asker = network.addHost(named: "gamma", links: [link])
        let askStart = network.now
        network.withStack(asker) { engine, now in _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(until: network.now + .seconds(60), step: .milliseconds(1), browsers: &browsers)
        let queries = network.sentMessages(by: asker, family: nil, since: askStart).filter { entry in
            entry.message.questions.contains { $0.name == Names.serviceType && $0.type == .ptr }
        }
        #expect(queries.first?.message.questions.allSatisfy(\.unicastResponse) == true)
        let firstQuery = queries.first { entry in !entry.message.questions.contains(where: \.unicastResponse) }!.time
        let removal = browsers[0].removals.first
        #expect(browsers[0].removals.count == 1)
        if let removal {
            let sinceFirstQuery = removal.time - firstQuery
            print("POOF: removed \(sinceFirstQuery) after the first unanswered query (TTL 4500 s)")
            #expect(sinceFirstQuery >= .seconds(10) && sinceFirstQuery <= .milliseconds(10_010))
        }
    }

    /// Truncated queries (§7.2) list the rest of their known answers in later packets, so they
    /// must not count as unanswered: a browser asking with a long known-answer list would
    /// otherwise make everyone flush the records it listed after the first packet.
    @Test func truncatedQueriesDoNotPoof() {
        var (network, link, ghost, browsers, _) = browsingGhostService(seed: 13, settle: .seconds(5))
        #expect(browsers[0].found.keys.contains(Self.instance))

        // Three truncated queries in ten seconds whose first packets do not list the PTR.
        let truncated = Messages.query([Messages.question(Names.serviceType, .ptr)], truncated: true)
        for _ in 0..<3 {
            network.inject(truncated, from: ghost, on: link)
            network.run(until: network.now + .seconds(3), browsers: &browsers)
        }
        network.run(until: network.now + .seconds(20), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty)
    }

    /// One unanswered query is not enough (§10.5 needs two), and an answer seen in between resets the count.
    @Test func poofNeedsTwoUnansweredQueries() {
        var (network, link, ghost, browsers, records) = browsingGhostService(seed: 13, settle: .seconds(5))
        let question = Messages.question(Names.serviceType, .ptr)
        // One query, then an answer, then one more query: never two unanswered in a row.
        network.inject(Messages.query([question]), from: ghost, on: link)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        network.inject(Messages.response([records[0]]), from: ghost, on: link)
        network.run(until: network.now + .seconds(1), browsers: &browsers)
        network.inject(Messages.query([question]), from: ghost, on: link)
        network.run(until: network.now + .seconds(30), browsers: &browsers)
        // Queries that list the record as a known answer do not count either.
        network.inject(Messages.query([question], knownAnswers: [records[0]]), from: ghost, on: link)
        network.run(until: network.now + .seconds(2), browsers: &browsers)
        network.inject(Messages.query([question], knownAnswers: [records[0]]), from: ghost, on: link)
        network.run(until: network.now + .seconds(30), browsers: &browsers)
        #expect(browsers[0].removals.isEmpty)
        #expect(network.engine(browsers[0].host).cachedRecords(on: InterfaceID(1)).contains(records[0]))
    }
    /// A browser that has found a service a silent observer ("ghost") announced once.
    private func browsingGhostService(seed: UInt64, settle: Duration) -> (
        SimulatedNetwork, SimulatedNetwork.LinkID, SimulatedNetwork.HostID, [ResolvingBrowser], [ResourceRecord]
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let ghost = network.addHost(named: nil, links: [link])
        let browserHost = network.addHost(named: "beta", links: [link])
        network.run(for: .seconds(3))
        var browsers = [ResolvingBrowser(host: browserHost, resolves: false)]
        browsers[0].start(&network)
        let records = Services.records(instance: Self.instance, host: Self.hostName, address: Self.address)
        network.inject(Messages.response(records), from: ghost, on: link)
        network.run(until: network.now + settle, browsers: &browsers)
        return (network, link, ghost, browsers, records)
    }
}
