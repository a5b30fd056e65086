import CiaoEngine
import CiaoSimulation
import CiaoWire
import Testing

@Suite struct BasicDiscoveryTests {
    @Test func browserFindsAndResolvesAService() throws {
        var network = SimulatedNetwork(seed: 1)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        let browser = network.addHost(named: "beta", links: [link])
        let registration = network.withEngine(publisher) { engine, now in engine.register(Support.service("Web"), at: now) }
        network.run(for: .seconds(3))
        #expect(network.events(of: publisher).contains(.registered(registration, name: Support.instance("Web"))))

        let browse = network.withEngine(browser) { engine, now in
            engine.startQuery(name: Support.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(1))
        #expect(network.browsed(browse, by: browser) == [Support.instance("Web")])
        // The answer carried SRV, TXT and addresses as additional records (RFC 6763 §12).
        let cached = network.engine(browser).cachedRecords(on: InterfaceID(1))
        #expect(Set(cached.map(\.type)).isSuperset(of: [.ptr, .srv, .txt, .a, .aaaa]))
    }
}
