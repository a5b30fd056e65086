import CiaoEngine
import CiaoSimulation
import CiaoWire

/// The wire benchmark's (e) line in virtual time: one host publishes `services` services and is
/// left to settle; then a browser with an empty cache joins, and every copy of every datagram on
/// the link is lost with probability `loss`. The browser resolves each instance it finds (SRV,
/// TXT, the target's address) as a DNS-SD client does. Each seed is one run; the spread over
/// seeds shows what the retry schedule gives under loss: query rounds 1 s, 2 s, 4 s… apart
/// (RFC 6762 §5.2), each carrying the known answers (§7.1, split with TC, §7.2).
struct LossScenario {
    static let serviceType = try! DomainName(parsing: "_lossy._tcp.local.")

    /// One seed's run: when each service was resolved, from the browser's start.
    struct Run {
        var seed: UInt64
        var resolvedAfter: [Duration]
        var datagrams: Int

        /// The share of `services` resolved within `limit`.
        func share(of services: Int, within limit: Duration) -> Double {
            Double(resolvedAfter.filter { $0 <= limit }.count) / Double(services)
        }
    }

    let services: Int
    let loss: Double
    /// How long each run watches the browser, in virtual time.
    var limit: Duration = .seconds(30)

    func run(seed: UInt64) -> Run {
        var network = SimulatedNetwork(seed: seed)
        network.recordsTransmissions = false
        let link = network.addLink()
        let publisher = network.addHost(named: "publisher", links: [link])
        for index in 0..<services {
            let service = ServiceRegistration(
                instanceName: "Service \(index)", serviceType: Self.serviceType, port: UInt16(8000 + index % 1000),
                txt: try! TXTData(strings: [Array("v=1".utf8)]), allowsRenaming: false)
            _ = network.withEngine(publisher) { engine, now in engine.register(service, at: now) }
        }
        // Probing and announcing are over well within this, without loss.
        network.run(for: .seconds(15))
        network.setConditions(.init(loss: loss), on: link)
        let before = network.transmissionCount
        var browsers = [ResolvingBrowser(host: network.addHost(named: "browser", links: [link]), serviceType: Self.serviceType)]
        let start = network.now
        browsers[0].start(&network)
        network.run(until: start + limit, browsers: &browsers) { $0[0].resolved.count == services }
        return Run(
            seed: seed, resolvedAfter: browsers[0].resolved.values.map { $0 - start }.sorted(),
            datagrams: network.transmissionCount - before)
    }
}
