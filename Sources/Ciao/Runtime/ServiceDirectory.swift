import CiaoEngine
import CiaoWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// DNS-SD on top of the engine (RFC 6763): publications become registrations; browses, resolutions
/// and type enumerations become continuous queries; and the engine's record events become the
/// service updates the API reports, as values. No I/O: ``DiscoveryDriver`` calls it with its engine.
struct ServiceDirectory {
    private var publications: [RegistrationID: PublicationState] = [:]
    private var registrationsByToken: [BackendToken: RegistrationID] = [:]
    /// The other hosts' names published with services (proxies): one registration per name,
    /// shared by the publications that give it the same addresses.
    private var otherHosts: [DomainName: OtherHostShare] = [:]
    /// What each engine query the directory started is for.
    private var queries: [QueryID: QueryRole] = [:]
    private var resolutions: [ResolutionID: ResolutionState] = [:]
    /// The engine queries each token started, to stop them with it.
    private var queriesByToken: [BackendToken: [QueryID]] = [:]
    /// The address queries of each SRV target that resolutions follow, shared between them.
    private var addressFollows: [AddressTarget: AddressFollow] = [:]
    /// When each automatic resolution fails without a result. Entries of resolutions that have
    /// a result or are gone stay until they come to the top, and are never the top after an input
    /// (``failResolutions(dueBy:engine:)``), so ``nextDeadline`` is always one to keep; when they
    /// outnumber the resolutions, the heap is rebuilt without them, so churn cannot grow it.
    private var resolutionDeadlines = DeadlineQueue<ResolutionID>()

    private struct PublicationState {
        /// The instance label of the last ``PublicationUpdate/registered(name:hostName:)``.
        var registeredName: String?
        var token: BackendToken
        /// The other host the service runs on; nil for this host.
        var hostName: DomainName?
    }

    /// Another host's name published for the publications in ``services``.
    private struct OtherHostShare {
        var id: RegistrationID
        var addresses: Set<IPAddress>
        var services: Set<RegistrationID>
    }

    /// What an engine query feeds: one query has one role, from its start until it is stopped.
    private enum QueryRole {
        case browse(BrowseState)
        case typeBrowse(TypeBrowseState)
        /// An SRV or TXT query of a resolution.
        case resolution(ResolutionID)
        /// An A or AAAA query of an SRV target that resolutions follow.
        case addresses(AddressTarget)
        /// A query of a record lookup.
        case lookup(BackendToken)
    }

    private struct BrowseState {
        var type: ServiceType
        /// `type`'s name in `local.`, the parent of every instance it finds.
        var typeName: DomainName
        /// The name whose PTR records it asks for: `typeName`, or a subtype's name under it.
        var queryName: DomainName
        var token: BackendToken
        /// When it resolves what it finds: the instances present and how long each may take.
        var resolving: AutomaticResolutions?
    }

    private struct TypeBrowseState {
        /// The types present, and the interfaces they are present on.
        var seen: [ServiceType: Set<InterfaceID>] = [:]
        var token: BackendToken
    }

    /// The instances a resolving browse has found and not lost, each with the number of its find
    /// (per batch, a service whose last mention is `found` and that was not present): the order
    /// their resolutions stop in when the browse is cancelled.
    private struct AutomaticResolutions {
        /// How long a find's resolution may go without a result before it fails and stops.
        var timeout: Duration
        var present: [Service: Int] = [:]
        var finds = 0
    }

    /// Who asked for a resolution: a resolve, or a resolving browse for an instance it found.
    private enum ResolutionID: Hashable, Comparable {
        case requested(BackendToken)
        case automatic(browse: BackendToken, Service)

        /// The order resolutions are reported in within a batch: by token, then by instance.
        static func < (lhs: ResolutionID, rhs: ResolutionID) -> Bool {
            switch (lhs, rhs) {
            case (.requested(let left), .requested(let right)): left.rawValue < right.rawValue
            case (.requested, .automatic): true
            case (.automatic, .requested): false
            case (.automatic(let left, let leftService), .automatic(let right, let rightService)):
                (left.rawValue, leftService.name, leftService.interfaceIndex)
                    < (right.rawValue, rightService.name, rightService.interfaceIndex)
            }
        }
    }

    private struct ResolutionState {
        var service: Service
        var interfaces: Set<InterfaceID>?
        /// Its SRV and TXT queries.
        var queries: [QueryID]
        /// What each interface has answered, in interface order: one small array rather than a
        /// dictionary per record type, since a thousand resolutions each keep one.
        var answers: [InterfaceAnswers] = []
        /// The SRV target whose addresses it follows.
        var addressTarget: AddressTarget?
        var lastReported: ResolvedService?
        /// For an automatic resolution without a result yet: when it fails.
        var failsAt: Instant?

        /// The SRV record answering first in interface order: the one whose target is followed.
        var firstSRV: (interface: InterfaceID, srv: SRVData)? {
            answers.lazy.compactMap { answers in answers.srv.map { (answers.interface, $0) } }.first
        }
    }

    /// The SRV and TXT records one interface has given a resolution.
    fileprivate struct InterfaceAnswers {
        var interface: InterfaceID
        var srv: SRVData?
        var txt: TXTData?
    }

    /// A host name whose addresses resolutions follow, on the interfaces they resolve on.
    private struct AddressTarget: Hashable {
        var name: DomainName
        var interfaces: Set<InterfaceID>?
    }

    /// One target's A and AAAA queries and what they found, shared by every resolution whose SRV
    /// names it: resolving a thousand services of one host asks for its addresses once.
    private struct AddressFollow {
        var queries: [QueryID]
        var followers: Set<ResolutionID> = []
        /// The addresses each interface has given, in interface order.
        var addresses: [InterfaceAddresses] = []
    }

    fileprivate struct InterfaceAddresses {
        var interface: InterfaceID
        var addresses: [CiaoEngine.IPAddress]
        /// The families each of `addresses` has come over.
        var heardOver: [CiaoEngine.IPAddress: Set<IPFamily>] = [:]
    }

    /// How an engine event changed a record: new, replacing the one record of its RRset
    /// (``EngineEvent/updated(_:_:_:)``), or gone.
    private enum RecordChange {
        case added, updated, removed
    }

    // MARK: Starting and stopping

    /// Registers `publication`, and the other host's name with it for a proxy; returns a name
    /// conflict at once for a proxy of this host's name, or of a name another publication gives
    /// other addresses. A publication naming this host's name without addresses is this host's.
    mutating func publish(
        _ publication: Publication, token: BackendToken, engine: inout MDNSEngine, at now: Instant
    ) -> [BackendUpdate] {
        var publication = publication
        if publication.hostAddresses.isEmpty && publication.hostName == engine.hostName { publication.hostName = nil }
        let proxied = publication.hostAddresses.isEmpty ? nil : publication.hostName
        if let proxied,
            proxied == engine.hostName
                || otherHosts[proxied].map({ $0.addresses != Set(publication.hostAddresses) }) ?? false
        {
            return [.publication(token, .nameConflict)]
        }
        // An empty instance name is the name of the host the service runs on.
        let hostLabel = Self.firstLabel(of: publication.hostName ?? engine.hostName) ?? "Ciao"
        let registration = ServiceRegistration(
            instanceName: publication.instanceName(hostLabel: hostLabel),
            serviceType: Self.typeName(publication.type), subtypes: publication.subtypes, port: publication.port,
            txt: publication.txtRecord.txtData, allowsRenaming: publication.allowsRenaming,
            hostName: publication.hostName)
        let id = engine.register(registration, at: now)
        if let proxied {
            if otherHosts[proxied] == nil {
                let label = Self.firstLabel(of: proxied) ?? ""
                otherHosts[proxied] = OtherHostShare(
                    id: engine.register(
                        OtherHostRegistration(label: label, addresses: publication.hostAddresses), at: now),
                    addresses: Set(publication.hostAddresses), services: [])
            }
            otherHosts[proxied]?.services.insert(id)
        }
        publications[id] = PublicationState(token: token, hostName: publication.hostName)
        registrationsByToken[token] = id
        return []
    }

    mutating func updateTXT(_ txtRecord: TXTRecord, of token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        guard let id = registrationsByToken[token] else { return }
        engine.updateTXT(id, to: txtRecord.txtData, at: now)
    }

    /// Browses `type`, or its instances under `subtype` (`<subtype>._sub.<type>`, RFC 6763 §7.1);
    /// with a `resolutionTimeout`, resolves each instance found until it is removed, or until the
    /// timeout passes without a result (``BrowseUpdate/resolutionFailed(_:)``).
    mutating func browse(
        type: ServiceType, subtype: String?, resolutionTimeout: Duration?, token: BackendToken,
        engine: inout MDNSEngine, at now: Instant
    ) {
        let typeName = Self.typeName(type)
        let name = subtype.flatMap { try? typeName.subtypeName($0) } ?? typeName
        let query = engine.startQuery(name: name, type: .ptr, at: now)
        queries[query] = .browse(
            BrowseState(
                type: type, typeName: typeName, queryName: name, token: token,
                resolving: resolutionTimeout.map { AutomaticResolutions(timeout: $0) }))
        queriesByToken[token] = [query]
    }

    mutating func browseTypes(token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        let query = engine.startQuery(name: Self.typeEnumerationName, type: .ptr, at: now)
        queries[query] = .typeBrowse(TypeBrowseState(token: token))
        queriesByToken[token] = [query]
    }

    mutating func resolve(_ service: Service, token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        startResolution(of: service, for: .requested(token), engine: &engine, at: now)
    }

    /// Asks for `service`'s SRV and TXT records on its interface (RFC 6763 §6), until stopped or,
    /// with `failsAt`, until that time passes without a result. Returns false, asking nothing,
    /// when the name is not one a query can ask for (a label over 63 bytes).
    @discardableResult
    private mutating func startResolution(
        of service: Service, for resolutionID: ResolutionID, failsAt: Instant? = nil, engine: inout MDNSEngine,
        at now: Instant
    ) -> Bool {
        guard let (instance, interfaces) = Self.whereToAsk(about: service, engine: engine) else { return false }
        let queries = [RecordType.srv, .txt].map {
            engine.startQuery(name: instance, type: $0, interfaces: interfaces, at: now)
        }
        resolutions[resolutionID] = ResolutionState(
            service: service, interfaces: interfaces, queries: queries, failsAt: failsAt)
        for query in queries { self.queries[query] = .resolution(resolutionID) }
        if let failsAt { resolutionDeadlines.schedule(resolutionID, at: failsAt) }
        return true
    }

    /// `service`'s instance name and the interfaces to ask about it on: its own, or every one when
    /// it names none or one that is gone or renumbered since (a saved reference after a reboot);
    /// nil when no query can ask for the name (a label over 63 bytes).
    private static func whereToAsk(about service: Service, engine: MDNSEngine) -> (DomainName, Set<InterfaceID>?)? {
        guard let instance = try? typeName(service.type).prepending(label: Array(service.name.utf8)) else {
            return nil
        }
        let named = InterfaceID(service.interfaceIndex)
        return (instance, service.interfaceIndex == 0 || engine.networkInterface(named) == nil ? nil : [named])
    }

    /// Stops a resolution's queries, and its following of its SRV target's addresses.
    private mutating func stopResolution(_ resolutionID: ResolutionID, engine: inout MDNSEngine) {
        guard let resolution = resolutions.removeValue(forKey: resolutionID) else { return }
        for query in resolution.queries {
            engine.stopQuery(query)
            queries[query] = nil
        }
        if let target = resolution.addressTarget { unfollow(target, resolutionID: resolutionID, engine: &engine) }
    }

    /// Asks for `lookup`'s name and types until cancelled, reporting each answering record as it
    /// comes, changes and goes, and each NSEC that denies a type (RFC 6762 §6.1); what is already
    /// cached is reported at once.
    mutating func lookUp(_ lookup: RecordLookup, token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        let interfaces: Set<InterfaceID>? = lookup.interfaceIndex == 0 ? nil : [InterfaceID(lookup.interfaceIndex)]
        let queries = lookup.types.map {
            engine.startQuery(name: lookup.name, type: $0, interfaces: interfaces, at: now)
        }
        queriesByToken[token] = queries
        for query in queries { self.queries[query] = .lookup(token) }
    }

    /// Asks again for the records that made the browse of `token` find `service` and resolve
    /// it, as after a failed connection to it (RFC 6762 §10.4): its PTR records under the name the
    /// browse asks for and under its type, its SRV and TXT records, and, when the browse resolves
    /// it and its SRV record is known, its host's addresses, on its interface. The browse reports
    /// it removed when its PTR record goes. Nothing for a token that is not a browse, or a service
    /// of another type or domain.
    mutating func reconfirm(_ service: Service, of token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        guard let query = queriesByToken[token]?.first, case .browse(let browse) = queries[query],
            service.type == browse.type, Service.isLocalDomain(service.domain),
            let (instance, interfaces) = Self.whereToAsk(about: service, engine: engine)
        else { return }
        for name in Set([browse.queryName, browse.typeName]) {
            engine.reconfirm(name: name, type: .ptr, data: .ptr(instance), interfaces: interfaces, at: now)
        }
        var rrsets: [(DomainName, RecordType)] = [(instance, .srv), (instance, .txt)]
        if let target = resolutions[.automatic(browse: token, service)]?.addressTarget {
            rrsets += [(target.name, .a), (target.name, .aaaa)]
        }
        for (name, type) in rrsets { engine.reconfirm(name: name, type: type, interfaces: interfaces, at: now) }
    }

    /// Stops whatever `token` started; a publication is deregistered with goodbyes.
    mutating func cancel(_ token: BackendToken, engine: inout MDNSEngine, at now: Instant) {
        if let id = registrationsByToken.removeValue(forKey: token) {
            engine.deregister(removePublication(id), at: now)
        }
        stopResolution(.requested(token), engine: &engine)
        for query in queriesByToken.removeValue(forKey: token) ?? [] {
            engine.stopQuery(query)
            guard case .browse(let browse) = queries.removeValue(forKey: query), let resolving = browse.resolving
            else { continue }
            for service in resolving.present.sorted(by: { $0.value < $1.value }).map(\.key) {
                stopResolution(.automatic(browse: token, service), engine: &engine)
            }
        }
    }

    /// Forgets publication `id`; returns the registrations to withdraw: the service's, and that of
    /// the other host's name published with it when no other publication shares it.
    private mutating func removePublication(_ id: RegistrationID) -> [RegistrationID] {
        guard let name = publications.removeValue(forKey: id)?.hostName, var share = otherHosts[name],
            share.services.contains(id)
        else { return [id] }
        share.services.remove(id)
        guard share.services.isEmpty else {
            otherHosts[name] = share
            return [id]
        }
        otherHosts[name] = nil
        return [id, share.id]
    }

    /// Withdraws every publication and leaves every interface, for a clean shutdown: all the
    /// goodbyes go out together.
    mutating func withdrawEverything(engine: inout MDNSEngine, at now: Instant) {
        engine.deregister((Array(registrationsByToken.values) + otherHosts.values.map(\.id)).sorted(), at: now)
        let requested = resolutions.keys.compactMap { if case .requested(let token) = $0 { token } else { nil } }
        for token in Set(registrationsByToken.keys).union(queriesByToken.keys).union(requested) {
            cancel(token, engine: &engine, at: now)
        }
        for interface in engine.networkInterfaces { engine.removeInterface(interface.id, at: now) }
    }

    // MARK: Engine events

    /// Turns one round of engine events into updates for the callbacks, in order; may start or
    /// stop address queries as SRV targets change, and resolutions as a resolving browse finds and
    /// loses, whose events come in the next round.
    mutating func handle(_ events: [EngineEvent], engine: inout MDNSEngine, at now: Instant) -> [BackendUpdate] {
        var updates: [BackendUpdate] = []
        var browseBatches = OrderedGroups<QueryID, BrowseUpdate>()
        var lookupBatches = OrderedGroups<BackendToken, RecordEvent>()
        var touchedResolutions: [ResolutionID] = []
        var touchedTargets: [AddressTarget] = []
        for event in events {
            switch event {
            case .registered(let id, let name):
                guard let publication = publications[id] else { continue }
                let label = Self.firstLabel(of: name) ?? ""
                publications[id]?.registeredName = label
                let hostName = publication.hostName ?? engine.hostName
                updates.append(
                    .publication(publication.token, .registered(name: label, hostName: hostName.description)))
            case .hostRenamed(_, let newHostName):
                // The SRV records of services on this host now name the new host name.
                for publication in publications.values.sorted(by: { $0.registeredName ?? "" < $1.registeredName ?? "" }
                ) {
                    guard let label = publication.registeredName, publication.hostName == nil else { continue }
                    updates.append(
                        .publication(publication.token, .registered(name: label, hostName: newHostName.description)))
                }
            case .nameConflict(let id, _):
                // The service's name ends its publication; the name of the other host published
                // with services ends all of them. What else they registered is withdrawn.
                let services = otherHosts.values.first { $0.id == id }.map { $0.services.sorted() } ?? [id]
                for serviceID in services {
                    guard let publication = publications[serviceID] else { continue }
                    registrationsByToken[publication.token] = nil
                    engine.deregister(removePublication(serviceID).filter { $0 != id }, at: now)
                    updates.append(.publication(publication.token, .nameConflict))
                }
            case .renamed(let id, _, _):
                // Probing again under the new name; `registered` follows.
                publications[id]?.registeredName = nil
                if let token = publications[id]?.token { updates.append(.publication(token, .lostName)) }
            case .heardOver(let query, let record, let interface, _):
                // Only browses (a line per protocol) and addresses (the first over each) care.
                switch queries[query] {
                case .browse(let browse):
                    guard case .found(let service)? = browseUpdate(browse, record, interface, present: true) else {
                        continue
                    }
                    let families = engine.arrival(of: record, on: interface)?.families ?? []
                    browseBatches.append(
                        .heardOver(service, Set(families.map(NetworkScope.AddressFamily.init))), to: query)
                case .addresses(let target):
                    addressRecord(record, .added, on: interface, of: target, engine: engine)
                    if !touchedTargets.contains(target) { touchedTargets.append(target) }
                default:
                    continue
                }
            case .noSuchRecord(let query, let type, let nsec, let interface):
                switch queries[query] {
                case .lookup(let token):
                    lookupBatches.append(
                        .noSuchRecord(
                            DNSRecordType(rawValue: type.rawValue), DNSRecord(nsec, interfaceIndex: interface.index)),
                        to: token)
                case .addresses(let target):
                    // Its resolutions' results now say which family the host lacks.
                    if !touchedTargets.contains(target) { touchedTargets.append(target) }
                default:
                    continue
                }
            case .added(let query, let record, let interface), .updated(let query, let record, let interface),
                .removed(let query, let record, let interface):
                let change: RecordChange =
                    switch event {
                    case .added: .added
                    case .updated: .updated
                    default: .removed
                    }
                switch queries[query] {
                case .browse(let browse):
                    guard let update = browseUpdate(browse, record, interface, present: change != .removed) else {
                        continue
                    }
                    guard case .found(let service) = update else {
                        browseBatches.append(update, to: query)
                        continue
                    }
                    let arrival = engine.arrival(of: record, on: interface)
                    if arrival?.isFromThisHost == true { browseBatches.append(.fromThisHost(service), to: query) }
                    browseBatches.append(update, to: query)
                    let families = Set((arrival?.families ?? []).map(NetworkScope.AddressFamily.init))
                    browseBatches.append(.heardOver(service, families), to: query)
                case .typeBrowse(var typeBrowse):
                    // Out of the map while it changes, so that its types are not copied.
                    queries[query] = nil
                    let type = typeChange(record, interface, present: change != .removed, seen: &typeBrowse.seen)
                    queries[query] = .typeBrowse(typeBrowse)
                    if let type { updates.append(.serviceType(typeBrowse.token, type)) }
                case .resolution(let resolutionID):
                    resolutionRecord(
                        record, change, on: interface, resolutionID: resolutionID, engine: &engine, at: now)
                    touchedResolutions.append(resolutionID)
                case .addresses(let target):
                    addressRecord(record, change, on: interface, of: target, engine: engine)
                    if !touchedTargets.contains(target) { touchedTargets.append(target) }
                case .lookup(let token):
                    let found = DNSRecord(record, interfaceIndex: interface.index)
                    let recordEvent: RecordEvent =
                        switch change {
                        case .added: .added(found)
                        case .updated: .updated(found)
                        case .removed: .removed(found)
                        }
                    lookupBatches.append(recordEvent, to: token)
                case nil:
                    continue
                }
            }
        }
        for token in lookupBatches.keys { updates.append(.records(token, lookupBatches[token])) }
        for query in browseBatches.keys {
            guard case .browse(let browse) = queries[query] else { continue }
            updates.append(.browse(browse.token, browseBatches[query]))
        }
        for target in touchedTargets {
            touchedResolutions += addressFollows[target]?.followers.sorted() ?? []
        }
        var reported: Set<ResolutionID> = []
        var targetViews: [AddressTarget: TargetView] = [:]
        for resolutionID in touchedResolutions where reported.insert(resolutionID).inserted {
            guard let resolved = resolutionResult(resolutionID, engine: engine, targetViews: &targetViews) else {
                continue
            }
            switch resolutionID {
            case .requested(let token): updates.append(.resolved(token, resolved))
            case .automatic(let browse, _): updates.append(.browse(browse, [.resolved(resolved)]))
            }
        }
        for query in browseBatches.keys {
            updates += resolveAutomatically(browseBatches[query], of: query, engine: &engine, at: now)
        }
        return updates
    }

    /// Starts resolving what one batch of a resolving browse found and stops what it lost: the
    /// net change per service, as the discovery session applies the same batch. Returns the
    /// failure, at once, of a find whose name no query can ask for.
    private mutating func resolveAutomatically(
        _ updates: [BrowseUpdate], of query: QueryID, engine: inout MDNSEngine, at now: Instant
    ) -> [BackendUpdate] {
        guard case .browse(var browse) = queries[query], var resolving = browse.resolving else { return [] }
        // Out of the map while they change, so that the instances present are not copied.
        queries[query] = nil
        browse.resolving = nil
        var unresolvable: [BrowseUpdate] = []
        for update in updates.lastMentions {
            switch update {
            case .found(let service) where resolving.present[service] == nil:
                resolving.finds += 1
                resolving.present[service] = resolving.finds
                let started = startResolution(
                    of: service, for: .automatic(browse: browse.token, service), failsAt: now + resolving.timeout,
                    engine: &engine, at: now)
                if !started { unresolvable.append(.resolutionFailed(service)) }
            case .removed(let service) where resolving.present[service] != nil:
                resolving.present[service] = nil
                stopResolution(.automatic(browse: browse.token, service), engine: &engine)
            default:
                continue
            }
        }
        browse.resolving = resolving
        queries[query] = .browse(browse)
        return unresolvable.isEmpty ? [] : [.browse(browse.token, unresolvable)]
    }

    // MARK: Time

    /// When ``failResolutions(dueBy:engine:)`` is due next: the first automatic resolution to fail.
    var nextDeadline: Instant? { resolutionDeadlines.first?.time }

    /// How many resolution deadlines are kept, those of resolutions settled or gone included.
    var resolutionDeadlineCount: Int { resolutionDeadlines.count }

    /// Fails the automatic resolutions that have had no result by `now`: each is stopped and
    /// reported ``BrowseUpdate/resolutionFailed(_:)``, in one batch per browse. The instance stays
    /// found; a new find of it is resolved afresh.
    mutating func failResolutions(dueBy now: Instant, engine: inout MDNSEngine) -> [BackendUpdate] {
        var failures = OrderedGroups<BackendToken, BrowseUpdate>()
        while let deadline = resolutionDeadlines.discardFirst(while: { resolutions[$0]?.failsAt != $1 }),
            deadline.time <= now
        {
            resolutionDeadlines.removeFirst()
            guard let resolution = resolutions[deadline.id], case .automatic(let browse, _) = deadline.id else {
                continue
            }
            stopResolution(deadline.id, engine: &engine)
            failures.append(.resolutionFailed(resolution.service), to: browse)
        }
        if resolutionDeadlines.needsRebuild(liveCount: resolutions.count) {
            resolutionDeadlines = DeadlineQueue(
                resolutions.compactMap { id, resolution in resolution.failsAt.map { (id, $0) } })
        }
        return failures.keys.map { .browse($0, failures[$0]) }
    }

    /// A PTR record's change as `browse` reports it, nil for a record that names no instance of its type.
    private func browseUpdate(_ browse: BrowseState, _ record: ResourceRecord, _ interface: InterfaceID, present: Bool)
        -> BrowseUpdate?
    {
        guard case .ptr(let target) = record.data,
            target.parent == browse.typeName, let label = target.firstLabel
        else { return nil }
        let service = Service(
            name: String(decoding: label, as: UTF8.self), type: browse.type, interfaceIndex: interface.index)
        return present ? .found(service) : .removed(service)
    }

    /// Notes a type's presence on an interface in `seen`; returns it when it is new on every
    /// interface. Types are forgotten when their records go, so the set is bounded by the caches.
    private func typeChange(
        _ record: ResourceRecord, _ interface: InterfaceID, present: Bool,
        seen: inout [ServiceType: Set<InterfaceID>]
    ) -> ServiceType? {
        guard case .ptr(let target) = record.data, target.labelCount >= 3 else { return nil }
        let labels = target.labels
        guard
            let type = try? ServiceType(
                observed: String(decoding: labels[0], as: UTF8.self) + "." + String(decoding: labels[1], as: UTF8.self))
        else { return nil }
        guard present else {
            seen[type]?.remove(interface)
            if seen[type]?.isEmpty == true { seen[type] = nil }
            return nil
        }
        let isNew = seen[type] == nil
        seen[type, default: []].insert(interface)
        return isNew ? type : nil
    }

    private mutating func resolutionRecord(
        _ record: ResourceRecord, _ change: RecordChange, on interface: InterfaceID, resolutionID: ResolutionID,
        engine: inout MDNSEngine, at now: Instant
    ) {
        guard var resolution = resolutions[resolutionID] else { return }
        switch record.data {
        case .srv(let srv):
            // A removal concerns the record it names: a newer one may have taken its place.
            let index = resolution.answers.index(insertingIfMissing: interface)
            if change != .removed {
                resolution.answers[index].srv = srv
            } else if resolution.answers[index].srv == srv {
                resolution.answers[index].srv = nil
            }
        case .txt(let txt):
            let index = resolution.answers.index(insertingIfMissing: interface)
            if change != .removed {
                resolution.answers[index].txt = txt
            } else if resolution.answers[index].txt == txt {
                resolution.answers[index].txt = nil
            }
        default:
            return
        }
        let target = resolution.firstSRV.map { AddressTarget(name: $0.srv.target, interfaces: resolution.interfaces) }
        if target != resolution.addressTarget {
            if let old = resolution.addressTarget { unfollow(old, resolutionID: resolutionID, engine: &engine) }
            resolution.addressTarget = target
            if let target { follow(target, resolutionID: resolutionID, engine: &engine, at: now) }
        }
        resolutions[resolutionID] = resolution
    }

    /// Adds `resolutionID` to the followers of `target`, starting its A and AAAA queries if it is the first.
    private mutating func follow(
        _ target: AddressTarget, resolutionID: ResolutionID, engine: inout MDNSEngine, at now: Instant
    ) {
        if addressFollows[target] == nil {
            let queries = [RecordType.a, .aaaa].map {
                engine.startQuery(name: target.name, type: $0, interfaces: target.interfaces, at: now)
            }
            for query in queries { self.queries[query] = .addresses(target) }
            addressFollows[target] = AddressFollow(queries: queries)
        }
        addressFollows[target]!.followers.insert(resolutionID)
    }

    /// Removes `resolutionID` from the followers of `target`, stopping its queries after the last one.
    private mutating func unfollow(_ target: AddressTarget, resolutionID: ResolutionID, engine: inout MDNSEngine) {
        guard var follow = addressFollows[target] else { return }
        follow.followers.remove(resolutionID)
        guard follow.followers.isEmpty else {
            addressFollows[target] = follow
            return
        }
        for query in follow.queries {
            engine.stopQuery(query)
            queries[query] = nil
        }
        addressFollows[target] = nil
    }

    /// Applies an A or AAAA record's change to what `target`'s queries found on `interface`.
    private mutating func addressRecord(
        _ record: ResourceRecord, _ change: RecordChange, on interface: InterfaceID, of target: AddressTarget,
        engine: MDNSEngine
    ) {
        guard let address = record.data.address, var follow = addressFollows[target] else { return }
        let index = follow.addresses.index(insertingIfMissing: interface)
        updateAddress(address, change, in: &follow.addresses[index].addresses)
        var heardOver = follow.addresses[index].heardOver.filter { follow.addresses[index].addresses.contains($0.key) }
        if change != .removed { heardOver[address] = Set(engine.arrival(of: record, on: interface)?.families ?? []) }
        follow.addresses[index].heardOver = heardOver
        addressFollows[target] = follow
    }

    /// Applies an address record's change to an interface's addresses, each kept once.
    private func updateAddress(
        _ address: CiaoEngine.IPAddress, _ change: RecordChange, in addresses: inout [CiaoEngine.IPAddress]
    ) {
        switch change {
        case .added:
            if !addresses.contains(address) { addresses.append(address) }
        case .updated:
            // The cache replaced the one address of this family it held (RFC 6762 §10.2).
            addresses.removeAll { $0.family == address.family }
            addresses.append(address)
        case .removed:
            addresses.removeAll { $0 == address }
        }
    }

    /// The addresses `target`'s queries have found, less those now on their way out: a resolution
    /// that joins a shared follow must not be shown an address a goodbye has already withdrawn,
    /// which a query of its own would not have reported (``MDNSEngine/startQuery(name:type:interfaces:at:)``).
    private func liveAddresses(of target: AddressTarget, engine: MDNSEngine) -> [InterfaceAddresses] {
        (addressFollows[target]?.addresses ?? []).map { found in
            let leaving = [RecordType.a, .aaaa].flatMap {
                engine.leavingRecords(named: target.name, type: $0, on: found.interface)
            }
            let addresses = found.addresses.filter { address in !leaving.contains { $0.data == address.recordData } }
            return InterfaceAddresses(interface: found.interface, addresses: addresses, heardOver: found.heardOver)
        }
    }

    /// What a target's resolutions are shown now: its live addresses (``liveAddresses(of:engine:)``)
    /// and the families an NSEC denies (``deniedFamilies(of:engine:)``).
    private struct TargetView {
        var addresses: [InterfaceAddresses]
        var deniedFamilies: Set<NetworkScope.AddressFamily>
    }

    /// The resolution's result when it is complete (SRV, TXT and an address) and new.
    /// `targetViews` memoizes each target's ``TargetView`` across the resolutions of one batch.
    private mutating func resolutionResult(
        _ resolutionID: ResolutionID, engine: MDNSEngine, targetViews: inout [AddressTarget: TargetView]
    ) -> ResolvedService? {
        guard var resolution = resolutions[resolutionID], let (interface, srv) = resolution.firstSRV,
            let txt = resolution.answers.first(where: { $0.interface == interface })?.txt
                ?? resolution.answers.lazy.compactMap(\.txt).first
        else { return nil }
        var view = TargetView(addresses: [], deniedFamilies: [])
        if let target = resolution.addressTarget {
            view =
                targetViews[target]
                ?? TargetView(
                    addresses: liveAddresses(of: target, engine: engine),
                    deniedFamilies: deniedFamilies(of: target, engine: engine))
            targetViews[target] = view
        }
        let found = view.addresses
        let addresses = found.flatMap { found in
            found.addresses.sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
                .map { (presentation(of: $0, on: found.interface, engine: engine), found.heardOver[$0] ?? []) }
        }
        var unique: [String] = []
        var heardOver: [NetworkScope.AddressFamily: [String]] = [:]
        for (address, families) in addresses {
            if !unique.contains(address) { unique.append(address) }
            for family in families.map(NetworkScope.AddressFamily.init)
            where heardOver[family]?.contains(address) != true {
                heardOver[family, default: []].append(address)
            }
        }
        guard !unique.isEmpty else { return nil }
        // Asked on every interface, the service is where its SRV answered first.
        let asked = resolution.service
        let service =
            resolution.interfaces != nil
            ? asked
            : Service(name: asked.name, type: asked.type, domain: asked.domain, interfaceIndex: interface.index)
        var result = ResolvedService(
            service: service, hostName: srv.target.description, port: srv.port, addresses: unique,
            txtRecord: TXTRecord(txt))
        result.addressesHeardOver = heardOver
        // A family with an address is not denied, whatever an older NSEC said.
        result.familiesDenied = view.deniedFamilies.filter { !result.hasAddress(of: $0) }
        guard
            result != resolution.lastReported || heardOver != resolution.lastReported?.addressesHeardOver
                || result.familiesDenied != resolution.lastReported?.familiesDenied
        else { return nil }
        resolution.lastReported = result
        resolution.failsAt = nil
        resolutions[resolutionID] = resolution
        return result
    }

    /// The address families that an NSEC of `target`, cached on one of its interfaces, says it
    /// has no address of (RFC 6762 §6.1).
    private func deniedFamilies(of target: AddressTarget, engine: MDNSEngine) -> Set<NetworkScope.AddressFamily> {
        let interfaces = engine.networkInterfaces.map(\.id).filter { target.interfaces?.contains($0) ?? true }
        return Set(
            [(RecordType.a, NetworkScope.AddressFamily.ipv4), (.aaaa, .ipv6)].compactMap { type, family in
                interfaces.contains { !engine.denials(of: type, named: target.name, on: $0).isEmpty } ? family : nil
            })
    }

    /// Numeric form; an IPv6 link-local address carries its interface's name as `%zone`, or
    /// its index once the interface is gone.
    private func presentation(of address: CiaoEngine.IPAddress, on interface: InterfaceID, engine: MDNSEngine)
        -> String
    {
        if case .v6(let v6) = address, v6.isLinkLocal {
            return "\(v6)%\(engine.interfaceName(interface))"
        }
        return address.description
    }

    // MARK: Names

    /// The first label of `name` as text; nil for the root.
    private static func firstLabel(of name: DomainName) -> String? {
        name.firstLabel.map { String(decoding: $0, as: UTF8.self) }
    }

    static let localDomain = try! DomainName(labels: ["local"])

    static let typeEnumerationName = try! DomainName.serviceTypeEnumerationName(in: localDomain)

    /// A type's name in `local.`, where its labels always fit.
    static func typeName(_ type: ServiceType) -> DomainName { try! type.domainName(in: localDomain) }
}

/// What one interface has given, kept in arrays in interface order (`index(insertingIfMissing:)` below).
private protocol PerInterface {
    var interface: InterfaceID { get }
    init(interface: InterfaceID)
}

extension ServiceDirectory.InterfaceAnswers: PerInterface {
    init(interface: InterfaceID) { self.init(interface: interface, srv: nil, txt: nil) }
}

extension ServiceDirectory.InterfaceAddresses: PerInterface {
    init(interface: InterfaceID) { self.init(interface: interface, addresses: []) }
}

extension Array where Element: PerInterface {
    /// The index of `interface`'s element, inserted (empty) in interface order if there is none.
    fileprivate mutating func index(insertingIfMissing interface: InterfaceID) -> Int {
        let index = firstIndex { $0.interface >= interface } ?? count
        if index == count || self[index].interface != interface { insert(Element(interface: interface), at: index) }
        return index
    }
}

extension CiaoEngine.IPAddress {
    /// IPv4 before IPv6, then by numeric value, for a stable order.
    fileprivate var sortKey: [UInt8] {
        switch self {
        case .v4(let address): [4] + [address.bytes.0, address.bytes.1, address.bytes.2, address.bytes.3]
        case .v6(let address):
            [6] + withUnsafeBytes(of: address.high.bigEndian, Array.init)
                + withUnsafeBytes(of: address.low.bigEndian, Array.init)
        }
    }
}
