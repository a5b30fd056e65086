import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// A service whose SRV record names another host (``ServiceRegistration/hostName``), as
/// `avahi-publish -H` publishes one: that host answers for its own addresses (RFC 6763 §5, §12).
@Suite struct ServiceOnAnotherHostTests {
    static let printerHost = Names.name("printer.local.")
    static let alpha = Names.name("alpha.local.")
    static let alpha2 = Names.name("alpha-2.local.")

    /// The SRV targets `host` sent for `instance` after `start`, goodbyes left out.
    static func sentTargets(
        of instance: DomainName, by host: SimulatedNetwork.HostID, in network: SimulatedNetwork, since start: Instant
    ) -> [DomainName] {
        network.sentMessages(.responses, by: host, since: start).flatMap(\.message.answers).compactMap { record in
            if case .srv(let srv) = record.data, record.name == instance, record.ttl > 0 { srv.target } else { nil }
        }
    }

    /// Its SRV record names the other host, in its announcements and in answers; a PTR answer
    /// carries its SRV and TXT, but none of this host's addresses, which are not the service's.
    @Test func itsSRVNamesTheOtherHostAndNoAddressOfThisOneGoesWithIt() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 3)
        let instance = Names.instance("Printer")
        network.register(Services.registration("Printer", hostName: Self.printerHost), on: publisher)
        let announced = Self.sentTargets(of: instance, by: publisher, in: network, since: .zero)
        #expect(!announced.isEmpty && announced.allSatisfy { $0 == Self.printerHost }, "\(announced)")

        network.run(for: .seconds(5))
        let start = network.now
        network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let response = try #require(network.sentMessages(.responses, by: publisher, since: start).first)
        #expect(response.answers(Names.serviceType, .ptr))
        let additionals = response.message.additionals
        #expect(Set(additionals.filter { $0.name == instance }.map(\.type)) == [.srv, .txt])
        #expect(!additionals.contains { $0.name == Self.alpha }, "\(additionals)")
    }

    /// Publishing for other hosts alone, a service on one and another's name, claims nothing of
    /// this host's: no question, probe or announcement names it (RFC 6762 §8.1 is for the names
    /// one publishes). A service on this host claims it, and takes it with goodbyes when it goes,
    /// while the others stay.
    @Test func onlyAServiceOnThisHostClaimsItsName() throws {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: 5)
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("Printer", hostName: Self.printerHost), at: now)
            _ = engine.register(
                OtherHostRegistration(label: "scanner", addresses: [.v4(IPv4Address(198, 18, 0, 78))]), at: now)
        }
        network.run(for: .seconds(10))
        func namesThisHost(_ message: Message) -> Bool {
            (message.questions.map(\.name) + (message.answers + message.authorities + message.additionals).map(\.name))
                .contains(Self.alpha)
        }
        #expect(!network.sentMessages(by: publisher, since: .zero).contains { namesThisHost($0.message) })
        #expect(network.events(of: publisher).count == 2)

        let web = network.register(Services.registration("Web"), on: publisher)
        let announced = network.sentMessages(.responses, by: publisher, since: .zero).flatMap(\.message.answers)
        #expect(announced.contains { $0.name == Self.alpha && $0.type == .a && $0.ttl > 0 })
        let withdrawn = network.now
        network.withStack(publisher) { engine, now in engine.deregister(web, at: now) }
        network.run(for: .seconds(1))
        let goodbyes = network.sentMessages(.responses, by: publisher, since: withdrawn).flatMap(\.message.answers)
        #expect(goodbyes.contains { $0.name == Self.alpha && $0.type == .a && $0.ttl == 0 })
        #expect(!goodbyes.contains { $0.name == Names.instance("Printer") }, "\(goodbyes)")
    }

    /// A host name that is this host's own is this host: its addresses go with the service's
    /// answers.
    @Test func thisHostsOwnNameIsThisHost() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 3)
        network.register(Services.registration("Printer", hostName: Self.alpha), on: publisher)
        network.run(for: .seconds(5))
        let start = network.now
        network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let response = try #require(network.sentMessages(.responses, by: publisher, since: start).first)
        #expect(response.message.additionals.contains { $0.name == Self.alpha && $0.type == .a })
    }

    /// When this host is renamed (§9), a service on this host announces its SRV record again
    /// with the new name (§8.4); one on another host has nothing new to say.
    @Test func aRenameOfThisHostLeavesItAlone() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 9)
        network.register(Services.registration("Web"), on: publisher)
        network.register(Services.registration("Printer", hostName: Self.printerHost), on: publisher)
        let conflictAt = network.now
        let impostor = ResourceRecord(
            name: Self.alpha, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 200)))
        network.inject(Messages.response([impostor]), from: observer, on: link)
        network.defend(until: network.now + .seconds(6), by: observer, on: link, with: impostor) { $0 == Self.alpha }

        let renamedAt = try #require(
            network.timedEvents(of: publisher).first { $0.event == .hostRenamed(from: Self.alpha, to: Self.alpha2) }?
                .time)
        let web = Self.sentTargets(of: Names.instance("Web"), by: publisher, in: network, since: renamedAt)
        #expect(web.count >= 2 && web.allSatisfy { $0 == Self.alpha2 }, "\(web)")
        #expect(Self.sentTargets(of: Names.instance("Printer"), by: publisher, in: network, since: conflictAt).isEmpty)
    }

    /// This host, renamed after a conflict (§9), passes over the name of the other host a
    /// service points to: taking it would point the service at this host.
    @Test func thisHostIsNotRenamedOntoTheOtherHostsName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 11)
        network.register(Services.registration("Web"), on: publisher)
        network.register(Services.registration("Printer", hostName: Self.alpha2), on: publisher)
        let impostor = ResourceRecord(
            name: Self.alpha, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 200)))
        network.inject(Messages.response([impostor]), from: observer, on: link)
        network.defend(until: network.now + .seconds(6), by: observer, on: link, with: impostor) { $0 == Self.alpha }
        #expect(network.engine(publisher).hostName == Names.name("alpha-3.local."))
    }

    /// A service on this host waits for this host's name to be settled before it is announced,
    /// so that no one resolves it to a name still being fought over (here lost, and renamed);
    /// one on another host does not wait. Whether the wait shows depends on when the conflict
    /// comes, so it is asked of one seed among a few.
    @Test func itDoesNotWaitForThisHostsName() throws {
        var waited = 0
        for seed in UInt64(1)...4 {
            var network = SimulatedNetwork(seed: seed)
            let link = network.addLink()
            let owner = network.addHost(named: "alpha", links: [link])
            network.register(Services.registration("Owned"), on: owner)
            let newcomer = network.addHost(named: "alpha", links: [link])
            let (web, printer) = network.withStack(newcomer) { engine, now in
                (
                    engine.register(Services.registration("Web"), at: now),
                    engine.register(Services.registration("Printer", hostName: Self.printerHost), at: now)
                )
            }
            network.run(for: .seconds(10))
            #expect(network.engine(newcomer).hostName == Self.alpha2)
            let registered = network.timedEvents(of: newcomer).compactMap { entry -> (RegistrationID, Instant)? in
                if case .registered(let id, _) = entry.event { (id, entry.time) } else { nil }
            }
            let webAt = try #require(registered.first { $0.0 == web }?.1)
            let printerAt = try #require(registered.first { $0.0 == printer }?.1)
            #expect(printerAt <= webAt, "seed \(seed)")
            if printerAt < webAt { waited += 1 }
        }
        #expect(waited > 0)
    }
}
