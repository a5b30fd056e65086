import CiaoEngine
import CiaoSimulation
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
        for sent in network.sent(by: host, family: family) where sent.isMulticast && sent.isResponse {
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
        let id = network.withEngine(publisher) { engine, now in engine.register(Support.service("Web"), at: now) }
        let names: [(DomainName, RecordType)] = [
            (Support.serviceType, .ptr), (Support.instance("Web"), .srv), (Support.instance("Web"), .txt),
            (Responder.name("alpha.local."), .a), (Responder.name("alpha.local."), .aaaa),
        ]
        for step in 0..<200 {
            if step == 60 {
                network.withEngine(publisher) { engine, now in engine.updateTXT(id, to: Responder.txt(["v=2"]), at: now)
                }
            }
            let observer = observers[step % 2]
            let (name, type) = names[step % names.count]
            let family: IPFamily = step % 3 == 0 ? .v6 : .v4
            network.inject(
                Responder.query([Responder.question(name, type)]), from: observer, on: link,
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
}
