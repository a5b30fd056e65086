import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

@testable import CiaoEngine

/// What the engine tells a log: why each datagram goes out, why one is dropped, what it
/// received, and the conflicts it meets; none of it kept unless asked for.
@Suite struct EngineDiagnosticTests {
    /// Probes, announcements, answers, goodbyes and queries each say what they are, and say it
    /// truly: a probe is a query with proposed records, a goodbye a response of TTL 0 records.
    @Test func everyDatagramSaysWhyItGoesOut() throws {
        var network = SimulatedNetwork(seed: 11)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        let id = network.register(Services.registration("X"), on: publisher)
        // A browser that comes later has nothing cached: its query is answered.
        let browser = network.addHost(named: "beta", links: [link])
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(2))
        network.withStack(browser) { engine, _ in engine.stopQuery(query) }
        network.withStack(publisher) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(2))

        var seen: Set<OutgoingDatagram.Purpose> = []
        for transmission in network.transmissions {
            let message = try Message(decoding: transmission.datagram.bytes)
            let purpose = transmission.datagram.purpose
            seen.insert(purpose)
            switch purpose {
            case .probe: #expect(!message.header.isResponse && !message.authorities.isEmpty)
            case .query: #expect(!message.header.isResponse && message.authorities.isEmpty)
            case .goodbye: #expect(message.header.isResponse && message.answers.allSatisfy { $0.ttl == 0 })
            case .announcement, .answer: #expect(message.header.isResponse && message.answers.contains { $0.ttl > 0 })
            }
        }
        #expect(seen == [.probe, .announcement, .answer, .goodbye, .query])
    }

    @Test func aDroppedDatagramSaysWhy() throws {
        var network = SimulatedNetwork(seed: 12)
        let link = network.addLink()
        let host = network.addHost(named: "alpha", links: [link])
        network.run(for: .seconds(1))
        let interface = SimulatedNetwork.interface(for: host, on: link).id
        let peer = SocketAddress(.v4(IPv4Address(198, 18, 0, 77)), port: mdnsPort)
        var errorResponse = Messages.response([Services.ptr(to: Names.instance("Y"))])
        errorResponse.header.rcode = 2
        let response = try Messages.response([Services.ptr(to: Names.instance("Y"))]).encoded()
        let cases: [(ReceivedDatagram, DropReason?)] = [
            (
                ReceivedDatagram(bytes: [0, 0, 0], source: peer, interface: interface, isMulticast: true),
                .undecodable(DecodingError(.messageTooShort(length: 3), at: 0))
            ),
            (
                ReceivedDatagram(bytes: response, source: peer, interface: InterfaceID(99), isMulticast: true),
                .unknownInterface
            ),
            (
                ReceivedDatagram(
                    bytes: response, source: SocketAddress(.v4(IPv4Address(203, 0, 113, 9)), port: mdnsPort),
                    interface: interface, isMulticast: false), .offLink
            ),
            (
                ReceivedDatagram(
                    bytes: try errorResponse.encoded(), source: peer, interface: interface, isMulticast: true),
                .errorResponse(rcode: 2)
            ),
            (
                ReceivedDatagram(
                    bytes: response, source: SocketAddress(peer.address, port: 1234), interface: interface,
                    isMulticast: true),
                .responseFromOtherPort(1234)
            ),
            (ReceivedDatagram(bytes: response, source: peer, interface: interface, isMulticast: true), nil),
        ]
        for (datagram, expected) in cases {
            let reason = network.withStack(host) { engine, now in engine.receive(datagram, at: now) }
            #expect(reason == expected)
        }
    }

    /// Off, the engine keeps nothing; on, it keeps what it received and what it dropped, in order.
    @Test func diagnosticsAreKeptOnlyWhenAskedFor() throws {
        var network = SimulatedNetwork(seed: 13)
        let link = network.addLink()
        let host = network.addHost(named: "alpha", links: [link])
        network.run(for: .seconds(1))
        let interface = SimulatedNetwork.interface(for: host, on: link).id
        let peer = SocketAddress(.v4(IPv4Address(198, 18, 0, 77)), port: mdnsPort)
        let query = Messages.query([Messages.question(Names.serviceType, .ptr)])
        let datagrams = [
            ReceivedDatagram(bytes: try query.encoded(), source: peer, interface: interface, isMulticast: true),
            ReceivedDatagram(bytes: [1, 2, 3], source: peer, interface: interface, isMulticast: true),
        ]
        let off = network.withStack(host) { engine, now in
            for datagram in datagrams { engine.receive(datagram, at: now) }
            return engine.takeDiagnostics()
        }
        #expect(off.isEmpty)
        let on = network.withStack(host) { engine, now in
            engine.reportsDiagnostics = true
            for datagram in datagrams { engine.receive(datagram, at: now) }
            return engine.takeDiagnostics()
        }
        #expect(
            on == [
                .received(try Message(decoding: datagrams[0].bytes), from: peer, on: interface),
                .dropped(.undecodable(DecodingError(.messageTooShort(length: 3), at: 0)), from: peer, on: interface),
            ])
    }

    /// A message with an entry that no packet can hold, not even one of the largest size, is
    /// not sent, and the log says which and why.
    @Test func aMessageNoPacketCanHoldIsDiagnosed() throws {
        var engine = MDNSEngine(configuration: .init(hostLabel: "ciao"), seed: 1)
        engine.reportsDiagnostics = true
        let interface = InterfaceID(1)
        let oversized = ResourceRecord(
            name: Names.instance("X"), ttl: 4500,
            data: .txt(Services.txt(Array(repeating: String(repeating: "a", count: 240), count: 40))))
        let query = Message(questions: [Question(name: Names.instance("X"), type: .txt)], answers: [oversized])
        engine.send(query, on: interface, to: .multicast(.v4), purpose: .query)
        #expect(engine.takeDatagrams().isEmpty)
        let diagnostics = engine.takeDiagnostics()
        #expect(diagnostics.count == 1)
        guard case .unsendable(.query, .entryTooLarge(_, let maximumSize), let on)? = diagnostics.first else {
            Issue.record("not diagnosed as unsendable: \(diagnostics)")
            return
        }
        #expect(maximumSize == Message.maximumSize)
        #expect(on == interface)
    }

    /// A newcomer probing a name another host owns hears its defence: a conflict while probing,
    /// from the owner's address, then the rename.
    @Test func aConflictNamesTheOtherHost() throws {
        var (network, link, owner, newcomer) = SimulatedNetwork.alphaAndBeta(seed: 3)
        network.register(Services.registration("X"), on: owner)
        network.withStack(newcomer) { engine, _ in engine.reportsDiagnostics = true }
        network.register(Services.registration("X"), on: newcomer)
        let diagnostics = network.withStack(newcomer) { engine, _ in engine.takeDiagnostics() }
        let conflicts = diagnostics.compactMap { diagnostic -> (DomainName, SocketAddress, Bool)? in
            if case .conflict(let name, let source, _, let whileProbing) = diagnostic {
                (name, source, whileProbing)
            } else {
                nil
            }
        }
        let ownerAddresses = [IPFamily.v4, .v6].map { network.address(of: owner, on: link, family: $0) }
        #expect(!conflicts.isEmpty)
        for (name, source, whileProbing) in conflicts {
            #expect(name == Names.instance("X"))
            #expect(ownerAddresses.contains(source.address))
            #expect(whileProbing)
        }
    }

    /// Names won and lost reach the log as the events report them, only while asked for.
    @Test func namesWonAndLostAreDiagnosedWithTheirEvents() throws {
        var (network, _, owner, newcomer) = SimulatedNetwork.alphaAndBeta(seed: 3)
        network.register(Services.registration("X"), on: owner)
        network.withStack(newcomer) { engine, _ in engine.reportsDiagnostics = true }
        network.register(Services.registration("X"), on: newcomer)
        network.run(for: .seconds(3))
        let diagnostics = network.withStack(newcomer) { engine, _ in engine.takeDiagnostics() }
        let renamed = Names.instance("X (2)")
        #expect(diagnostics.contains(.renamed(from: Names.instance("X"), to: renamed)))
        #expect(diagnostics.contains(.registered(name: renamed)))
        let owners = network.withStack(owner) { engine, _ in engine.takeDiagnostics() }
        #expect(owners.isEmpty)
    }
}
