import CiaoEngine
import CiaoSimulation
import CiaoWire
import Testing

/// 200 services on one host, browsed and resolved from another over lossy links (RFC 6762 §5.2,
/// §7, §10; RFC 6763 §12).
@Suite struct QuerierScaleTests {
    static let serviceCount = 200

    /// A publisher with 200 registered services, settled (announcements over), and a browser host
    /// that joins afterwards with an empty cache.
    static func setUp(seed: UInt64, loss: Double) -> (
        SimulatedNetwork, SimulatedNetwork.HostID, ResolvingBrowser, Set<DomainName>
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        let ids = network.registerServices(serviceCount, on: publisher)
        network.run(for: .seconds(15))
        let registered = Set(
            network.events(of: publisher).compactMap { event -> DomainName? in
                if case .registered(_, let name) = event { return name }
                return nil
            })
        precondition(registered.count == ids.count, "the publisher registers every service without loss")
        network.setConditions(.init(loss: loss), on: link)
        let browserHost = network.addHost(named: "beta", links: [link])
        return (network, publisher, ResolvingBrowser(host: browserHost), registered)
    }

    @Test(arguments: [(loss: 0.10, limit: 10), (loss: 0.30, limit: 60)])
    func twoHundredServicesAreFoundAndResolved(loss: Double, limit: Int) {
        var (network, _, browser, expected) = Self.setUp(seed: 200, loss: loss)
        var browsers = [browser]
        browsers[0].start(&network)
        let start = network.now
        network.run(until: start + .seconds(Int64(limit) + 30), browsers: &browsers) {
            $0[0].resolved.count == expected.count
        }
        browser = browsers[0]
        #expect(Set(browser.found.keys) == expected)
        #expect(Set(browser.resolved.keys) == expected)
        let lastFound = browser.found.values.max().map { $0 - start }
        let lastResolved = browser.resolved.values.max().map { $0 - start }
        print(
            "200 services at \(Int(loss * 100)) % loss: all found after \(lastFound.map { "\($0)" } ?? "never"), all resolved after \(lastResolved.map { "\($0)" } ?? "never")"
        )
        #expect(lastFound.map { $0 <= .seconds(Int64(limit)) } == true)
        #expect(lastResolved.map { $0 <= .seconds(Int64(limit)) } == true)
        #expect(browser.removals.isEmpty)
    }

    /// Continuous queries and refreshes at 80–95 % of the TTL keep every record alive: the SRV and
    /// address records live 120 s, so over ten minutes each is refreshed about six times.
    @Test(.long) func noSpuriousRemovalsOverTenMinutesAtTenPercentLoss() {
        var (network, _, browser, expected) = Self.setUp(seed: 201, loss: 0.10)
        network.recordsTransmissions = false
        var browsers = [browser]
        browsers[0].start(&network)
        let start = network.now
        network.run(until: start + .seconds(600), step: .milliseconds(50), browsers: &browsers)
        browser = browsers[0]
        #expect(Set(browser.resolved.keys) == expected)
        #expect(
            browser.removals.isEmpty,
            "\(browser.removals.count) removals, first: \(browser.removals.first.map { "\($0)" } ?? "-")")
        // Still cached at the end: every SRV, TXT and PTR, and the address.
        let cached = network.engine(browser.host).cachedRecords(on: InterfaceID(1))
        #expect(Set(cached.filter { $0.type == .srv }.map(\.name)) == expected)
        #expect(Set(cached.filter { $0.type == .txt }.map(\.name)) == expected)
        print("10 min at 10 % loss: \(browser.removals.count) removals, \(network.transmissionCount) datagrams")
    }
}
