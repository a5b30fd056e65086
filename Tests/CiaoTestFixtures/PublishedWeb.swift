import CiaoEngine
import CiaoSimulation

/// Host "alpha" publishing "Web" (of ``Names/serviceType``) and host "beta" beside it, on
/// `linkCount` links, five seconds on: the service is announced and nothing is browsed yet.
public struct PublishedWeb {
    public var network: SimulatedNetwork
    public var links: [SimulatedNetwork.LinkID]
    public var publisher: SimulatedNetwork.HostID
    public var browser: SimulatedNetwork.HostID
    public var registration: RegistrationID

    public init(seed: UInt64, linkCount: Int = 1) {
        network = SimulatedNetwork(seed: seed)
        var links: [SimulatedNetwork.LinkID] = []
        for _ in 0..<linkCount { links.append(network.addLink()) }
        self.links = links
        publisher = network.addHost(named: "alpha", links: links)
        browser = network.addHost(named: "beta", links: links)
        registration = network.withStack(publisher) { engine, now in
            engine.register(Services.registration("Web"), at: now)
        }
        network.run(for: .seconds(5))
    }
}
