import CiaoEngine
import CiaoSimulation
import CiaoWire

enum Support {
    static let serviceType = try! DomainName(parsing: "_ciao._tcp.local.")

    static func service(_ name: String, port: UInt16 = 8080, txt: [String] = ["v=1"], allowsRenaming: Bool = true)
        -> ServiceRegistration
    {
        ServiceRegistration(
            instanceName: name, serviceType: serviceType, port: port,
            txt: try! TXTData(strings: txt.map { Array($0.utf8) }), allowsRenaming: allowsRenaming)
    }

    static func instance(_ name: String) -> DomainName {
        try! serviceType.prepending(label: Array(name.utf8))
    }
}

extension SimulatedNetwork {
    /// Events of one host, in order.
    func events(of host: HostID) -> [EngineEvent] {
        events.filter { $0.host == host }.map(\.event)
    }

    /// PTR targets currently reported present for a query (added minus removed), from the events.
    func browsed(_ query: QueryID, by host: HostID) -> Set<DomainName> {
        var present: Set<DomainName> = []
        for event in events(of: host) {
            switch event {
            case .added(query, let record, _):
                if case .ptr(let target) = record.data { present.insert(target) }
            case .removed(query, let record, _):
                if case .ptr(let target) = record.data { present.remove(target) }
            default: break
            }
        }
        return present
    }

    /// Decoded messages sent by `host` (multicast and unicast), with their times; over one family
    /// when `family` is given.
    func sentMessages(by host: HostID, family: IPFamily? = nil) -> [(time: Instant, message: Message)] {
        transmissions.filter { $0.sender == host && (family == nil || $0.datagram.family == family) }.compactMap {
            transmission in
            (try? Message(decoding: transmission.datagram.bytes)).map { (transmission.time, $0) }
        }
    }
}

/// Host "alpha" publishing "Web" and host "beta" beside it, on `linkCount` links, after five seconds.
struct PublishedWeb {
    var network: SimulatedNetwork
    var links: [SimulatedNetwork.LinkID]
    var publisher: SimulatedNetwork.HostID
    var browser: SimulatedNetwork.HostID
    var registration: RegistrationID

    init(seed: UInt64, linkCount: Int = 1) {
        network = SimulatedNetwork(seed: seed)
        var links: [SimulatedNetwork.LinkID] = []
        for _ in 0..<linkCount { links.append(network.addLink()) }
        self.links = links
        publisher = network.addHost(named: "alpha", links: links)
        browser = network.addHost(named: "beta", links: links)
        registration = network.withStack(publisher) { engine, now in engine.register(Support.service("Web"), at: now) }
        network.run(for: .seconds(5))
    }
}
