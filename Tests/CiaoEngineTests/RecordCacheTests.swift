import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Cache rules (RFC 6762 §6, §7.1, §10.2) and bounded state under a flood.
@Suite struct RecordCacheTests {
    static let hostName = Names.name("printer.local.")
    static let instance = Names.instance("Printer")

    struct Setup {
        var network: SimulatedNetwork
        var link: SimulatedNetwork.LinkID
        var observer: SimulatedNetwork.HostID
        var browserHost: SimulatedNetwork.HostID
    }

    static func setUp(seed: UInt64, cacheCapacity: Int = 4096) -> Setup {
        let (network, link, observer, browserHost) = SimulatedNetwork.observerAndBrowser(
            seed: seed, settle: .seconds(3), cacheCapacity: cacheCapacity)
        return Setup(network: network, link: link, observer: observer, browserHost: browserHost)
    }

    static func a(_ last: UInt8, flush: Bool = true, ttl: UInt32 = 120) -> ResourceRecord {
        ResourceRecord(name: hostName, cacheFlush: flush, ttl: ttl, data: .a(IPv4Address(198, 18, 0, last)))
    }

    static func cachedA(_ setup: Setup) -> Set<ResourceRecord> {
        Set(setup.network.engine(setup.browserHost).cachedRecords(on: InterfaceID(1)).filter { $0.type == .a })
    }

    /// An address change with the cache-flush bit: the old address goes one second later, reported
    /// as an update to the new one (§10.2).
    @Test func cacheFlushReplacesAnOldAddressAfterOneSecond() {
        var setup = Self.setUp(seed: 40)
        let query = setup.network.withStack(setup.browserHost) { engine, now in
            engine.startQuery(name: Self.hostName, type: .a, at: now)
        }
        setup.network.inject(Messages.response([Self.a(10)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(5))
        setup.network.inject(Messages.response([Self.a(20)]), from: setup.observer, on: setup.link)
        let changedAt = setup.network.now + .milliseconds(1)
        setup.network.run(for: .milliseconds(500))
        // Within the second, both are still cached.
        #expect(Self.cachedA(setup) == [Self.a(10), Self.a(20)])
        setup.network.run(for: .seconds(2))
        #expect(Self.cachedA(setup) == [Self.a(20)])
        let events = setup.network.events.filter { $0.host == setup.browserHost }
        #expect(events.contains { $0.event == .added(query, Self.a(10), InterfaceID(1)) })
        #expect(events.contains { $0.event == .updated(query, Self.a(20), InterfaceID(1)) && $0.time == changedAt })
        // A replaced record is not also reported removed.
        #expect(!events.contains { if case .removed = $0.event { true } else { false } })
    }

    /// Two members of an RRset arriving within a second of each other, both with cache-flush, are
    /// both kept (§10.2: only records older than one second are flushed); a third, later, flushes both.
    @Test func cacheFlushKeepsRecordsFromTheLastSecond() {
        var setup = Self.setUp(seed: 41)
        let query = setup.network.withStack(setup.browserHost) { engine, now in
            engine.startQuery(name: Self.hostName, type: .a, at: now)
        }
        setup.network.inject(Messages.response([Self.a(1)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .milliseconds(300))
        setup.network.inject(Messages.response([Self.a(2)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(3))
        #expect(Self.cachedA(setup) == [Self.a(1), Self.a(2)])
        // Both in one packet later: neither flushes the other, and they refresh.
        setup.network.inject(Messages.response([Self.a(1), Self.a(2)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(3))
        #expect(Self.cachedA(setup) == [Self.a(1), Self.a(2)])
        setup.network.inject(Messages.response([Self.a(3)]), from: setup.observer, on: setup.link)
        let flushedAt = setup.network.now + .milliseconds(1)
        setup.network.run(for: .seconds(3))
        #expect(Self.cachedA(setup) == [Self.a(3)])
        let removals = setup.network.events.filter {
            if $0.host == setup.browserHost, case .removed(query, _, _) = $0.event { return true }
            return false
        }
        #expect(removals.count == 2)
        #expect(removals.allSatisfy { $0.time == flushedAt + .seconds(1) })
        // Records without the bit are shared: they flush nothing.
        setup.network.inject(Messages.response([Self.a(4, flush: false)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(3))
        #expect(Self.cachedA(setup) == [Self.a(3), Self.a(4, flush: false)])
    }

    /// A real publisher changes its TXT: the browser reports `.updated` with the new record, not
    /// a removal and an addition.
    @Test func txtChangeIsReportedAsUpdated() {
        let web = PublishedWeb(seed: 42)
        var network = web.network
        let (publisher, browserHost, registration) = (web.publisher, web.browser, web.registration)
        var browsers = [ResolvingBrowser(host: browserHost)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(3), browsers: &browsers)
        #expect(browsers[0].resolved.keys.contains(Names.instance("Web")))
        let newTXT = Services.txt(["v=2"])
        network.withStack(publisher) { engine, now in engine.updateTXT(registration, to: newTXT, at: now) }
        network.run(until: network.now + .seconds(10), browsers: &browsers)
        let updates = browsers[0].updates.compactMap { entry -> ResourceRecord? in
            if case .updated(_, let record, _) = entry.event { return record }
            return nil
        }
        #expect(updates.count == 1)
        #expect(updates.first?.data == .txt(newTXT))
        #expect(browsers[0].removals.isEmpty)
        let txts = network.engine(browserHost).cachedRecords(on: InterfaceID(1)).filter { $0.type == .txt }
        #expect(txts.map(\.data) == [.txt(newTXT)])
    }

    /// Known answers inside another host's query are never cached (§7.1): they are claims, not answers.
    @Test func knownAnswersInQueriesAreNotCached() {
        var setup = Self.setUp(seed: 43)
        let query = setup.network.withStack(setup.browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        let records = Services.records(
            instance: Self.instance, host: Self.hostName, address: IPv4Address(198, 18, 0, 5))
        let question = Messages.question(Names.serviceType, .ptr)
        setup.network.inject(Messages.query([question], knownAnswers: records), from: setup.observer, on: setup.link)
        // Also the same records in the answer section of a message that is a query (QR clear) with TC.
        let truncated = Messages.query([question], knownAnswers: records, truncated: true)
        setup.network.inject(truncated, from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(5))
        #expect(setup.network.engine(setup.browserHost).cachedRecords(on: InterfaceID(1)).isEmpty)
        #expect(setup.network.browsed(query, by: setup.browserHost).isEmpty)
        // The same records in a response are cached.
        setup.network.inject(Messages.response(records), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(1))
        #expect(setup.network.browsed(query, by: setup.browserHost) == [Self.instance])
    }

    /// Responses from a port other than 5353 are not mDNS responses (§6): ignored. So are
    /// responses with a non-zero rcode (§18.11).
    @Test func responsesFromOtherPortsAreIgnored() {
        var setup = Self.setUp(seed: 44)
        let query = setup.network.withStack(setup.browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        let records = Services.records(
            instance: Self.instance, host: Self.hostName, address: IPv4Address(198, 18, 0, 5))
        for port: UInt16 in [53, 5354, 12345, 0] {
            setup.network.inject(Messages.response(records), from: setup.observer, on: setup.link, port: port)
        }
        var failed = Messages.response(records)
        failed.header.flags |= 0x0003  // NXDOMAIN
        setup.network.inject(failed, from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(5))
        #expect(setup.network.engine(setup.browserHost).cachedRecords(on: InterfaceID(1)).isEmpty)
        #expect(setup.network.browsed(query, by: setup.browserHost).isEmpty)
        setup.network.inject(Messages.response(records), from: setup.observer, on: setup.link, port: mdnsPort)
        setup.network.run(for: .seconds(1))
        #expect(setup.network.browsed(query, by: setup.browserHost) == [Self.instance])
    }

    /// Goodbyes for records not cached are ignored, and a goodbye does not resurrect a record.
    @Test func goodbyeForUnknownRecordIsIgnored() {
        var setup = Self.setUp(seed: 45)
        _ = setup.network.withStack(setup.browserHost) { engine, now in
            engine.startQuery(name: Self.hostName, type: .a, at: now)
        }
        setup.network.inject(Messages.response([Self.a(9, ttl: 0)]), from: setup.observer, on: setup.link)
        setup.network.run(for: .seconds(2))
        #expect(Self.cachedA(setup).isEmpty)
        #expect(
            !setup.network.events.contains {
                $0.host == setup.browserHost && { if case .added = $0 { true } else { false } }($0.event)
            })
    }
}
