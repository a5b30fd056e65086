import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

@Suite struct BasicDiscoveryTests {
    @Test func browserFindsAndResolvesAService() throws {
        var (network, _, publisher, browser) = SimulatedNetwork.alphaAndBeta(seed: 1)
        let registration = network.withStack(publisher) { engine, now in
            engine.register(Services.registration("Web"), at: now)
        }
        network.run(for: .seconds(3))
        #expect(network.events(of: publisher).contains(.registered(registration, name: Names.instance("Web"))))

        let browse = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(1))
        #expect(network.browsed(browse, by: browser) == [Names.instance("Web")])
        // The answer carried SRV, TXT and addresses as additional records (RFC 6763 §12).
        let cached = network.engine(browser).cachedRecords(on: InterfaceID(1))
        #expect(Set(cached.map(\.type)).isSuperset(of: [.ptr, .srv, .txt, .a, .aaaa]))
    }

    /// A new browse asks QU first (RFC 6762 §5.4), and the publisher, having multicast its
    /// records moments ago, answers by unicast at once rather than after the 20–120 ms delay of
    /// shared answers (§6): the service and its SRV, TXT and addresses arrive one link crossing
    /// after the first query. The next query, QM, lists them as known: nothing is multicast.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func newBrowseIsAnsweredByUnicastAtOnce(seed: UInt64) throws {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        _ = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(10))

        let browser = network.addHost(named: "beta", links: [link])
        let start = network.now
        let browse = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(3))
        #expect(network.browsed(browse, by: browser) == [Names.instance("Web")])
        let firstQuery = try #require(
            network.sentMessages(by: browser, since: start).first { $0.asks(about: Names.serviceType) })
        #expect(firstQuery.message.questions.allSatisfy { $0.unicastResponse })
        let answers = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.answers(Names.serviceType, .ptr)
        }
        let unicast = try #require(answers.first)
        #expect(!unicast.isMulticast)
        #expect(unicast.time - firstQuery.time <= .milliseconds(1))
        #expect(Set(unicast.allRecords.map(\.type)).isSuperset(of: [.ptr, .srv, .txt, .a]))
        #expect(answers.count == 1, "the QM queries that follow list the answer as known")
    }
}
