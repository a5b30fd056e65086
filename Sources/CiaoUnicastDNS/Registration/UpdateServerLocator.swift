import CiaoWire

/// Finds the zone a registration goes into and the server that takes its updates, by queries
/// the caller makes (RFC 2136 §4: updates go to the zone's primary; RFC 6763 §11's update
/// service): SOA from the name upwards until one is found, then, unless the server is given,
/// the zone's `_dns-update._udp` SRV, else the SOA's primary (MNAME) on port 53, then that
/// host's address.
public struct UpdateServerLocator: Hashable, Sendable {
    /// The next thing to do.
    public enum Step: Hashable, Sendable {
        /// Ask for `type` at `name` and hand the result to ``answered(_:)``.
        case query(DomainName, RecordType)
        /// The zone, and the server to send updates to.
        case found(zone: DomainName, server: DNSServer)
        case failed(RegistrationError)
    }

    /// The SRV name of a zone's update service (RFC 6763 §11 lists `_dns-update._udp`).
    public static let updateServiceLabels = ["_dns-update", "_udp"]

    private enum Phase: Hashable, Sendable {
        case zone(asking: DomainName)
        case updateService(zone: DomainName, primary: DomainName)
        case address(zone: DomainName, host: DomainName, port: UInt16, type: RecordType)
        case done
    }

    private let explicitServer: DNSServer?
    private var phase: Phase

    /// A locator for the zone holding `name` (a service type's name in the domain, say);
    /// `server`, when given, takes the updates whatever the zone says.
    public init(name: DomainName, server: DNSServer? = nil) {
        self.explicitServer = server
        self.phase = .zone(asking: name)
    }

    /// The first query.
    public var firstStep: Step {
        guard case .zone(let name) = phase else { return .failed(.invalidUpdate("the locator has already started")) }
        return .query(name, .soa)
    }

    /// Takes the result of the last ``Step/query(_:_:)`` and says what to do next.
    public mutating func answered(_ result: Result<DNSAnswer, UnicastDNSError>) -> Step {
        switch (phase, result) {
        case (.done, _):
            return .failed(.invalidUpdate("the locator has already finished"))
        case (.zone(let name), .failure(let error)):
            return finish(.failed(.zoneNotFound(name: name, reason: error.description)))
        case (.zone(let name), .success(let answer)):
            if let soa = answer.records.lazy.filter({ $0.name == name }).compactMap(\.data.soa).first {
                if let explicitServer { return finish(.found(zone: name, server: explicitServer)) }
                let service = try? DomainName(labels: Self.updateServiceLabels).appending(name)
                guard let service else { return lookUpAddress(zone: name, host: soa.primaryServer, port: 53) }
                phase = .updateService(zone: name, primary: soa.primaryServer)
                return .query(service, .srv)
            }
            guard !name.isRoot, !name.parent.isRoot else {
                return finish(.failed(.zoneNotFound(name: name, reason: "no SOA record above it")))
            }
            phase = .zone(asking: name.parent)
            return .query(name.parent, .soa)
        case (.updateService(let zone, let primary), let result):
            // Without an update service (or when asking for it fails) the primary takes updates.
            let srv = (try? result.get())?.records.lazy.compactMap { record -> SRVData? in
                if case .srv(let srv) = record.data, !srv.target.isRoot { srv } else { nil }
            }.first
            return lookUpAddress(zone: zone, host: srv?.target ?? primary, port: srv?.port ?? 53)
        case (.address(let zone, let host, let port, let type), let result):
            let records = (try? result.get())?.records ?? []
            for record in records {
                switch record.data {
                case .a(let address): return finish(.found(zone: zone, server: DNSServer(.ipv4(address), port: port)))
                case .aaaa(let address):
                    return finish(.found(zone: zone, server: DNSServer(.ipv6(address), port: port)))
                default: continue
                }
            }
            guard type == .a else {
                return finish(.failed(.zoneNotFound(name: zone, reason: "its update server \(host) has no address")))
            }
            phase = .address(zone: zone, host: host, port: port, type: .aaaa)
            return .query(host, .aaaa)
        }
    }

    private mutating func lookUpAddress(zone: DomainName, host: DomainName, port: UInt16) -> Step {
        phase = .address(zone: zone, host: host, port: port, type: .a)
        return .query(host, .a)
    }

    private mutating func finish(_ step: Step) -> Step {
        phase = .done
        return step
    }
}
