import CiaoWire

/// A set of unique records under one name that the engine owns, probes and defends: a service
/// instance (SRV, TXT), the host name (A, AAAA, and the reverse-mapping PTRs of its addresses,
/// RFC 6762 §4) or another host's name and addresses (A, AAAA, and likewise their reverse-mapping
/// PTRs). RFC 6762 §8, §9. Its state changes only through the transitions at the end of this file.
struct Registration {
    enum Kind: Equatable {
        case service(ServiceRegistration)
        case host
        /// Another host's name with the addresses given, published for it (a proxy).
        case otherHost(OtherHostRegistration)
    }

    /// Where the name is in its life (RFC 6762 §8).
    enum State: Equatable {
        /// Sending probe `sent + 1` of three at `next` (§8.1).
        case probing(sent: Int, next: Instant)
        /// Sending announcement `sent + 1` at `next` (§8.3).
        case announcing(sent: Int, next: Instant)
        case established
        /// No interface it applies to is up: probing starts when one comes (§8.1).
        case waitingForInterface
    }

    /// TTL of records that carry a host name (RFC 6762 §10).
    static let hostRecordTTL: UInt32 = 120
    /// TTL of the other records (RFC 6762 §10).
    static let otherRecordTTL: UInt32 = 4500
    /// Probes before a name is ours, this far apart (RFC 6762 §8.1).
    static let probeCount = 3
    static let probeInterval: Duration = .milliseconds(250)
    /// Announcements after probing; intervals double from one second (RFC 6762 §8.3).
    static let announcementCount = 3

    private(set) var kind: Kind {
        didSet { (name, publishedNames, hostIndependentRecords, otherHost) = Self.derived(kind: kind, label: label) }
    }
    /// The instance label (services) or host label (this host's name or another's), without the domain.
    private(set) var label: String {
        didSet { (name, publishedNames, hostIndependentRecords, otherHost) = Self.derived(kind: kind, label: label) }
    }
    /// The full name this registration owns, kept with ``label``.
    private(set) var name: DomainName
    /// Every owner name this registration publishes records under: its own name, for a service
    /// the type, its subtypes and the type enumeration name, and for another host the
    /// reverse-mapping names of its addresses. Kept with ``label``, since
    /// answering checks it for every registration and question.
    private(set) var publishedNames: Set<DomainName>
    /// The records that name neither this host nor an interface: a service's after its SRV record
    /// (TXT, the PTRs and the NSEC), or all of another host's (its addresses and NSEC). Kept with
    /// ``kind`` and ``label``, since answering reads a registration's records for every question
    /// it answers.
    private var hostIndependentRecords: [ResourceRecord]
    /// The other host this registration's records name: a service's SRV target when that is not
    /// this host (``ServiceRegistration/hostName``), or another host's own name; nil for this
    /// host. Kept with ``kind``, since answering asks it of every registration it answers for.
    private(set) var otherHost: DomainName?
    private(set) var state: State
    /// True once an announcement of the current name went out: only then are goodbyes owed (§10.1).
    private(set) var hasAnnounced = false
    /// True once the current name of a service was reported won (``EngineEvent/registered(_:name:)``):
    /// only then do the engine's own queries see its records.
    private(set) var hasReportedRegistered = false
    /// The record types the announcements under way carry; nil for all. A TXT update announces
    /// its TXT alone (§8.4: what changed).
    private(set) var announcedTypes: Set<RecordType>?
    /// The reverse-mapping names (``IPAddress/reverseMappingName``) of the addresses published:
    /// this host's on any interface, kept by the engine as interfaces change, or another host's,
    /// those it was given; none for a service.
    private(set) var reverseNames: Set<DomainName> = []
    /// Reverse-mapping names that another responder maps to another name: ours is left out rather
    /// than defended, since a reverse mapping is worth no conflict (RFC 6762 §4).
    private(set) var yieldedReverseNames: Set<DomainName> = []
    /// Another host's reverse-mapping names of addresses of this host (an alias), left to this
    /// host's own mapping while this host's name is published (§4).
    private(set) var reverseNamesLeftToThisHost: Set<DomainName> = []
    /// The records of the answer that sent the established name back to probing (§9).
    private(set) var conflictReprobe: Set<RecordKey>?
    /// Times of recent conflicts, for the 15-in-10-seconds rule (RFC 6762 §8.1).
    private(set) var conflictTimes: [Instant] = []
    /// Probing slowly after a conflict storm, until the storm ends (RFC 6762 §8.1).
    private(set) var isThrottled = false

    var service: ServiceRegistration? {
        if case .service(let service) = kind { return service }
        return nil
    }

    /// What ``kind`` and ``label`` determine: the name, the published names and the records
    /// that do not depend on the host.
    private static func derived(kind: Kind, label: String) -> (
        name: DomainName, publishedNames: Set<DomainName>, hostIndependentRecords: [ResourceRecord],
        otherHost: DomainName?
    ) {
        let name = fullName(kind: kind, label: label)
        if case .otherHost(let otherHost) = kind {
            let reverseNames = otherHost.addresses.map(\.reverseMappingName)
            return (name, Set([name] + reverseNames), addressRecords(of: otherHost.addresses, name: name), name)
        }
        guard case .service(let service) = kind else { return (name, [name], [], nil) }
        let subtypeNames = subtypeNames(of: service)
        let enumerationName = serviceEnumerationName(for: service.serviceType)
        var records = [
            ResourceRecord(name: name, cacheFlush: true, ttl: otherRecordTTL, data: .txt(service.txt)),
            ResourceRecord(name: service.serviceType, ttl: otherRecordTTL, data: .ptr(name)),
        ]
        for subtypeName in subtypeNames {
            records.append(ResourceRecord(name: subtypeName, ttl: otherRecordTTL, data: .ptr(name)))
        }
        records.append(ResourceRecord(name: enumerationName, ttl: otherRecordTTL, data: .ptr(service.serviceType)))
        records.append(nsec(name: name, types: [.srv, .txt]))
        return (name, Set([name, service.serviceType, enumerationName] + subtypeNames), records, service.hostName)
    }

    /// `<subtype>._sub.<type>` for each subtype (RFC 6763 §7.1); invalid labels are left out.
    private static func subtypeNames(of service: ServiceRegistration) -> [DomainName] {
        service.subtypes.compactMap { try? service.serviceType.subtypeName($0) }
    }

    /// `<label>.<service type>` or `<label>.local.`.
    private static func fullName(kind: Kind, label: String) -> DomainName {
        switch kind {
        case .service(let service):
            (try? service.serviceType.prepending(label: Array(label.utf8))) ?? service.serviceType
        case .host, .otherHost:
            (try? DomainName(labels: [label, "local"])) ?? .root
        }
    }

    /// True when this registration publishes records under `name` (one of ``publishedNames``);
    /// the host publishes under its own name alone, which compares without hashing, and its
    /// reverse-mapping names.
    func publishes(_ name: DomainName) -> Bool {
        if case .host = kind {
            return name == self.name || publishesReverseMapping(name)
        }
        return publishedNames.contains(name)
    }

    /// True when `name` is the reverse-mapping name of an address this registration publishes,
    /// and not yielded to another responder (§4).
    func publishesReverseMapping(_ name: DomainName) -> Bool {
        holdsReverseMapping(name) && !reverseNamesLeftToThisHost.contains(name)
    }

    /// True when `name` is the reverse-mapping name of one of this registration's addresses,
    /// not yielded to another responder, whether or not it is left to this host's own for now.
    func holdsReverseMapping(_ name: DomainName) -> Bool {
        reverseNames.contains(name) && !yieldedReverseNames.contains(name)
    }

    /// True when `record` belongs to the answer that sent this name back to probing and no probe
    /// has gone out since: its copy over the other family, which the probes are there to settle (§9).
    func isReprobing(after record: ResourceRecord) -> Bool {
        guard let conflictReprobe, case .probing(sent: 0, _) = state else { return false }
        return conflictReprobe.contains(RecordKey(record))
    }

    /// True when this registration's records name this host: the host's own, or a service's
    /// whose SRV record points to this host rather than to another (``ServiceRegistration/hostName``).
    var namesThisHost: Bool {
        otherHost == nil
    }

    /// On a conflict, whether the name may change (RFC 6762 §9): a service's as it asks; the
    /// host's always; another host's never, since that host is known by its name.
    var allowsRenaming: Bool {
        switch kind {
        case .host: true
        case .service(let service): service.allowsRenaming
        case .otherHost: false
        }
    }

    func appliesTo(_ interface: InterfaceID) -> Bool {
        switch kind {
        case .host: true
        case .service(let service): service.interfaces.map { $0.contains(interface) } ?? true
        case .otherHost(let otherHost): otherHost.interfaces.map { $0.contains(interface) } ?? true
        }
    }

    /// The records this registration publishes on `interface`, given the host's name. Unique
    /// records carry the cache-flush bit. The host's records are its address records (the
    /// interface's ``NetworkInterface/publishedAddresses``, IPv4 and IPv6, whichever family
    /// carries them), an NSEC naming the families present (§6.1), then a reverse-mapping PTR per
    /// address (§4). Another host's are the same for the addresses given.
    func records(hostName: DomainName, interface: NetworkInterface) -> [ResourceRecord] {
        switch kind {
        case .otherHost(let otherHost):
            return hostIndependentRecords + reverseMappingRecords(of: otherHost.addresses)
        case .host:
            let addresses = interface.publishedAddresses.map(\.address)
            return addressRecords(of: addresses) + reverseMappingRecords(of: addresses)
        case .service(let service):
            let srv = ResourceRecord(
                name: name, cacheFlush: true, ttl: Self.hostRecordTTL,
                data: .srv(SRVData(port: service.port, target: service.hostName ?? hostName)))
            return [srv] + hostIndependentRecords
        }
    }

    /// The host's A and AAAA records for `addresses`, with the NSEC naming the types present (§6.1).
    func addressRecords(of addresses: [IPAddress]) -> [ResourceRecord] {
        Self.addressRecords(of: addresses, name: name)
    }

    /// A PTR from the reverse-mapping name of each of `addresses` to this registration's name,
    /// but for the names yielded (§4).
    private func reverseMappingRecords(of addresses: [IPAddress]) -> [ResourceRecord] {
        addresses.compactMap { address in
            let reverseName = address.reverseMappingName
            guard publishesReverseMapping(reverseName) else { return nil }
            return ResourceRecord(name: reverseName, cacheFlush: true, ttl: Self.hostRecordTTL, data: .ptr(name))
        }
    }

    /// A and AAAA records of `name` for `addresses`, with the NSEC naming the types present (§6.1).
    private static func addressRecords(of addresses: [IPAddress], name: DomainName) -> [ResourceRecord] {
        var records = addresses.map {
            ResourceRecord(name: name, cacheFlush: true, ttl: hostRecordTTL, data: $0.recordData)
        }
        records.append(nsec(name: name, types: records.map(\.type)))
        return records
    }

    /// The records proposed in probes: the unique records except NSEC (RFC 6762 §8.2), and for
    /// another host except its reverse-mapping PTRs, which are asked about only
    /// (``reverseNamesAskedAboutWhileProbing``).
    func probeRecords(hostName: DomainName, interface: NetworkInterface) -> [ResourceRecord] {
        let proposed = records(hostName: hostName, interface: interface).filter { $0.cacheFlush && $0.type != .nsec }
        guard case .otherHost = kind else { return proposed }
        return proposed.filter { $0.name == name }
    }

    /// Another host's reverse-mapping names, which its probes ask about beside the names of the
    /// records proposed (§8.1); none for this host or a service. Asked about but not proposed, a
    /// reverse name is answered by a responder that maps it already, and ours yielded, while a
    /// proposal would make this host yield its own mapping to an alias of its address (§4).
    var reverseNamesAskedAboutWhileProbing: [DomainName] {
        guard case .otherHost = kind else { return [] }
        return reverseNames.filter(publishesReverseMapping).sorted { $0.description < $1.description }
    }

    /// `_services._dns-sd._udp.<domain>` for the domain of `serviceType` (RFC 6763 §9).
    static func serviceEnumerationName(for serviceType: DomainName) -> DomainName {
        let domain = serviceType.parent.parent
        return (try? DomainName.serviceTypeEnumerationName(in: domain)) ?? domain
    }

    private static func nsec(name: DomainName, types: [RecordType]) -> ResourceRecord {
        ResourceRecord(
            name: name, cacheFlush: true, ttl: Self.hostRecordTTL,
            data: .nsec(NSECData(nextDomainName: name, types: types)))
    }
}

extension Registration {
    /// A registration waiting for an interface to probe on, whose label is cut, at a character
    /// boundary, to the 63 bytes a DNS label holds (RFC 6763 §4.1.1): a longer one would give no
    /// valid name at all.
    init(kind: Kind, label: String) {
        self.kind = kind
        self.label = InstanceNamer.fitted(label)
        (name, publishedNames, hostIndependentRecords, otherHost) = Self.derived(kind: kind, label: self.label)
        if case .otherHost = kind { reverseNames = publishedNames.subtracting([name]) }
        state = .waitingForInterface
    }
}

/// Every change of a registration's ``Registration/State`` and of what the state machine keeps
/// beside it (RFC 6762 §8, §9).
extension Registration {
    /// True until the name is ours: probing, or waiting for an interface to probe on.
    var isProbing: Bool {
        switch state {
        case .probing, .waitingForInterface: true
        case .announcing, .established: false
        }
    }

    var isAnnouncing: Bool {
        if case .announcing = state { return true }
        return false
    }

    /// When the next probe or announcement is due; nil when none is.
    var nextDue: Instant? {
        switch state {
        case .probing(_, let next), .announcing(_, let next): next
        case .established, .waitingForInterface: nil
        }
    }

    /// When the first probe of the current sequence goes out, while none has gone yet.
    var firstProbe: Instant? {
        if case .probing(sent: 0, let next) = state { return next }
        return nil
    }

    /// True when a probe or an announcement is due at `now`.
    func isDue(at now: Instant) -> Bool {
        nextDue.map { $0 <= now } ?? false
    }

    /// A new probe sequence, its first probe at `first` (§8.1).
    mutating func startProbing(at first: Instant) {
        state = .probing(sent: 0, next: first)
    }

    /// Waits for an interface to probe on, as a name not announced (§8.1).
    mutating func waitForInterface() {
        state = .waitingForInterface
    }

    /// A claim started afresh: nothing announced, waiting for an interface to probe on.
    mutating func restartClaim() {
        hasAnnounced = false
        state = .waitingForInterface
    }

    /// One more probe went out; the next step is due at `next` (§8.1).
    mutating func probeSent(nextAt next: Instant) {
        guard case .probing(let sent, _) = state else { return }
        state = .probing(sent: sent + 1, next: next)
    }

    /// Probing done, but the announcement waits until `next` (for the host name to be ours).
    mutating func holdProbing(until next: Instant) {
        guard case .probing(let sent, _) = state else { return }
        state = .probing(sent: sent, next: next)
    }

    /// Three probes without conflict: the name is ours, its announcements of every record start
    /// at `now`, and the conflict history is forgotten (§8.3).
    mutating func won(at now: Instant) {
        state = .announcing(sent: 0, next: now)
        isThrottled = false
        conflictTimes = []
        conflictReprobe = nil
        announcedTypes = nil
    }

    /// One more announcement went out at `now`; the next a second later, doubling, until
    /// ``announcementCount`` have gone (§8.3).
    mutating func announcementSent(at now: Instant) {
        guard case .announcing(let sent, _) = state else { return }
        hasAnnounced = true
        if sent + 1 >= Self.announcementCount {
            state = .established
            announcedTypes = nil
        } else {
            state = .announcing(sent: sent + 1, next: now + .seconds(1 << sent))
        }
    }

    /// Announces again from announcement `sent + 1` at `next`, the same records as the
    /// announcements under way (§8.4).
    mutating func announceAgain(sent: Int = 0, at next: Instant) {
        state = .announcing(sent: sent, next: next)
    }

    /// A new TXT record, `service`'s (§8.4): an established name announces the TXT alone, one
    /// still announcing starts its announcements, with every record, again.
    mutating func txtChanged(to service: ServiceRegistration, at now: Instant) {
        kind = .service(service)
        if state == .established {
            state = .announcing(sent: 0, next: now)
            announcedTypes = [.txt]
        } else if isAnnouncing {
            state = .announcing(sent: 0, next: now)
        }
    }

    /// An established name met a conflicting answer, `records`: probed again from `first`, the
    /// answer's copy over the other family not counting before the first probe (§9).
    mutating func reprobe(after records: Set<RecordKey>, at first: Instant) {
        conflictReprobe = records
        state = .probing(sent: 0, next: first)
    }

    /// The name won was reported (``EngineEvent/registered(_:name:)``).
    mutating func reportRegistered() {
        hasReportedRegistered = true
    }

    /// A new name, `label`, after a conflict (§9): not yet reported, probed from `first`.
    mutating func rename(to label: String, probingAt first: Instant) {
        self.label = label
        hasReportedRegistered = false
        state = .probing(sent: 0, next: first)
    }

    /// A conflict at `now` to be settled by a new name: nothing announced under it, and after
    /// `limit` conflicts within `window` probing slows down for as long as they keep coming (§8.1).
    mutating func noteConflict(at now: Instant, window: Duration, limit: Int) {
        hasAnnounced = false
        conflictTimes = conflictTimes.filter { now - $0 < window } + [now]
        if conflictTimes.count >= limit {
            isThrottled = true
        } else if conflictTimes.count == 1 {
            isThrottled = false
        }
    }

    /// This host's addresses now map back from `names` (§4); a name no longer mapped is no longer
    /// yielded either.
    mutating func mapReverse(_ names: Set<DomainName>) {
        reverseNames = names
        yieldedReverseNames.formIntersection(names)
    }

    /// Leaves out the reverse-mapping PTR under `name`, which another responder maps to another
    /// host name (§4); returns false when `name` is not ours or was yielded already.
    mutating func yieldReverseName(_ name: DomainName) -> Bool {
        guard publishesReverseMapping(name) else { return false }
        yieldedReverseNames.insert(name)
        return true
    }

    /// Leaves the reverse-mapping PTR under `name`, an address of this host, to this host's own
    /// (§4); returns false when `name` is not published here.
    mutating func leaveReverseNameToThisHost(_ name: DomainName) -> Bool {
        guard publishesReverseMapping(name) else { return false }
        reverseNamesLeftToThisHost.insert(name)
        return true
    }

    /// Maps again the addresses of this host left to its own mapping, which is gone; returns
    /// false when there were none.
    mutating func takeBackReverseNamesFromThisHost() -> Bool {
        guard !reverseNamesLeftToThisHost.isEmpty else { return false }
        reverseNamesLeftToThisHost = []
        return true
    }
}
