import CiaoEngine
import CiaoSimulation
import CiaoWire

extension SimulatedNetworkOf where Stack == MDNSEngine {
    /// One lossless link (1 ms delay unless `conditions` say otherwise) with a publisher host
    /// `hostName` and an observer host (no engine: it injects what a test needs), run two seconds
    /// so that the publisher owns its host name.
    public static func publisherAndObserver(
        seed: UInt64, hostName: String = "alpha", conditions: Conditions = .init()
    ) -> (network: Self, link: LinkID, publisher: HostID, observer: HostID) {
        var network = Self(seed: seed)
        let link = network.addLink(conditions)
        let publisher = network.addHost(named: hostName, links: [link])
        let observer = network.addHost(named: nil, links: [link])
        network.run(for: .seconds(2))
        return (network, link, publisher, observer)
    }

    /// One link (lossless, 1 ms delay unless `conditions` say otherwise) with hosts "alpha" and
    /// "beta", added in that order and not yet run.
    public static func alphaAndBeta(
        seed: UInt64, conditions: Conditions = .init()
    ) -> (network: Self, link: LinkID, alpha: HostID, beta: HostID) {
        var network = Self(seed: seed)
        let link = network.addLink(conditions)
        let alpha = network.addHost(named: "alpha", links: [link])
        let beta = network.addHost(named: "beta", links: [link])
        return (network, link, alpha, beta)
    }

    /// One link with an observer host and a browser host "beta" (with a cache of `cacheCapacity`
    /// records), run for `settle` so that the browser has its name.
    public static func observerAndBrowser(
        seed: UInt64, settle: Duration, cacheCapacity: Int = 4096
    ) -> (Self, LinkID, HostID, HostID) {
        var network = Self(seed: seed)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let browser = network.addHost(named: "beta", links: [link], cacheCapacity: cacheCapacity)
        network.run(for: settle)
        return (network, link, observer, browser)
    }

    /// Registers `service` on `host` and runs five seconds, until it is probed and announced.
    @discardableResult
    public mutating func register(_ service: ServiceRegistration, on host: HostID) -> RegistrationID {
        let id = withStack(host) { engine, now in engine.register(service, at: now) }
        run(for: .seconds(5))
        return id
    }

    /// Registers `count` services of `type` named `"<prefix> <n>"` on `host` now, without running.
    public mutating func registerServices(
        _ count: Int, prefix: String = "Service", type: DomainName = Names.serviceType, on host: HostID
    ) -> [RegistrationID] {
        (0..<count).map { index in
            withStack(host) { engine, now in
                engine.register(
                    Services.registration("\(prefix) \(index)", type: type, port: UInt16(8000 + index % 1000)),
                    at: now)
            }
        }
    }
}
