import CiaoEngine
import CiaoSimulation
import CiaoWire

/// Test helpers for the querier and cache: a browser that resolves what it finds the way a DNS-SD
/// resolver does, and raw injection of responses and queries from observer hosts.
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
    static func inject(_ bytes: [UInt8], from observer: SimulatedNetwork.HostID, on link: SimulatedNetwork.LinkID,
                       port: UInt16 = mdnsPort, family: IPFamily = .v4, into network: inout SimulatedNetwork) {
        let source = SocketAddress(network.address(of: observer, on: link, family: family), port: port)
        network.inject(bytes, from: observer, on: link, source: source)
    }

    /// The records a publisher with one service would announce: PTR, SRV, TXT and A.
    static func serviceRecords(instance: DomainName, host: DomainName, address: IPv4Address, port: UInt16 = 80,
                               txt: String = "v=1", ttl: UInt32 = 120, ptrTTL: UInt32 = 4500) -> [ResourceRecord] {
        [
            ResourceRecord(name: instance.parent, ttl: ptrTTL, data: .ptr(instance)),
            ResourceRecord(name: instance, cacheFlush: true, ttl: ttl, data: .srv(SRVData(port: port, target: host))),
            ResourceRecord(name: instance, cacheFlush: true, ttl: ptrTTL,
                           data: .txt(try! TXTData(strings: [Array(txt.utf8)]))),
            ResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .a(address)),
        ]
    }

    /// Runs the network in steps of `step` until `end` or until `done` holds, feeding `browser`
    /// the new events after each step.
    static func run(_ network: inout SimulatedNetwork, until end: Instant, step: Duration = .milliseconds(5),
                    browsers: inout [ResolvingBrowser], until done: (([ResolvingBrowser]) -> Bool)? = nil) {
        while network.now < end {
            network.run(until: min(network.now + step, end))
            for index in browsers.indices { browsers[index].pump(&network) }
            if let done, done(browsers) { return }
        }
    }
}

/// A DNS-SD browser and resolver driven from engine events: on each PTR found it starts SRV and TXT
/// queries for the instance, and on each SRV an A and AAAA query for its target, as a resolver
/// would (RFC 6763 §4–§6). It timestamps when each instance was found and resolved, and keeps
/// every removal.
struct ResolvingBrowser {
    let host: SimulatedNetwork.HostID
    let serviceType: DomainName
    /// Resolve instances (start SRV/TXT/address queries) as well as browse.
    let resolves: Bool
    private(set) var browse: QueryID?
    private(set) var found: [DomainName: Instant] = [:]
    private(set) var srv: [DomainName: (Instant, SRVData)] = [:]
    private(set) var txt: [DomainName: Instant] = [:]
    private(set) var address: [DomainName: Instant] = [:]
    private(set) var removals: [(time: Instant, event: EngineEvent)] = []
    private(set) var updates: [(time: Instant, event: EngineEvent)] = []
    private var queryKinds: [QueryID: RecordType] = [:]
    private var resolvingInstances: Set<DomainName> = []
    private var resolvingTargets: Set<DomainName> = []
    private var eventIndex = 0

    init(host: SimulatedNetwork.HostID, serviceType: DomainName = Support.serviceType, resolves: Bool = true) {
        self.host = host
        self.serviceType = serviceType
        self.resolves = resolves
    }

    /// Starts browsing now.
    mutating func start(_ network: inout SimulatedNetwork) {
        let type = serviceType
        browse = network.withEngine(host) { engine, now in engine.startQuery(name: type, type: .ptr, at: now) }
        queryKinds[browse!] = .ptr
        pump(&network)
    }

    /// Instances found and fully resolved (SRV, TXT and the target's A record), with the time the
    /// last piece arrived.
    var resolved: [DomainName: Instant] {
        var result: [DomainName: Instant] = [:]
        for (instance, foundAt) in found {
            guard let (srvAt, srvData) = srv[instance], let txtAt = txt[instance],
                let addressAt = address[srvData.target]
            else { continue }
            result[instance] = max(foundAt, srvAt, txtAt, addressAt)
        }
        return result
    }

    /// Handles the events since the last call, starting resolver queries at the current time.
    mutating func pump(_ network: inout SimulatedNetwork) {
        while eventIndex < network.events.count {
            let timed = network.events[eventIndex]
            eventIndex += 1
            guard timed.host == host else { continue }
            switch timed.event {
            case .added(let query, let record, _), .updated(let query, let record, _):
                if case .updated = timed.event { updates.append((timed.time, timed.event)) }
                guard let kind = queryKinds[query] else { continue }
                handle(record, kind: kind, at: timed.time, &network)
            case .removed(let query, _, _) where queryKinds[query] != nil:
                removals.append((timed.time, timed.event))
            default:
                break
            }
        }
    }

    private mutating func handle(_ record: ResourceRecord, kind: RecordType, at time: Instant,
                                 _ network: inout SimulatedNetwork) {
        switch (kind, record.data) {
        case (.ptr, .ptr(let instance)):
            if found[instance] == nil { found[instance] = time }
            if resolves && resolvingInstances.insert(instance).inserted {
                for type in [RecordType.srv, .txt] { start(instance, type, &network) }
            }
        case (.srv, .srv(let data)):
            if srv[record.name] == nil { srv[record.name] = (time, data) }
            if resolvingTargets.insert(data.target).inserted {
                for type in [RecordType.a, .aaaa] { start(data.target, type, &network) }
            }
        case (.txt, .txt):
            if txt[record.name] == nil { txt[record.name] = time }
        case (.a, .a):
            if address[record.name] == nil { address[record.name] = time }
        default:
            break
        }
    }

    private mutating func start(_ name: DomainName, _ type: RecordType, _ network: inout SimulatedNetwork) {
        let id = network.withEngine(host) { engine, now in engine.startQuery(name: name, type: type, at: now) }
        queryKinds[id] = type
        // Records already cached are reported at once: handle them now, not after the next step.
        pump(&network)
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
    func messages(from host: HostID, after start: Instant = .zero, family: IPFamily? = nil) -> [(time: Instant, message: Message)] {
        sentMessages(by: host, family: family).filter { $0.time >= start }
    }

    /// Adds `count` services named `"<prefix> <n>"` to `host` and runs until all are registered.
    mutating func registerServices(_ count: Int, prefix: String = "Service", type: DomainName = Support.serviceType,
                                   on host: HostID) -> [RegistrationID] {
        let ids = (0..<count).map { index in
            withEngine(host) { engine, now in
                var service = Support.service("\(prefix) \(index)", port: UInt16(8000 + index % 1000))
                service.serviceType = type
                return engine.register(service, at: now)
            }
        }
        return ids
    }
}
