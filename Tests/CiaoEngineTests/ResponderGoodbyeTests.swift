import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Goodbyes on deregistration (RFC 6762 §10.1) and TXT updates (§8.4).
@Suite struct ResponderGoodbyeTests {
    /// Deregistering one of two services of a type says goodbye (TTL 0) to its PTR, SRV and TXT
    /// but keeps the `_services._dns-sd._udp` PTR; the last one says goodbye to that too. A
    /// browser sees the service go.
    @Test func deregisterSaysGoodbyeKeepingSharedRecordsStillInUse() throws {
        var (network, _, publisher, browser) = SimulatedNetwork.alphaAndBeta(seed: 21)
        let web = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        let printer = network.withStack(publisher) { engine, now in
            engine.register(Services.registration("Printer"), at: now)
        }
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(8))
        #expect(network.browsed(query, by: browser) == [Names.instance("Web"), Names.instance("Printer")])

        var start = network.now
        network.withStack(publisher) { engine, now in engine.deregister(web, at: now) }
        network.run(for: .seconds(2))
        var goodbyes = network.sentMessages(.responses, by: publisher, since: start)
        try #require(goodbyes.count == 1)
        #expect(goodbyes[0].time == start)
        var records = goodbyes[0].message.answers
        #expect(records.allSatisfy { $0.ttl == 0 })
        #expect(records.contains { $0.name == Names.serviceType && $0.data == .ptr(Names.instance("Web")) })
        #expect(Set(records.filter { $0.name == Names.instance("Web") }.map(\.type)).isSuperset(of: [.srv, .txt]))
        #expect(!records.contains { $0.name == Names.servicesName })
        #expect(!records.contains { $0.name == Names.name("alpha.local.") })
        #expect(
            !records.contains { $0.name == Names.instance("Printer") || $0.data == .ptr(Names.instance("Printer")) }
        )
        #expect(network.browsed(query, by: browser) == [Names.instance("Printer")])
        #expect(network.engine(publisher).name(of: web) == nil)

        start = network.now
        network.withStack(publisher) { engine, now in engine.deregister(printer, at: now) }
        network.run(for: .seconds(2))
        goodbyes = network.sentMessages(.responses, by: publisher, since: start)
        try #require(goodbyes.count == 1)
        records = goodbyes[0].message.answers
        #expect(records.allSatisfy { $0.ttl == 0 })
        #expect(records.contains { $0.name == Names.servicesName && $0.data == .ptr(Names.serviceType) })
        #expect(records.contains { $0.data == .ptr(Names.instance("Printer")) })
        #expect(network.browsed(query, by: browser).isEmpty)
        // The host's records leave with the last service: no service names them any more.
        #expect(Set(records.filter { $0.name == Names.name("alpha.local.") }.map(\.type)) == [.a, .aaaa, .nsec])
    }

    /// Many services withdrawn together leave in packets full of goodbyes, not one packet each:
    /// 300 services' PTR, SRV, TXT and NSEC go in a few 1440-byte packets per family, every browser
    /// sees them all go, and the type's `_services._dns-sd._udp` PTR stays while a service of the
    /// type is still published.
    @Test func deregisteringManyAtOnceSharesPackets() throws {
        var (network, _, publisher, browser) = SimulatedNetwork.alphaAndBeta(seed: 24)
        let ids = (0..<301).map { index in
            network.withStack(publisher) { engine, now in
                engine.register(Services.registration("Svc \(index)"), at: now)
            }
        }
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(10))
        try #require(network.browsed(query, by: browser).count == 301)

        let start = network.now
        network.withStack(publisher) { engine, now in engine.deregister(ids.dropLast(), at: now) }
        network.run(for: .seconds(2))
        let goodbyes = network.sentMessages(.responses, by: publisher, since: start)
        #expect(goodbyes.allSatisfy { $0.time == start && $0.message.answers.allSatisfy { $0.ttl == 0 } })
        let records = goodbyes.flatMap(\.message.answers)
        #expect(Set(records.map(\.description)).count == 300 * 4, "each PTR, SRV, TXT and NSEC once")
        #expect(goodbyes.count <= 2 * 30, "\(goodbyes.count) packets for 1200 goodbyes")
        #expect(!records.contains { $0.name == Names.servicesName })
        #expect(network.browsed(query, by: browser) == [Names.instance("Svc 300")])
    }

    /// A service still probing leaves without goodbyes, having announced nothing.
    @Test func deregisterWhileProbingSendsNothing() throws {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: 22)
        let start = network.now
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .milliseconds(300))
        network.withStack(publisher) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(5))
        let web = Names.instance("Web")
        let sent = network.sentMessages(by: publisher, since: start).filter {
            $0.asks(about: web) || $0.allRecords.contains { $0.name == web }
        }
        #expect(sent.allSatisfy { $0.isProbe })
        #expect(!sent.isEmpty && sent.count < 3)
        #expect(network.events(of: publisher).isEmpty)
    }

    /// A TXT update is announced again (≥ 2 announcements 1 s apart, cache-flush set), the TXT
    /// alone, as mDNSResponder does: nothing else changed (§8.4). A browser watching the TXT
    /// sees the new one replace the old.
    @Test func txtUpdateIsAnnounced() throws {
        var (network, _, publisher, browser) = SimulatedNetwork.alphaAndBeta(seed: 23)
        let id = network.withStack(publisher) { engine, now in
            engine.register(Services.registration("Web", txt: ["v=1"]), at: now)
        }
        network.run(for: .seconds(8))
        let web = Names.instance("Web")
        let query = network.withStack(browser) { engine, now in engine.startQuery(name: web, type: .txt, at: now) }
        network.run(for: .seconds(2))
        #expect(
            network.events(of: browser).contains {
                if case .added(query, let r, _) = $0 { r.data == .txt(Services.txt(["v=1"])) } else { false }
            })

        let start = network.now
        let newTXT = Services.txt(["v=2", "path=/"])
        network.withStack(publisher) { engine, now in engine.updateTXT(id, to: newTXT, at: now) }
        network.run(for: .seconds(5))
        let announcements = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.isMulticast && $0.message.answers.contains { $0.name == web && $0.data == .txt(newTXT) }
        }
        try #require(announcements.count >= 2)
        #expect(announcements[0].time == start)
        #expect(announcements[1].time - announcements[0].time >= .seconds(1))
        for announcement in announcements {
            let txt = announcement.message.answers.filter { $0.name == web && $0.type == .txt }
            #expect(txt.count == 1 && txt[0].cacheFlush && txt[0].ttl > 0)
            #expect(announcement.message.answers.count == 1, "\(announcement.message.answers)")
        }
        #expect(
            network.events(of: browser).contains {
                if case .updated(query, let r, _) = $0 { r.data == .txt(newTXT) } else { false }
            })
        // The old TXT is never sent again.
        #expect(
            !network.sentMessages(by: publisher, since: start).contains {
                $0.allRecords.contains { $0.data == .txt(Services.txt(["v=1"])) && $0.ttl > 0 }
            })
        #expect(network.engine(publisher).name(of: id) == web)
    }

    /// A query's shared answer is waiting its 20–120 ms when the service is withdrawn: the
    /// waiting answer must not follow the goodbye and bring the record back (§10.1).
    @Test(arguments: [UInt64(1), 2, 3])
    func noAnswerFollowsTheGoodbye(seed: UInt64) {
        var published = PublishedWeb(seed: seed)
        let observer = published.network.addHost(named: nil, links: [published.links[0]])
        let query = Messages.query([Messages.question(Names.serviceType, .ptr)])
        published.network.inject(query, from: observer, on: published.links[0])
        published.network.run(for: .milliseconds(5))
        let withdrawn = published.network.now
        published.network.withStack(published.publisher) { engine, now in
            engine.deregister(published.registration, at: now)
        }
        published.network.run(for: .seconds(2))
        let resent = published.network.sentMessages(by: published.publisher).filter { $0.time >= withdrawn }
            .flatMap(\.message.answers).filter { $0.type == .ptr && $0.name == Names.serviceType && $0.ttl > 0 }
        #expect(resent.isEmpty, "PTR sent again after its goodbye")
    }
    /// A goodbye someone else sends for records we still publish (a second responder on our host
    /// leaving, or a forgery) is refuted: we multicast them again within the once-a-second rule,
    /// and a browser keeps the service and the host's address.
    @Test func aGoodbyeForOurRecordsIsRefuted() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 31, hostName: "vm")
        let browser = network.addHost(named: "beta", links: [link])
        network.register(Services.registration("Web"), on: publisher)
        let instance = Names.instance("Web")
        let query = network.withStack(browser) { engine, now in engine.startQuery(name: instance, type: .srv, at: now)
        }
        network.run(for: .seconds(2))
        let srv = try #require(
            network.engine(browser).cachedRecords(on: InterfaceID(1)).first { $0.name == instance && $0.type == .srv })
        let address = network.address(of: publisher, on: link, family: .v4)
        let forged = [
            srv.goodbyeCopy,
            ResourceRecord(name: Names.name("vm.local."), cacheFlush: true, ttl: 0, data: address.recordData),
        ]
        let start = network.now
        network.inject(Messages.response(forged), from: observer, on: link)
        network.run(for: .seconds(3))
        let refutations = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.answers(instance, .srv)
        }
        let first = try #require(refutations.first)
        #expect(first.time - start <= .seconds(1))
        #expect(
            first.message.answers.contains {
                $0.name == Names.name("vm.local.") && $0.data == address.recordData && $0.ttl > 0
            })
        #expect(!network.events(of: browser).contains(.removed(query, srv, InterfaceID(1))))
        #expect(
            network.engine(browser).cachedRecords(on: InterfaceID(1)).contains {
                $0.name == instance && $0.type == .srv
            })
    }

    /// Every host publishing a service of one type holds the same `_services._dns-sd._udp` PTR.
    /// When one withdraws its last service of the type, its goodbye for that PTR is refuted by a
    /// few of the others, not by each: the first refutation suppresses the rest (§7.4), and a
    /// browser of the service types keeps the type.
    @Test func aSharedGoodbyeIsRefutedByFewOfTheHostsHoldingIt() throws {
        var network = SimulatedNetwork(seed: 7)
        let link = network.addLink()
        let publishers = (0..<20).map { network.addHost(named: "host\($0)", links: [link]) }
        var leaving: RegistrationID?
        for (index, host) in publishers.enumerated() {
            let id = network.withStack(host) { engine, now in
                engine.register(Services.registration("Service \(index)"), at: now)
            }
            if index == 0 { leaving = id }
        }
        let browser = network.addHost(named: "browser", links: [link])
        let types = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.servicesName, type: .ptr, at: now)
        }
        network.run(for: .seconds(10))
        let start = network.now
        let leavingID = try #require(leaving)
        network.withStack(publishers[0]) { engine, now in engine.deregister(leavingID, at: now) }
        network.run(for: .seconds(3))
        func isTypePTR(_ record: ResourceRecord) -> Bool {
            record.name == Names.servicesName && record.data == .ptr(Names.serviceType)
        }
        let refuters = publishers.dropFirst().filter { host in
            network.sentMessages(.responses, by: host, since: start).contains { sent in
                sent.message.answers.contains { isTypePTR($0) && $0.ttl > 0 }
            }
        }
        #expect((1...3).contains(refuters.count), "\(refuters.count) of 19 hosts refuted the goodbye")
        #expect(
            !network.events(of: browser).contains { event in
                if case .removed(types, let record, _) = event { isTypePTR(record) } else { false }
            })
    }
}

extension ResourceRecord {
    /// This record as a goodbye, TTL 0.
    fileprivate var goodbyeCopy: ResourceRecord {
        var record = self
        record.ttl = 0
        return record
    }
}
