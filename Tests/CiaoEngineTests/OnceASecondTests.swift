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
    /// a query 1.1 s after the making is not answered before 1.3 s.
    @Test func theSecondCountsFromWhenTheRecordLeft() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 21)
        network.register(Services.registration("Web"), on: publisher)
        let query = Messages.query([Messages.question(Names.serviceType, .ptr)])
        func ptrMulticasts(after start: Instant) -> [Instant] {
            network.sentMessages(by: publisher, family: .v4).filter {
                $0.time > start && $0.isMulticast && $0.answers(Names.serviceType, .ptr)
            }.map(\.time)
        }
        network.run(for: .seconds(2))
        let start = network.now
        network.inject(query, from: observer, on: link)
        while ptrMulticasts(after: start).isEmpty { network.run(for: .milliseconds(1)) }
        let made = ptrMulticasts(after: start)[0]
        network.withStack(publisher) { engine, _ in engine.noteSent(at: made + .milliseconds(300)) }
        network.run(until: made + .milliseconds(1100))
        network.inject(query, from: observer, on: link)
        network.run(for: .seconds(1))
        let again = ptrMulticasts(after: made)
        #expect(!again.isEmpty)
        #expect(again.allSatisfy { $0 >= made + .milliseconds(1300) })
    }
}
