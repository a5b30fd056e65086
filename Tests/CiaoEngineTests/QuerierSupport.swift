import CiaoEngine
import CiaoSimulation
import CiaoWire

/// Test helpers for the querier and cache: raw injection of responses and queries from observer
/// hosts, the records a publisher would send, and network setup.
enum Querier {
    static let otherServiceType = try! DomainName(parsing: "_other._udp.local.")

    static func name(_ text: String) -> DomainName { try! DomainName(parsing: text) }

    /// A response header (QR, AA) as an observer would send it.
    static func response(_ answers: [ResourceRecord], additionals: [ResourceRecord] = []) -> [UInt8] {
        try! Message(header: .response(), answers: answers, additionals: additionals).encoded()
    }

    static func query(_ questions: [Question], knownAnswers: [ResourceRecord] = []) -> [UInt8] {
        try! Message(questions: questions, answers: knownAnswers).encoded()
    }

    /// Sends `bytes` multicast from an observer host's address of `family` on `link`.
    static func inject(
        _ bytes: [UInt8], from observer: SimulatedNetwork.HostID, on link: SimulatedNetwork.LinkID,
        port: UInt16 = mdnsPort, family: IPFamily = .v4, into network: inout SimulatedNetwork
    ) {
        let source = SocketAddress(network.address(of: observer, on: link, family: family), port: port)
        network.inject(bytes, from: observer, on: link, source: source)
    }

    /// The records a publisher with one service would announce: PTR, SRV, TXT and A.
    static func serviceRecords(
        instance: DomainName, host: DomainName, address: IPv4Address, port: UInt16 = 80,
        txt: String = "v=1", ttl: UInt32 = 120, ptrTTL: UInt32 = 4500
    ) -> [ResourceRecord] {
        [
            ResourceRecord(name: instance.parent, ttl: ptrTTL, data: .ptr(instance)),
            ResourceRecord(name: instance, cacheFlush: true, ttl: ttl, data: .srv(SRVData(port: port, target: host))),
            ResourceRecord(
                name: instance, cacheFlush: true, ttl: ptrTTL,
                data: .txt(try! TXTData(strings: [Array(txt.utf8)]))),
            ResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .a(address)),
        ]
    }
}

extension ResolvingBrowser {
    /// A browser of ``Support/serviceType``.
    init(host: SimulatedNetwork.HostID, resolves: Bool = true) {
        self.init(host: host, serviceType: Support.serviceType, resolves: resolves)
    }
}

extension SimulatedNetwork {
    /// A link with an observer host (no engine: it injects what a test needs) and a browser host
    /// "beta", run for `settle` so that the browser has its name.
    static func observerAndBrowser(seed: UInt64, settle: Duration) -> (SimulatedNetwork, LinkID, HostID, HostID) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let browser = network.addHost(named: "beta", links: [link])
        network.run(for: settle)
        return (network, link, observer, browser)
    }

    /// Datagrams sent by `host` after `start`, decoded; over one family when `family` is given.
    func messages(from host: HostID, after start: Instant = .zero, family: IPFamily? = nil) -> [(
        time: Instant, message: Message
    )] {
        sentMessages(by: host, family: family).filter { $0.time >= start }
    }

    /// Adds `count` services named `"<prefix> <n>"` to `host` and runs until all are registered.
    mutating func registerServices(
        _ count: Int, prefix: String = "Service", type: DomainName = Support.serviceType,
        on host: HostID
    ) -> [RegistrationID] {
        let ids = (0..<count).map { index in
            withStack(host) { engine, now in
                var service = Support.service("\(prefix) \(index)", port: UInt16(8000 + index % 1000))
                service.serviceType = type
                return engine.register(service, at: now)
            }
        }
        return ids
    }
}
