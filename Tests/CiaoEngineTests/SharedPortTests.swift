import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Another responder on this host shares the mDNS port, and Linux hands each unicast datagram to
/// the socket that bound it last: once one is heard, queries and probes over its family ask for
/// multicast replies only (RFC 6762 §15.1).
@Suite struct SharedPortTests {
    static let printer = Names.instance("Printer")

    /// A program that runs alone, with a printer on the link it has not heard from yet (its link
    /// was down while the printer announced), and then, when `daemonStarts`, another responder
    /// started beside it (avahi-daemon restarted): the program's replies are the daemon's from then on.
    static func programBesidePrinter(seed: UInt64, daemonStarts: Bool) -> (
        SimulatedNetwork, program: SimulatedNetwork.HostID, link: SimulatedNetwork.LinkID, interface: InterfaceID
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let program = network.addHost(named: "vm", links: [link])
        network.register(Services.registration("Program"), on: program)
        network.setLink(link, of: program, up: false)
        let printerHost = network.addHost(named: "printer", links: [link])
        network.register(Services.registration("Printer"), on: printerHost)
        network.setLink(link, of: program, up: true)
        network.run(for: .seconds(5))
        if daemonStarts {
            let daemon = network.addHost(named: "vm", links: [link], sharingAddressesOf: program)
            network.register(Services.registration("Daemon"), on: daemon)
        }
        return (network, program, link, SimulatedNetwork.interface(for: program, on: link).id)
    }

    /// Its own multicast, looped back, is no other responder: alone, the program keeps asking
    /// for unicast replies over both families, in its first query and in its probes.
    @Test func aloneTheFirstQueryAndProbesAskForUnicastReplies() throws {
        var (network, program, _, _) = Self.programBesidePrinter(seed: 1, daemonStarts: false)
        #expect(network.engine(program).unicastReplyFamilies == Set(IPFamily.allCases))
        let start = network.now
        network.withStack(program) { engine, now in _ = engine.startQuery(name: Self.printer, type: .srv, at: now) }
        network.register(Services.registration("Late"), on: program)
        let sent = network.sentMessages(by: program, family: nil, since: start)
        let query = try #require(sent.first { !$0.isProbe && $0.asks(about: Self.printer) })
        #expect(query.message.questions.allSatisfy { $0.unicastResponse })
        let probes = sent.filter { $0.isProbe && $0.asks(about: Names.instance("Late")) }
        #expect(Set(probes.map(\.family)) == Set(IPFamily.allCases))
        #expect(probes.allSatisfy { $0.message.questions.allSatisfy { $0.unicastResponse } })
    }

    /// Once the daemon is heard, the first query asks for multicast replies, so the printer's
    /// answer reaches the program at once instead of the daemon.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aResponderStartedLaterEndsUnicastReplies(seed: UInt64) throws {
        var (network, program, _, interface) = Self.programBesidePrinter(seed: seed, daemonStarts: true)
        #expect(network.engine(program).unicastReplyFamilies.isEmpty)
        let start = network.now
        network.withStack(program) { engine, now in _ = engine.startQuery(name: Self.printer, type: .srv, at: now) }
        network.run(for: .milliseconds(500))
        let queries = network.sentMessages(.queries, by: program, family: nil, since: start)
        #expect(!queries.isEmpty && queries.allSatisfy { $0.message.questions.allSatisfy { !$0.unicastResponse } })
        #expect(
            network.engine(program).cachedRecords(on: interface).contains {
                $0.name == Self.printer && $0.type == .srv
            })
    }

    /// Probes after the daemon is heard ask for multicast replies too.
    @Test func probesAfterAResponderIsHeardAskForMulticastReplies() throws {
        var (network, program, _, _) = Self.programBesidePrinter(seed: 2, daemonStarts: true)
        let start = network.now
        network.register(Services.registration("Late"), on: program)
        let probes = network.sentMessages(by: program, family: nil, since: start).filter {
            $0.isProbe && $0.asks(about: Names.instance("Late"))
        }
        #expect(Set(probes.map(\.family)) == Set(IPFamily.allCases))
        #expect(probes.allSatisfy { $0.message.questions.allSatisfy { !$0.unicastResponse } })
    }

    /// A responder heard over IPv4 alone ends unicast replies over IPv4 only: the first query and
    /// the probes ask for them over IPv6 still. A querier on this host on another port (`dig -p
    /// 5353`) is no responder sharing ours.
    @Test func aResponderHeardOverOneFamilyEndsUnicastRepliesOverIt() throws {
        var (network, program, link, _) = Self.programBesidePrinter(seed: 6, daemonStarts: false)
        let observer = network.addHost(named: nil, links: [link])
        let own = network.address(of: program, on: link, family: .v4)
        let question = Messages.query([Messages.question(Names.serviceType, .ptr)])
        network.inject(question, from: observer, on: link, port: 49152, sourceAddress: own)
        network.run(for: .seconds(1))
        #expect(network.engine(program).unicastReplyFamilies == Set(IPFamily.allCases))
        network.inject(question, from: observer, on: link, sourceAddress: own)
        network.run(for: .seconds(1))
        #expect(network.engine(program).unicastReplyFamilies == [.v6])
        // Asked of nobody, so that it goes over both families.
        let nobody = Names.instance("Nobody")
        let start = network.now
        network.withStack(program) { engine, now in _ = engine.startQuery(name: nobody, type: .srv, at: now) }
        network.register(Services.registration("Late"), on: program)
        let sent = network.sentMessages(by: program, family: nil, since: start)
        for family in IPFamily.allCases {
            let query = try #require(sent.first { $0.family == family && !$0.isProbe && $0.asks(about: nobody) })
            let probes = sent.filter { $0.family == family && $0.isProbe && $0.asks(about: Names.instance("Late")) }
            #expect(!probes.isEmpty)
            for message in [query] + probes {
                #expect(message.message.questions.allSatisfy { $0.unicastResponse == (family == .v6) }, "\(family)")
            }
        }
    }

    /// Our address from another link is not this host speaking: a responder here sends on every
    /// interface, from that interface's address.
    @Test func ourAddressHeardOnAnotherLinkIsNoResponderHere() {
        var network = SimulatedNetwork(seed: 7)
        let first = network.addLink()
        let second = network.addLink()
        let program = network.addHost(named: "vm", links: [first, second])
        let observer = network.addHost(named: nil, links: [first, second])
        network.run(for: .seconds(1))
        let question = Messages.query([Messages.question(Names.serviceType, .ptr)])
        let ownOnFirst = network.address(of: program, on: first, family: .v4)
        network.inject(question, from: observer, on: second, sourceAddress: ownOnFirst)
        network.run(for: .seconds(1))
        #expect(network.engine(program).unicastReplyFamilies == Set(IPFamily.allCases))
        network.inject(question, from: observer, on: first, sourceAddress: ownOnFirst)
        network.run(for: .seconds(1))
        #expect(network.engine(program).unicastReplyFamilies == [.v6])
    }

    /// What the engine cannot know: a socket bound on this host after ours that never sends (a
    /// listener) is handed the printer's unicast reply to the first query, which the program
    /// then misses until it asks again.
    @Test func aSilentSocketBoundLaterTakesTheUnicastReply() throws {
        var (network, program, link, interface) = Self.programBesidePrinter(seed: 3, daemonStarts: false)
        let listener = network.addHost(named: nil, links: [link], sharingAddressesOf: program)
        let start = network.now
        network.withStack(program) { engine, now in _ = engine.startQuery(name: Self.printer, type: .srv, at: now) }
        network.run(for: .milliseconds(500))
        #expect(network.received(by: listener).contains { !$0.isMulticast })
        #expect(
            !network.engine(program).cachedRecords(on: interface).contains {
                $0.name == Self.printer && $0.type == .srv
            })
        network.run(for: .seconds(1))
        #expect(
            network.sentMessages(.queries, by: program, since: start).count >= 2
                && network.engine(program).cachedRecords(on: interface).contains {
                    $0.name == Self.printer && $0.type == .srv
                })
    }

    /// The engine says so once per family, with the responder's address.
    @Test func theResponderHeardIsToldOncePerFamily() {
        var network = SimulatedNetwork(seed: 5)
        let link = network.addLink()
        let program = network.addHost(named: "vm", links: [link])
        network.withStack(program) { engine, _ in engine.reportsDiagnostics = true }
        network.register(Services.registration("Program"), on: program)
        let daemon = network.addHost(named: "vm", links: [link], sharingAddressesOf: program)
        network.register(Services.registration("Daemon"), on: daemon)
        network.register(Services.registration("Daemon 2"), on: daemon)
        let told = network.withStack(program) { engine, _ in
            engine.takeDiagnostics().compactMap { diagnostic -> IPFamily? in
                guard case .responderOnThisHost(let source, _) = diagnostic else { return nil }
                #expect(source.port == mdnsPort)
                return source.address.family
            }
        }
        #expect(told.sorted { $0 == .v4 && $1 == .v6 } == [.v4, .v6])
    }
}
