@testable import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// What the responder remembers of its own sending stays bounded however long it runs.
@Suite struct ResponderMemoryTests {
    /// A TXT record updated every minute for three hours: each version is a record of its own,
    /// announced once and never sent again. The last-multicast table keeps only what went out in
    /// the last 1125 s, a quarter of the longest TTL (the QU rule's horizon, RFC 6762 §5.4).
    @Test func lastMulticastTableForgetsWhatNoRuleLooksAt() {
        var network = SimulatedNetwork(seed: 40)
        network.recordsTransmissions = false
        network.recordsEvents = false
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(5))
        func remembered() -> Int {
            network.engine(publisher).interfaces.states.map(\.multicastLog.count).reduce(0, +)
        }
        let afterStart = remembered()
        for minute in 1...180 {
            network.withStack(publisher) { engine, now in
                engine.updateTXT(id, to: Services.txt(["n=\(minute)"]), at: now)
            }
            network.run(for: .seconds(60))
        }
        // The versions of the last 19 minutes (and the one announced as the sweep ran) besides
        // what was there after the start.
        #expect(remembered() <= afterStart + 20, "remembered \(remembered()), \(afterStart) after the start")
    }
}
