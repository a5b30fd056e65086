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

    /// A truncated query past the 64 held is turned away before it costs anything: the engine's
    /// random sequence, on which every later delay depends, goes on as if it never came.
    @Test func truncatedQueriesPastTheLimitAreTurnedAwayUntouched() throws {
        let interface = NetworkInterface(
            id: InterfaceID(1), name: "veth0",
            addresses: [InterfaceAddress(.v4(IPv4Address(198, 18, 0, 1)), prefixLength: 24)])
        var engine = MDNSEngine(configuration: .init(hostLabel: "alpha"), seed: 3)
        engine.setInterface(interface, at: .zero)
        let query = try Messages.query([Messages.question(Names.serviceType, .ptr)], truncated: true).encoded()
        func receive(from last: Int, into engine: inout MDNSEngine) {
            let source = SocketAddress(
                .v4(IPv4Address(198, 18, UInt8(last / 250), UInt8(2 + last % 250))), port: mdnsPort)
            engine.receive(
                ReceivedDatagram(bytes: query, source: source, interface: interface.id, isMulticast: true),
                at: .zero + .milliseconds(10))
        }
        for last in 0..<ResponseQueue.maximumHeldQueries { receive(from: last, into: &engine) }
        var flooded = engine
        for last in ResponseQueue.maximumHeldQueries..<(ResponseQueue.maximumHeldQueries + 10) {
            receive(from: last, into: &flooded)
        }
        #expect(flooded.random.next() == engine.random.next())
    }
}
