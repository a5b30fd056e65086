import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures

@testable import Ciao

/// Hosts running ``DiscoveryDriver`` on simulated links: what the runtime runs, without sockets.
typealias DriverNetwork = SimulatedNetworkOf<DiscoveryDriver>

extension DiscoveryDriver: SimulatedStack {
    public mutating func setInterface(_ interface: NetworkInterface, at now: Instant) {
        handle(.setInterface(interface), at: now)
    }
    public mutating func removeInterface(_ id: InterfaceID, at now: Instant) { handle(.removeInterface(id), at: now) }
    public mutating func receive(_ datagram: ReceivedDatagram, at now: Instant) -> DropReason? {
        handle(.receive(datagram), at: now)
    }
    public mutating func advance(to now: Instant) { handle(.advance, at: now) }
    public mutating func takeEvents() -> [BackendUpdate] { takeUpdates() }
}

/// Two hosts on one simulated link running ``DiscoveryDriver``, "alpha" (publisher, unless named
/// otherwise) and "beta" (browser).
struct DriverPair {
    var network = DriverNetwork(seed: 7)
    let link: DriverNetwork.LinkID
    let publisher: DriverNetwork.HostID
    let browser: DriverNetwork.HostID
    private var nextToken: UInt64 = 1

    init(publisherFamilies: Set<IPFamily> = [.v4, .v6], publisherName: String = "alpha") {
        link = network.addLink()
        network.families = publisherFamilies
        publisher = network.addHost(named: publisherName, links: [link], makeStack: DiscoveryDriver.init)
        network.families = [.v4, .v6]
        browser = network.addHost(named: "beta", links: [link], makeStack: DiscoveryDriver.init)
    }

    /// What the browser's browses reported, but the families PTR records came over (``heardOver``)
    /// and resolutions (``resolved``).
    var browseUpdates: [BrowseUpdate] {
        allBrowseUpdates.filter {
            switch $0 {
            case .heardOver, .resolved: false
            case .found, .removed, .fromThisHost, .resolutionFailed: true
            }
        }
    }

    /// The families each found service's PTR record came over, in the order reported.
    var heardOver: [(Service, Set<NetworkScope.AddressFamily>)] {
        allBrowseUpdates.compactMap {
            if case .heardOver(let service, let families) = $0 { (service, families) } else { nil }
        }
    }

    /// What the browser's resolutions reported: those of resolves and of resolving browses.
    var resolved: [ResolvedService] {
        network.events(of: browser).flatMap { update -> [ResolvedService] in
            switch update {
            case .resolved(_, let resolved): [resolved]
            case .browse(_, let updates): updates.compactMap { if case .resolved(let r) = $0 { r } else { nil } }
            default: []
            }
        }
    }

    var types: [ServiceType] {
        network.events(of: browser).compactMap { if case .serviceType(_, let type) = $0 { type } else { nil } }
    }

    /// The batches of record events the browser's lookups received.
    var recordBatches: [[RecordEvent]] {
        network.events(of: browser).compactMap { if case .records(_, let events) = $0 { events } else { nil } }
    }

    var publicationUpdates: [DriverNetwork.HostID: [PublicationUpdate]] {
        [publisher, browser].reduce(into: [:]) { result, host in
            result[host] = network.events(of: host).compactMap {
                if case .publication(_, let update) = $0 { update } else { nil }
            }
        }
    }

    private var allBrowseUpdates: [BrowseUpdate] {
        network.events(of: browser).flatMap { update -> [BrowseUpdate] in
            if case .browse(_, let updates) = update { updates } else { [] }
        }
    }

    /// Hands `command` to `host`'s driver now.
    mutating func send(_ command: DiscoveryDriver.Command, on host: DriverNetwork.HostID) {
        _ = network.withStack(host) { driver, now in driver.handle(.command(command), at: now) }
    }

    @discardableResult
    mutating func publish(_ publication: Publication, on host: DriverNetwork.HostID) -> BackendToken {
        let token = takeToken()
        send(.publish(publication, token), on: host)
        return token
    }

    /// Browses on the browser host, resolving everything found, as a discovery session does (by
    /// default within the API's default resolution timeout).
    @discardableResult
    mutating func browseAndResolve(
        _ type: ServiceType, subtype: String? = nil, resolutionTimeout: Duration = .seconds(10)
    ) -> BackendToken {
        let token = takeToken()
        send(.browse(type, subtype: subtype, resolutionTimeout: resolutionTimeout, token), on: browser)
        return token
    }

    /// Resolves `service` on the browser host; results go to ``resolved``.
    @discardableResult
    mutating func resolve(_ service: Service) -> BackendToken {
        let token = takeToken()
        send(.resolve(service, token), on: browser)
        return token
    }

    /// Enumerates service types on the browser host; they go to ``types``.
    mutating func browseTypes() {
        send(.browseTypes(takeToken()), on: browser)
    }

    /// Looks up records on the browser host; their events go to ``recordBatches``.
    @discardableResult
    mutating func lookUp(_ lookup: RecordLookup) -> BackendToken {
        let token = takeToken()
        send(.lookUp(lookup, token), on: browser)
        return token
    }

    /// Publishes `name` (port 9, empty TXT) on `host`, lets it settle for three seconds, then
    /// browses and resolves on the browser host for `duration`.
    mutating func publishThenBrowseAndResolve(
        _ name: String, type: ServiceType, on host: DriverNetwork.HostID, for duration: Duration
    ) {
        publish(
            Publication(name: name, type: type, port: 9, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: host)
        run(for: .seconds(3))
        browseAndResolve(type)
        run(for: duration)
    }

    mutating func run(for duration: Duration) {
        network.run(for: duration)
    }

    private mutating func takeToken() -> BackendToken {
        defer { nextToken += 1 }
        return BackendToken(rawValue: nextToken)
    }
}
