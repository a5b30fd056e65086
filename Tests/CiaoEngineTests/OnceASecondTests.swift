import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// RFC 6762 §6: a record is multicast on an interface at most once a second, however busy the
/// responder: answers, held-back answers, announcements and refutations alike (probe defence,
/// at most every 250 ms, is the one exception, §8.1).
@Suite struct OnceASecondTests {
    /// The times each record (name, type, data) went out by multicast over `family`.
    static func multicasts(by host: SimulatedNetwork.HostID, in network: SimulatedNetwork, family: IPFamily)
        -> [String: [Instant]]
    {
        var times: [String: [Instant]] = [:]
        for sent in network.sentMessages(by: host, family: family) where sent.isMulticast && sent.isResponse {
            for record in sent.message.answers where record.ttl > 0 {
                times["\(record.name) \(record.type) \(record.data)", default: []].append(sent.time)
            }
        }
        return times
    }

    /// Queries every 50 ms, from two hosts and both families, for every name a publisher
    /// announces, while it registers, announces, updates its TXT record and settles: no record
    /// goes out twice within a second on either family.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func noRecordIsMulticastTwiceWithinASecond(seed: UInt64) throws {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(.init(delay: .microseconds(200)...(.milliseconds(2))))
        let publisher = network.addHost(named: "alpha", links: [link])
        let observers = [network.addHost(named: nil, links: [link]), network.addHost(named: nil, links: [link])]
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        let names: [(DomainName, RecordType)] = [
            (Names.serviceType, .ptr), (Names.instance("Web"), .srv), (Names.instance("Web"), .txt),
            (Names.name("alpha.local."), .a), (Names.name("alpha.local."), .aaaa),
        ]
        for step in 0..<200 {
            if step == 60 {
                network.withStack(publisher) { engine, now in engine.updateTXT(id, to: Services.txt(["v=2"]), at: now)
                }
            }
            let observer = observers[step % 2]
            let (name, type) = names[step % names.count]
            let family: IPFamily = step % 3 == 0 ? .v6 : .v4
            network.inject(
                Messages.query([Messages.question(name, type)]), from: observer, on: link,
                sourceAddress: network.address(of: observer, on: link, family: family))
            network.run(for: .milliseconds(50))
        }
        for family in IPFamily.allCases {
            for (record, times) in Self.multicasts(by: publisher, in: network, family: family) {
                for (earlier, later) in zip(times, times.dropFirst()) {
                    #expect(later - earlier >= .seconds(1), "\(family) \(record): \(earlier) then \(later)")
                }
            }
        }
    }

    /// The second counts from when a record left, as the transport says (`noteSent(at:)`), not
    /// from when the engine made the datagram: with a datagram that left 300 ms after it was made,
    /// a query 1.1 s after the making is not answered before 1.3 s. A lone engine, since the
    /// simulated network notes each datagram sent as it takes it.
    @Test func theSecondCountsFromWhenTheRecordLeft() throws {
        let interface = NetworkInterface(
            id: InterfaceID(1), name: "veth0",
            addresses: [InterfaceAddress(.v4(IPv4Address(198, 18, 0, 1)), prefixLength: 24)])
        let querier = SocketAddress(.v4(IPv4Address(198, 18, 0, 2)), port: mdnsPort)
        var engine = MDNSEngine(configuration: .init(hostLabel: "alpha"), seed: 21)
        engine.setInterface(interface, at: .zero)
        _ = engine.register(Services.registration("Web"), at: .zero)
        let query = try Messages.query([Messages.question(Names.serviceType, .ptr)]).encoded()
        /// Runs the engine in 1 ms steps from `start` for `duration`, each datagram noted sent as
        /// it is taken; the times PTR answers were multicast.
        func ptrMulticasts(from start: Instant, for duration: Duration) throws -> [Instant] {
            var times: [Instant] = []
            var now = start
            while now < start + duration {
                engine.advance(to: now)
                for datagram in engine.takeDatagrams() where datagram.purpose == .answer {
                    if try Message(decoding: datagram.bytes).answers.contains(where: { $0.type == .ptr }) {
                        times.append(now)
                    }
                }
                engine.noteSent(at: now)
                now = now + .milliseconds(1)
            }
            return times
        }
        _ = try ptrMulticasts(from: .zero, for: .seconds(3))
        let asked = Instant.zero + .seconds(3)
        engine.receive(
            ReceivedDatagram(bytes: query, source: querier, interface: interface.id, isMulticast: true), at: asked)
        var made = asked
        while engine.takeDatagrams().isEmpty {
            made = made + .milliseconds(1)
            engine.advance(to: made)
        }
        engine.noteSent(at: made + .milliseconds(300))
        _ = try ptrMulticasts(from: made + .milliseconds(1), for: .milliseconds(1099))
        engine.receive(
            ReceivedDatagram(bytes: query, source: querier, interface: interface.id, isMulticast: true),
            at: made + .milliseconds(1100))
        let again = try ptrMulticasts(from: made + .milliseconds(1100), for: .seconds(1))
        #expect(!again.isEmpty)
        #expect(again.allSatisfy { $0 >= made + .milliseconds(1300) })
    }
}
