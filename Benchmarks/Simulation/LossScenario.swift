import CiaoEngine
import CiaoSimulation
import CiaoWire

/// The wire benchmark's (e) line in virtual time: one host publishes `services` services and is
/// left to settle; then a browser with an empty cache joins, and every copy of every datagram on
/// the link is lost with probability `loss`. The browser resolves each instance it finds (SRV,
/// TXT, the target's address) as a DNS-SD client does. Each seed is one run, watched until all
/// are resolved or ``limit`` has passed; the spread over seeds shows what the retry schedule gives
/// under loss: query rounds 1 s, 2 s, 4 s… apart (RFC 6762 §5.2), each carrying the known answers
/// (§7.1, split with TC, §7.2).
struct LossScenario {
    static let serviceType = try! DomainName(parsing: "_lossy._tcp.local.")
    /// How long each run watches the browser, in virtual time: the (e) line's longer window.
    static let limit: Duration = .seconds(30)

    /// One seed's run.
    struct Run {
        /// The services published.
        var services: Int
        /// Each resolved service's time from the browser's start to its last record, in order.
        var resolvedAfter: [Duration]
        /// Datagrams sent on the link, by both hosts over both families, from the moment loss
        /// began until all were resolved or the limit passed.
        var datagrams: Int

        /// The share of the services resolved within `window`.
        func share(within window: Duration) -> Double {
            Double(resolvedAfter.filter { $0 <= window }.count) / Double(services)
        }

        /// When the last service was resolved; nil if some were not within the limit.
        var allResolvedAfter: Duration? { resolvedAfter.count == services ? resolvedAfter.last : nil }
    }

    let services: Int
    let loss: Double

    func run(seed: UInt64) -> Run {
        var network = SimulatedNetwork(seed: seed)
        network.recordsTransmissions = false
        let link = network.addLink()
        let publisher = network.addHost(named: "publisher", links: [link])
        for index in 0..<services {
            let service = ServiceRegistration(
                instanceName: "Service \(index)", serviceType: Self.serviceType, port: UInt16(8000 + index % 1000),
                txt: try! TXTData(strings: [Array("v=1".utf8)]), allowsRenaming: false)
            _ = network.withStack(publisher) { engine, now in engine.register(service, at: now) }
        }
        // Probing and announcing, without loss.
        network.run(for: .seconds(15))
        let registered = network.events.filter { timed in
            if case .registered = timed.event { timed.host == publisher } else { false }
        }
        precondition(registered.count == services, "the publisher registers every service before loss begins")
        network.setConditions(.init(loss: loss), on: link)
        let before = network.transmissionCount
        var browsers = [
            ResolvingBrowser(host: network.addHost(named: "browser", links: [link]), serviceType: Self.serviceType)
        ]
        let start = network.now
        browsers[0].start(&network)
        network.run(until: start + Self.limit, browsers: &browsers) { $0[0].resolved.count == services }
        return Run(
            services: services, resolvedAfter: browsers[0].resolved.values.map { $0 - start }.sorted(),
            datagrams: network.transmissionCount - before)
    }
}
