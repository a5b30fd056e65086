import CiaoWire

/// A set of unique records under one name that the engine owns, probes and defends: a service
/// instance (SRV, TXT) or the host name (A, AAAA). RFC 6762 §8, §9.
struct Registration {
    enum Kind: Equatable {
        case service(ServiceRegistration)
        case host
    }

    /// Where the name is in its life (RFC 6762 §8).
    enum State: Equatable {
        /// Sending probe `sent + 1` of three at `next` (§8.1).
        case probing(sent: Int, next: Instant)
        /// Sending announcement `sent + 1` at `next` (§8.3).
        case announcing(sent: Int, next: Instant)
        case established
    }

    /// TTL of records that carry a host name (RFC 6762 §10).
    static let hostRecordTTL: UInt32 = 120
    /// TTL of the other records (RFC 6762 §10).
    static let otherRecordTTL: UInt32 = 4500
    /// Announcements after probing; intervals double from one second (RFC 6762 §8.3).
    static let announcementCount = 3

    var kind: Kind
    /// The instance label (services) or host label (the host name), without the domain.
    var label: String {
        didSet {
            name = Self.fullName(kind: kind, label: label)
            publishedNames = Self.publishedNames(kind: kind, name: name)
        }
    }
    /// The full name this registration owns, kept with ``label``.
    private(set) var name: DomainName
    /// Every owner name this registration publishes records under: its own name, and for a
    /// service the type, its subtypes and the type enumeration name. Kept with ``label``, since
    /// answering checks it for every registration and question.
    private(set) var publishedNames: Set<DomainName>
    var state: State
    /// Times of recent conflicts, for the 15-in-10-seconds rule (RFC 6762 §8.1).
    var conflictTimes: [Instant] = []
    /// Probing slowly after a conflict storm, until the storm ends (RFC 6762 §8.1).
    var isThrottled = false

    var service: ServiceRegistration? {
        if case .service(let service) = kind { return service }
        return nil
    }

    private static func publishedNames(kind: Kind, name: DomainName) -> Set<DomainName> {
        guard case .service(let service) = kind else { return [name] }
        return Set([name, service.serviceType, serviceEnumerationName(for: service.serviceType)] + subtypeNames(of: service))
    }

    /// `<subtype>._sub.<type>` for each subtype (RFC 6763 §7.1); invalid labels are left out.
    private static func subtypeNames(of service: ServiceRegistration) -> [DomainName] {
        service.subtypes.compactMap { try? DomainName(labels: [$0, "_sub"]).appending(service.serviceType) }
    }

    /// `<label>.<service type>` or `<label>.local.`.
    private static func fullName(kind: Kind, label: String) -> DomainName {
        switch kind {
        case .service(let service):
            (try? service.serviceType.prepending(label: Array(label.utf8))) ?? service.serviceType
        case .host:
            (try? DomainName(labels: [label, "local"])) ?? .root
        }
    }

    func appliesTo(_ interface: InterfaceID) -> Bool {
        service?.interfaces.map { $0.contains(interface) } ?? true
    }

    /// The records this registration publishes on `interface`, given the host's name. Unique
    /// records carry the cache-flush bit. Host records list every address of the interface, IPv4
    /// and IPv6, whichever family carries them, and an NSEC naming the families present (§6.1).
    func records(hostName: DomainName, interface: NetworkInterface) -> [ResourceRecord] {
        switch kind {
        case .host:
            var records = interface.addresses.map {
                ResourceRecord(name: name, cacheFlush: true, ttl: Self.hostRecordTTL, data: $0.address.recordData)
            }
            records += [nsec(types: Set(records.map(\.type)))]
            return records
        case .service(let service):
            let instance = name
            var records = [
                ResourceRecord(
                    name: instance, cacheFlush: true, ttl: Self.hostRecordTTL,
                    data: .srv(SRVData(port: service.port, target: hostName))),
                ResourceRecord(name: instance, cacheFlush: true, ttl: Self.otherRecordTTL, data: .txt(service.txt)),
                ResourceRecord(name: service.serviceType, ttl: Self.otherRecordTTL, data: .ptr(instance)),
            ]
            for subtypeName in Self.subtypeNames(of: service) {
                records.append(ResourceRecord(name: subtypeName, ttl: Self.otherRecordTTL, data: .ptr(instance)))
            }
            records.append(
                ResourceRecord(name: Self.serviceEnumerationName(for: service.serviceType), ttl: Self.otherRecordTTL,
                               data: .ptr(service.serviceType)))
            records.append(nsec(types: [.srv, .txt]))
            return records
        }
    }

    /// The records proposed in probes: the unique records except NSEC (RFC 6762 §8.2).
    func probeRecords(hostName: DomainName, interface: NetworkInterface) -> [ResourceRecord] {
        records(hostName: hostName, interface: interface).filter { $0.cacheFlush && $0.type != .nsec }
    }

    /// `_services._dns-sd._udp.<domain>` for the domain of `serviceType` (RFC 6763 §9).
    static func serviceEnumerationName(for serviceType: DomainName) -> DomainName {
        let domain = serviceType.parent.parent
        return (try? DomainName(labels: ["_services", "_dns-sd", "_udp"]).appending(domain)) ?? domain
    }

    private func nsec(types: Set<RecordType>) -> ResourceRecord {
        ResourceRecord(
            name: name, cacheFlush: true, ttl: Self.hostRecordTTL,
            data: .nsec(NSECData(nextDomainName: name, types: types)))
    }
}

extension Registration {
    /// A registration whose label is cut, at a character boundary, to the 63 bytes a DNS label
    /// holds (RFC 6763 §4.1.1): a longer one would give no valid name at all.
    init(kind: Kind, label: String, state: State) {
        self.kind = kind
        self.label = InstanceNamer.fitted(label)
        self.name = Self.fullName(kind: kind, label: self.label)
        self.publishedNames = Self.publishedNames(kind: kind, name: name)
        self.state = state
    }
}
