import CiaoWire

/// Multicast DNS (RFC 6762) and DNS-SD (RFC 6763) as a state machine with no sockets, threads or
/// clock: feed it datagrams with ``receive(_:at:)`` and time with ``advance(to:)``, then collect
/// what to send with ``takeDatagrams()`` and what happened with ``takeEvents()``. Call
/// ``advance(to:)`` again no later than ``nextDeadline``.
///
/// One engine serves every interface of a host. The same seed and the same inputs give the same
/// outputs, byte for byte.
public struct MDNSEngine {
    public struct Configuration: Sendable {
        /// The host label, published as `<hostLabel>.local.`.
        public var hostLabel: String
        /// Cached records per interface at most: memory a flood can take is bounded.
        public var cacheCapacity: Int
        /// Largest datagram to send; larger messages are split (RFC 6762 §17). Records that alone
        /// exceed it are sent in packets of up to 9000 bytes.
        public var maximumDatagramSize: Int
        /// The families over which queries and probes may ask for unicast replies (QU, RFC 6762
        /// §5.4, §8.1): those on which no other responder on this host shares the mDNS port, since such
        /// a responder may be handed the replies instead (§15.1). The engine narrows them further when
        /// it hears another responder here (``MDNSEngine/unicastReplyFamilies``).
        public var unicastReplyFamilies: Set<IPFamily>
        /// A query over one family lists as known answers (RFC 6762 §7.1) only records that came
        /// over that family, as avahi-daemon's caches per protocol do: a dual-stack responder then
        /// answers over both families, so that what came over which family tells a line per
        /// protocol (``EngineEvent/heardOver(_:_:_:_:)``); and a unique record (SRV, TXT, A,
        /// AAAA) is asked for, with the query's backoff, until it has come over every family. Off,
        /// the IPv6 query also lists what came over IPv4, and such a responder answers once.
        public var knownAnswersPerFamily: Bool

        public init(
            hostLabel: String, cacheCapacity: Int = 4096, maximumDatagramSize: Int = 1440,
            unicastReplyFamilies: Set<IPFamily> = Set(IPFamily.allCases), knownAnswersPerFamily: Bool = false
        ) {
            self.hostLabel = hostLabel
            self.cacheCapacity = cacheCapacity
            self.maximumDatagramSize = maximumDatagramSize
            self.unicastReplyFamilies = unicastReplyFamilies
            self.knownAnswersPerFamily = knownAnswersPerFamily
        }
    }

    public let configuration: Configuration
    var random: SplitMix64
    var interfaces = InterfaceTable()
    /// The host name, who answers for it, and the services, with their index by name.
    var registrations: RegistrationTable
    /// The active queries, found by the name they ask about, so that a cache change is reported
    /// without looking at every query.
    var queries = QueryTable()
    /// What same-host discovery has told our queries of our own records, and what changed since;
    /// ``takeEvents()`` reports the differences.
    var ownRecordReports = OwnRecordReports()
    var outbox = Outbox()
    /// The families over which queries and probes ask for unicast replies (RFC 6762 §5.4, §8.1):
    /// the configuration's, less each over which another responder on this host has been heard.
    /// Linux hands a unicast datagram to the socket that bound the shared port last (or, for one
    /// user's sockets, to any of them), so a responder started after us takes our replies (§15.1).
    public private(set) var unicastReplyFamilies: Set<IPFamily>
    var events: [EngineEvent] = []
    /// Collect ``EngineDiagnostic``s for ``takeDiagnostics()``; off, the engine keeps none.
    public var reportsDiagnostics = false
    var diagnostics: [EngineDiagnostic] = []

    public init(configuration: Configuration, seed: UInt64) {
        self.configuration = configuration
        random = SplitMix64(seed: seed)
        unicastReplyFamilies = configuration.unicastReplyFamilies
        registrations = RegistrationTable(
            host: Registration(kind: .host, label: configuration.hostLabel))
    }

    /// The host name the services' SRV records name, e.g. `ciao.local.`.
    public var hostName: DomainName { registrations.host.name }

    /// Whether the engine publishes the host name now, or another responder on this host does.
    public var hostClaim: HostClaim { registrations.hostClaim }

    /// The interfaces the engine runs on, in ID order, as last set (``setInterface(_:at:)``; the
    /// same addresses in another order are kept in their first order).
    public var networkInterfaces: [NetworkInterface] { interfaces.networkInterfaces }

    /// The interface `id` as last set, or nil when the engine does not run on it.
    public func networkInterface(_ id: InterfaceID) -> NetworkInterface? { interfaces[id]?.interface }

    /// The name of interface `id` as last set, or its index once the engine no longer runs on it:
    /// what messages and IPv6 zones call it.
    public func interfaceName(_ id: InterfaceID) -> String { interfaces[id]?.interface.name ?? String(id.index) }

    /// The current name of a registration, or nil once it is gone.
    public func name(of id: RegistrationID) -> DomainName? { registrations[.registration(id)]?.name }

    /// Records cached on `interface`, those leaving within their last second included, for
    /// inspection.
    public func cachedRecords(on interface: InterfaceID) -> [ResourceRecord] {
        interfaces[interface]?.cache.records ?? []
    }

    /// The records cached on `interface` under `name` and `type` that are on their way out (a
    /// goodbye or a cache flush gave them their last second): a query started now is not told of
    /// them (``startQuery(name:type:interfaces:at:)``), though their removal is reported later.
    public func leavingRecords(named name: DomainName, type: RecordType, on interface: InterfaceID) -> [ResourceRecord]
    {
        interfaces[interface]?.cache.records(named: name, type: type).filter(\.isLeaving).map(\.record) ?? []
    }

    /// The NSEC records cached on `interface` that say `name` has no record of `type` (RFC 6762
    /// §6.1), for as long as they live: its responder's negative answer.
    public func denials(of type: RecordType, named name: DomainName, on interface: InterfaceID) -> [ResourceRecord] {
        (interfaces[interface]?.cache.records(named: name, type: .nsec) ?? [])
            .filter { !$0.isLeaving && $0.record.denies(type) }.map(\.record)
    }

    // MARK: Output

    /// Datagrams to send, in order; clears them.
    public mutating func takeDatagrams() -> [OutgoingDatagram] {
        outbox.take()
    }

    /// The diagnostics collected since the last call, in order.
    public mutating func takeDiagnostics() -> [EngineDiagnostic] {
        defer { diagnostics = [] }
        return diagnostics
    }

    /// Keeps `diagnostic` if diagnostics are on; built only then.
    mutating func diagnose(_ diagnostic: @autoclosure () -> EngineDiagnostic) {
        if reportsDiagnostics { diagnostics.append(diagnostic()) }
    }

    /// Events since the last call, in order; clears them. With diagnostics on, those about
    /// publications are kept for ``takeDiagnostics()`` too.
    public mutating func takeEvents() -> [EngineEvent] {
        reportOwnRecords()
        defer { events = [] }
        if reportsDiagnostics { diagnostics += events.compactMap(\.publicationDiagnostic) }
        return events
    }

    // MARK: Interfaces

    /// Adds an interface or updates its addresses. A new interface gets probing, announcements and
    /// queries; changed addresses are announced and removed ones said goodbye to (RFC 6762 §8.4, §10.1).
    public mutating func setInterface(_ interface: NetworkInterface, at now: Instant) {
        guard let existing = interfaces[interface.id] else {
            ownRecordReports.noteEverythingChanged()
            interfaces[interface.id] = InterfaceState(interface: interface, cacheCapacity: configuration.cacheCapacity)
            refreshReverseNames()
            restartProbing(at: now)
            for id in queries.ids {
                let first = firstQueryTime(on: interface.id, at: now)
                queries[id]?.schedule(on: interface.id, firstAt: first)
            }
            return
        }
        // The same addresses in another order (as a rescan may list them) are no change.
        guard
            existing.interface.name != interface.name
                || Set(existing.interface.addresses) != Set(interface.addresses)
        else { return }
        ownRecordReports.noteEverythingChanged()
        if registrations.owesHostGoodbyes {
            let current = Set(
                registrations.host.records(hostName: registrations.host.name, interface: interface).map(RecordKey.init))
            let gone = registrations.host.records(hostName: registrations.host.name, interface: existing.interface)
                .filter { $0.type != .nsec && !current.contains(RecordKey($0)) }
            multicastGoodbyes(for: gone, on: existing.interface)
        }
        interfaces[interface.id]?.interface = interface
        // A new subnet suggests another link; addresses that only go (one by one, as a flush
        // removes them) or come in a subnet already there (a new temporary address) do not.
        if interface.addresses.contains(where: { !$0.address.isLinkLocal && !existing.interface.isOnLink($0.address) })
        {
            interfaces.forgetSharedLinks(of: interface.id)
        }
        refreshReverseNames()
        // A host name still being probed is announced, with its new addresses, once it is ours (§8.1).
        if registrations.ownsHostName && !registrations.host.isProbing { registrations[.host]?.announceAgain(at: now) }
    }

    /// Removes an interface: goodbyes for our records there, but for those still published on
    /// another interface on its link (RFC 6762 §14), and its cache reported removed.
    public mutating func removeInterface(_ id: InterfaceID, at now: Instant) {
        guard var state = interfaces[id] else { return }
        ownRecordReports.noteEverythingChanged()
        // A goodbye would take these from every cache on the link, where they are still ours.
        let stillPublished = Set(
            interfaces.interfacesSharingLink(with: id).compactMap { interfaces[$0]?.interface }.flatMap { other in
                announcedRecords(on: other).map(RecordKey.init)
            })
        // Each record once: services of one type share their PTR from the enumeration name.
        multicastGoodbyes(
            for: UniqueRecords(announcedRecords(on: state.interface)).records.filter {
                !stillPublished.contains(RecordKey($0))
            }, on: state.interface)
        for record in state.cache.removeAll() { report(.removed, record, on: id) }
        interfaces.remove(id)
        refreshReverseNames()
    }

    /// The records of the registrations announced on `interface`, the host's included once it
    /// owes goodbyes: a name never announced has nobody holding it to say goodbye to.
    private func announcedRecords(on interface: NetworkInterface) -> [ResourceRecord] {
        let announced =
            (registrations.owesHostGoodbyes ? [registrations.host] : [])
            + registrations.services.filter { $0.appliesTo(interface.id) && $0.hasAnnounced }
        return announced.flatMap { $0.records(hostName: registrations.host.name, interface: interface) }
    }

    // MARK: Registrations

    /// Starts probing for a service (RFC 6762 §8.1), and for this host's name when its SRV record
    /// names this host and no other responder on this host holds it (§15);
    /// ``EngineEvent/registered(_:name:)`` follows once the name is ours. Without an interface it
    /// applies to, probing waits for one. A ``ServiceRegistration/hostName`` equal to this host's
    /// name is this host.
    public mutating func register(_ service: ServiceRegistration, at now: Instant) -> RegistrationID {
        var service = service
        if service.hostName == registrations.host.name { service.hostName = nil }
        if service.hostName == nil && registrations.hostClaim == .unneeded { claimHostName(at: now) }
        var registration = Registration(kind: .service(service), label: service.instanceName)
        registration.startProbing(at: firstProbeTime(at: now))
        return registrations.add(registration)
    }

    /// Starts probing for another host's name with the addresses given (RFC 6762 §8.1), published
    /// for it as a proxy; ``EngineEvent/registered(_:name:)`` follows once the name is ours, and
    /// ``EngineEvent/nameConflict(_:name:)`` if another responder holds it. ``deregister(_:at:)``
    /// withdraws it. This host's name is not claimed for it. An address an earlier registration
    /// maps back is not mapped to it, and one of this host's is left to this host's own mapping
    /// while this host's name is published (RFC 6762 §4).
    public mutating func register(_ otherHost: OtherHostRegistration, at now: Instant) -> RegistrationID {
        var registration = Registration(kind: .otherHost(otherHost), label: otherHost.label)
        for name in registration.reverseNames where isReverseMappedByARegistration(name) {
            _ = registration.yieldReverseName(name)
        }
        registration.startProbing(at: firstProbeTime(at: now))
        let id = registrations.add(registration)
        leaveReverseNamesToThisHost()
        return id
    }

    /// Replaces a service's TXT record and announces it again (RFC 6762 §8.4).
    public mutating func updateTXT(_ id: RegistrationID, to txt: TXTData, at now: Instant) {
        guard var registration = registrations[.registration(id)], var service = registration.service else { return }
        service.txt = txt
        ownRecordReports.noteChanged(registration.publishedNames)
        registration.txtChanged(to: service, at: now)
        registrations[.registration(id)] = registration
    }

    /// Withdraws a service with goodbyes (RFC 6762 §10.1).
    public mutating func deregister(_ id: RegistrationID, at now: Instant) {
        deregister([id], at: now)
    }

    /// Withdraws services together: their goodbyes share packets, as many records to a packet as
    /// fit (RFC 6762 §10.1), so that a thousand services leave in a few dozen packets. The last
    /// service on this host takes the host name's records with it.
    public mutating func deregister(_ ids: some Sequence<RegistrationID>, at now: Instant) {
        var withdrawn: [Registration] = []
        for id in ids {
            guard let registration = registrations.remove(id) else { continue }
            ownRecordReports.noteChanged(registration.publishedNames)
            // A name never announced has nobody holding it to say goodbye to.
            if registration.hasAnnounced { withdrawn.append(registration) }
        }
        if !registrations.needsHostName && registrations.owesHostGoodbyes { withdrawn.append(registrations.host) }
        sendGoodbyes(for: withdrawn)
        releaseHostNameIfUnneeded(sendingGoodbyes: false, at: now)
    }

    // MARK: Queries

    /// Starts a continuous query for `name`/`type` (RFC 6762 §5.2). Records already cached are
    /// reported at once as ``EngineEvent/added(_:_:_:)``, except those on their way out (a goodbye
    /// or a cache flush gave them their last second), and cached NSEC records that deny `type` as
    /// ``EngineEvent/noSuchRecord(_:_:nsec:_:)`` (§6.1).
    public mutating func startQuery(
        name: DomainName, type: RecordType, interfaces selected: Set<InterfaceID>? = nil, at now: Instant
    ) -> QueryID {
        let query = ContinuousQuery(name: name, type: type, interfaces: selected)
        let id = queries.add(query)
        for interface in interfaces.ids where query.appliesTo(interface) {
            for entry in interfaces[interface]?.cache.records(named: name, type: type) ?? [] where !entry.isLeaving {
                events.append(.added(id, entry.record, interface))
            }
            for nsec in denials(of: type, named: name, on: interface) {
                events.append(.noSuchRecord(id, type, nsec: nsec, interface))
            }
            // With a unique answer cached, the first send waits until it expires
            // (``sendDueQueries(at:)``): the cache's refresh queries keep it meanwhile.
            let first = firstQueryTime(on: interface, at: now)
            queries[id]?.schedule(on: interface, firstAt: first)
        }
        ownRecordReports.noteStarted(id)
        return id
    }

    /// Stops a continuous query.
    public mutating func stopQuery(_ id: QueryID) {
        guard queries.remove(id) != nil else { return }
        ownRecordReports.noteStopped(id)
    }

    /// Asks again for cached records a client found wrong, such as the addresses of a host it
    /// could not reach (RFC 6762 §10.4): the records of `name`/`type`, or only the one with
    /// `data`, on `selected` interfaces (all when nil), are asked for twice, two seconds apart,
    /// without being listed as known answers, and removed about ten seconds from now, reported
    /// as ``EngineEvent/removed(_:_:_:)``, unless their responder answers. A record heard within
    /// the last second, or already being asked for, is left as it is.
    public mutating func reconfirm(
        name: DomainName, type: RecordType, data: RecordData? = nil, interfaces selected: Set<InterfaceID>? = nil,
        at now: Instant
    ) {
        for interface in interfaces.ids where selected?.contains(interface) ?? true {
            interfaces[interface]?.cache.reconfirm(name: name, type: type, data: data, at: now)
        }
    }

    // MARK: Time

    /// The latest instant by which ``advance(to:)`` must be called: the earliest timer due.
    public var nextDeadline: Instant? {
        EngineTimer.allCases.reduce(nil) { earlier($0, deadline(of: $1)) }
    }

    /// Runs everything due at or before `now`, each timer in ``EngineTimer`` order, so that
    /// ``nextDeadline`` is later than `now` afterwards.
    public mutating func advance(to now: Instant) {
        for timer in EngineTimer.allCases { fire(timer, at: now) }
    }

    // MARK: Receiving

    /// Handles one received datagram (RFC 6762 §6, §11, §18); returns why it was ignored, if it was.
    @discardableResult
    public mutating func receive(_ datagram: ReceivedDatagram, at now: Instant) -> DropReason? {
        if datagram.source.port == mdnsPort, interfaces.owns(datagram.source.address),
            outbox.wasSentLately(datagram.bytes, at: now)
        {
            noteSharedLink(shownBy: datagram)
            return dropped(datagram, .ownMulticast)
        }
        // Only the interface: a copy of its whole state would make the cache copy itself on write.
        guard let interface = interfaces[datagram.interface]?.interface else {
            return dropped(datagram, .unknownInterface)
        }
        let message: Message
        do {
            message = try Message(decoding: datagram.bytes)
        } catch {
            return dropped(datagram, .undecodable(error))
        }
        // §11: unicast datagrams must come from on-link sources (CERT VU#550620).
        guard datagram.isMulticast || interface.isOnLink(datagram.source.address) else {
            return dropped(datagram, .offLink)
        }
        noteResponderOnThisHost(sending: datagram, on: interface)
        advance(to: now)
        if message.header.isResponse {
            // §18.11 and §6: responses with an error code or from a port other than 5353 are ignored.
            guard message.header.rcode == 0 else {
                return dropped(datagram, .errorResponse(rcode: message.header.rcode))
            }
            guard datagram.source.port == mdnsPort else {
                return dropped(datagram, .responseFromOtherPort(datagram.source.port))
            }
            diagnose(.received(message, from: datagram.source, on: datagram.interface))
            noteHostNameHolder(in: message, at: now)
            handleResponse(message, from: datagram, on: interface, at: now)
        } else {
            diagnose(.received(message, from: datagram.source, on: datagram.interface))
            handleQuery(message, from: datagram, on: interface, at: now)
        }
        return nil
    }

    /// Stops asking for unicast replies over the family of `datagram` when it comes from another
    /// responder on this host: from our address on the receiving interface and the mDNS port, and
    /// not our own (§15.1). Such a responder sends on every interface, so the receiving one tells.
    private mutating func noteResponderOnThisHost(sending datagram: ReceivedDatagram, on interface: NetworkInterface) {
        guard datagram.source.port == mdnsPort, interface.owns(datagram.source.address),
            unicastReplyFamilies.remove(datagram.source.address.family) != nil
        else { return }
        diagnose(.responderOnThisHost(datagram.source, on: datagram.interface))
    }

    /// Notes that the interface `datagram` came in on shares a link with the one that sent it,
    /// when that is another of ours: our own multicast crossed the link (RFC 6762 §14). A copy
    /// from the receiving interface's own address is the kernel's loopback, and tells nothing.
    private mutating func noteSharedLink(shownBy datagram: ReceivedDatagram) {
        guard interfaces[datagram.interface]?.interface.owns(datagram.source.address) == false,
            let sender = interfaces.owner(of: datagram.source.address, besides: datagram.interface),
            interfaces.noteSharedLink(sender, datagram.interface)
        else { return }
        diagnose(.sharedLink(datagram.interface, with: sender))
    }

    /// Notes why `datagram` was ignored, for ``takeDiagnostics()``, and returns it.
    private mutating func dropped(_ datagram: ReceivedDatagram, _ reason: DropReason) -> DropReason {
        diagnose(.dropped(reason, from: datagram.source, on: datagram.interface))
        return reason
    }

    // MARK: Sending

    /// Sends `message` to the mDNS group on every family `interface` has an address of.
    mutating func multicast(_ message: Message, on interface: NetworkInterface, purpose: OutgoingDatagram.Purpose) {
        for family in interface.families {
            send(message, on: interface.id, to: .multicast(family), purpose: purpose)
        }
    }

    /// Queues `message` for `destination` in as many packets as it needs; a message that cannot
    /// be encoded is not sent, and said so (``EngineDiagnostic/unsendable(_:_:on:)``).
    mutating func send(
        _ message: Message, on interface: InterfaceID, to destination: OutgoingDatagram.Destination,
        purpose: OutgoingDatagram.Purpose = .answer
    ) {
        guard !message.questions.isEmpty || !message.answers.isEmpty || !message.authorities.isEmpty else { return }
        let packets: [[UInt8]]
        do {
            packets = try message.encodedPackets(maximumSize: configuration.maximumDatagramSize)
        } catch {
            // An entry too large for the usual packet goes in a larger one (RFC 6762 §17).
            do {
                packets = try message.encodedPackets(maximumSize: Message.maximumSize)
            } catch {
                diagnose(.unsendable(purpose, error, on: interface))
                return
            }
        }
        for packet in packets {
            outbox.enqueue(
                OutgoingDatagram(bytes: packet, interface: interface, destination: destination, purpose: purpose))
        }
    }

    /// Reports a cache change to every query the record answers on that interface.
    mutating func report(_ change: CacheChange, _ record: ResourceRecord, on interface: InterfaceID) {
        for id in queries.asking(record.name) {
            guard let query = queries[id], query.matches(record), query.appliesTo(interface) else { continue }
            switch change {
            case .added: events.append(.added(id, record, interface))
            case .updated: events.append(.updated(id, record, interface))
            case .removed: events.append(.removed(id, record, interface))
            case .heardOver(let family): events.append(.heardOver(id, record, interface, family))
            }
        }
    }

    /// Reports `nsec` to every query on that interface whose type it denies (RFC 6762 §6.1).
    mutating func reportDenials(by nsec: ResourceRecord, on interface: InterfaceID) {
        for id in queries.asking(nsec.name) {
            guard let query = queries[id], query.appliesTo(interface), query.isDenied(by: nsec) else { continue }
            events.append(.noSuchRecord(id, query.type, nsec: nsec, interface))
        }
    }
}

enum CacheChange {
    case added, updated, removed
    /// A known record came for the first time over this family.
    case heardOver(IPFamily)
}

extension ResourceRecord {
    /// This record with TTL 0 (RFC 6762 §10.1).
    var goodbye: ResourceRecord {
        var record = self
        record.ttl = 0
        return record
    }
}
