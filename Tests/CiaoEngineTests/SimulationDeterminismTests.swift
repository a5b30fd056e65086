import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// The same seed gives the same run, byte for byte; another seed gives another run.
@Suite struct SimulationDeterminismTests {
    /// Five hosts on a lossy, duplicating, reordering link, publishing and browsing for a minute.
    private func run(seed: UInt64) -> [SimulatedNetwork.Transmission] {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(
            SimulatedNetwork.Conditions(
                loss: 0.2, delay: .milliseconds(1)...(.milliseconds(80)), duplication: 0.1))
        let hosts = (0..<5).map { network.addHost(named: "host\($0)", links: [link]) }
        for (index, host) in hosts.enumerated() {
            _ = network.withStack(host) { engine, now in
                engine.register(Services.registration("Shared \(index % 2)"), at: now)
            }
            _ = network.withStack(host) { engine, now in
                engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
            }
        }
        network.run(for: .seconds(60))
        return network.transmissions
    }

    @Test func sameSeedSameBytes() {
        let first = run(seed: 77)
        let second = run(seed: 77)
        #expect(first.count > 50)
        #expect(first.map(\.time) == second.map(\.time))
        #expect(first.map(\.sender) == second.map(\.sender))
        #expect(first.map(\.datagram) == second.map(\.datagram))
        #expect(run(seed: 78).map(\.datagram) != first.map(\.datagram))
    }
}
