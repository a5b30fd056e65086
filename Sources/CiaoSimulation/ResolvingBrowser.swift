import CiaoEngine
import CiaoWire

/// A DNS-SD browser and resolver driven from engine events: on each PTR found it starts SRV and TXT
/// queries for the instance, and on each SRV an A and AAAA query for its target, as a resolver
/// would (RFC 6763 §4–§6). It timestamps when each instance was found and resolved, and keeps
/// every removal.
public struct ResolvingBrowser {
    public let host: SimulatedNetwork.HostID
    public let serviceType: DomainName
    /// Resolve instances (start SRV/TXT/address queries) as well as browse.
    public let resolves: Bool
    public private(set) var browse: QueryID?
    public private(set) var found: [DomainName: Instant] = [:]
    public private(set) var srv: [DomainName: (Instant, SRVData)] = [:]
    public private(set) var txt: [DomainName: Instant] = [:]
    public private(set) var address: [DomainName: Instant] = [:]
    public private(set) var removals: [(time: Instant, event: EngineEvent)] = []
    public private(set) var updates: [(time: Instant, event: EngineEvent)] = []
    private var queryKinds: [QueryID: RecordType] = [:]
    private var resolvingInstances: Set<DomainName> = []
    private var resolvingTargets: Set<DomainName> = []
    private var eventIndex = 0

    public init(host: SimulatedNetwork.HostID, serviceType: DomainName, resolves: Bool = true) {
        self.host = host
        self.serviceType = serviceType
        self.resolves = resolves
    }

    /// Starts browsing now. The browser follows the network's ``SimulatedNetwork/events``, so the
    /// network must record them.
    public mutating func start(_ network: inout SimulatedNetwork) {
        precondition(network.recordsEvents, "a ResolvingBrowser reads the network's recorded events")
        let type = serviceType
        browse = network.withStack(host) { engine, now in engine.startQuery(name: type, type: .ptr, at: now) }
        queryKinds[browse!] = .ptr
        pump(&network)
    }

    /// Instances found and fully resolved (SRV, TXT and the target's A record), with the time the
    /// last piece arrived.
    public var resolved: [DomainName: Instant] {
        var result: [DomainName: Instant] = [:]
        for (instance, foundAt) in found {
            guard let (srvAt, srvData) = srv[instance], let txtAt = txt[instance],
                let addressAt = address[srvData.target]
            else { continue }
            result[instance] = max(foundAt, srvAt, txtAt, addressAt)
        }
        return result
    }

    /// Handles the events recorded since the last call, starting resolver queries at the current time.
    public mutating func pump(_ network: inout SimulatedNetwork) {
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

    private mutating func handle(
        _ record: ResourceRecord, kind: RecordType, at time: Instant,
        _ network: inout SimulatedNetwork
    ) {
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
        let id = network.withStack(host) { engine, now in engine.startQuery(name: name, type: type, at: now) }
        queryKinds[id] = type
        // Records already cached are reported at once: handle them now, not after the next step.
        pump(&network)
    }
}

extension SimulatedNetwork {
    /// Runs the network in steps of `step` until `end` or until `done` holds, feeding `browsers`
    /// the new events after each step.
    public mutating func run(
        until end: Instant, step: Duration = .milliseconds(5),
        browsers: inout [ResolvingBrowser], until done: (([ResolvingBrowser]) -> Bool)? = nil
    ) {
        while now < end {
            run(until: min(now + step, end))
            for index in browsers.indices { browsers[index].pump(&self) }
            if let done, done(browsers) { return }
        }
    }
}
