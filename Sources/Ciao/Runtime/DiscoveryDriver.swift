import CiaoEngine

/// The multicast DNS engine and the DNS-SD layer above it as one state machine without I/O, the
/// part of the runtime that decides everything (RFC 6762, RFC 6763): commands, received
/// datagrams, interface changes and time in; datagrams to send and ``BackendUpdate`` values out;
/// ``nextDeadline`` says when it is due an ``Input/advance``. ``RuntimeLoop`` runs it over
/// sockets, the tests on the simulated network.
struct DiscoveryDriver {
    /// What the API asks of the driver; each names the ``BackendToken`` its updates carry.
    enum Command: Sendable {
        case publish(Publication, BackendToken)
        case updateTXT(TXTRecord, of: BackendToken)
        /// With a `resolutionTimeout`, each instance found is resolved until it is removed or the
        /// browse is cancelled, or fails when the timeout passes without a result.
        case browse(ServiceType, subtype: String?, resolutionTimeout: Duration?, BackendToken)
        case resolve(Service, BackendToken)
        case browseTypes(BackendToken)
        case lookUp(RecordLookup, BackendToken)
        /// The records that made a browse find a service asked for again, as after a failed
        /// connection to it; the browse reports it removed unless its publisher answers.
        case reconfirm(Service, of: BackendToken)
        /// Stops what the token started; a publication is withdrawn with goodbyes.
        case cancel(BackendToken)
        /// Every publication withdrawn and every interface left, with their goodbyes together.
        case withdrawEverything
    }

    private(set) var engine: MDNSEngine
    private(set) var directory = ServiceDirectory()
    /// The updates worked out since ``takeUpdates()``, each input's at its end.
    private var updates: [BackendUpdate] = []

    init(engine: MDNSEngine) {
        self.engine = engine
    }

    /// Whether the engine keeps what it received, met and decided about publications, for
    /// ``takeDiagnostics()``.
    var reportsDiagnostics: Bool {
        get { engine.reportsDiagnostics }
        set { engine.reportsDiagnostics = newValue }
    }

    /// When an ``Input/advance`` is due next: for the engine's timers or a resolution's timeout.
    var nextDeadline: Instant? { earlier(engine.nextDeadline, directory.nextDeadline) }

    /// The interfaces the driver runs on, in ID order, as last set (``MDNSEngine/networkInterfaces``):
    /// the one record of them.
    var interfaces: [NetworkInterface] { engine.networkInterfaces }

    /// The interface `id` as last set, or nil when the driver does not run on it.
    func interface(_ id: InterfaceID) -> NetworkInterface? { engine.networkInterface(id) }

    /// The name of interface `id`, or its index once the driver no longer runs on it.
    func interfaceName(_ id: InterfaceID) -> String { engine.interfaceName(id) }

    // MARK: Inputs

    /// Everything that can happen to the driver; ``handle(_:at:)`` takes one at a time.
    enum Input: Sendable {
        case command(Command)
        /// A new interface, or new addresses on one: probed and announced (RFC 6762 §8.3, §10.2).
        case setInterface(NetworkInterface)
        /// An interface gone or down: its records withdrawn, its caches emptied.
        case removeInterface(InterfaceID)
        /// A datagram received on an mDNS socket.
        case receive(ReceivedDatagram)
        /// Time has passed: every timer due runs.
        case advance
    }

    /// Handles one input at `now`, then turns the engine's events into updates, round by round
    /// until there are none left (a resolution started finds cached answers at once), and fails
    /// the automatic resolutions still without a result at their timeout; the updates are kept
    /// for ``takeUpdates()``. Returns why the engine ignored a received datagram, if it did.
    @discardableResult
    mutating func handle(_ input: Input, at now: Instant) -> DropReason? {
        var dropped: DropReason?
        switch input {
        case .command(let command): carryOut(command, at: now)
        case .setInterface(let interface): engine.setInterface(interface, at: now)
        case .removeInterface(let id): engine.removeInterface(id, at: now)
        case .receive(let datagram): dropped = engine.receive(datagram, at: now)
        case .advance: engine.advance(to: now)
        }
        while case let events = engine.takeEvents(), !events.isEmpty {
            updates += directory.handle(events, engine: &engine, at: now)
        }
        updates += directory.failResolutions(dueBy: now, engine: &engine)
        return dropped
    }

    /// Carries out one command; the DNS-SD layer starts or stops what it needs in the engine.
    private mutating func carryOut(_ command: Command, at now: Instant) {
        switch command {
        case .publish(let publication, let token):
            updates += directory.publish(publication, token: token, engine: &engine, at: now)
        case .updateTXT(let txtRecord, let token):
            directory.updateTXT(txtRecord, of: token, engine: &engine, at: now)
        case .browse(let type, let subtype, let resolutionTimeout, let token):
            directory.browse(
                type: type, subtype: subtype, resolutionTimeout: resolutionTimeout, token: token, engine: &engine,
                at: now)
        case .resolve(let service, let token):
            directory.resolve(service, token: token, engine: &engine, at: now)
        case .browseTypes(let token):
            directory.browseTypes(token: token, engine: &engine, at: now)
        case .lookUp(let lookup, let token):
            directory.lookUp(lookup, token: token, engine: &engine, at: now)
        case .reconfirm(let service, let token):
            directory.reconfirm(service, of: token, engine: &engine, at: now)
        case .cancel(let token):
            directory.cancel(token, engine: &engine, at: now)
        case .withdrawEverything:
            directory.withdrawEverything(engine: &engine, at: now)
        }
    }

    /// Moves the times of the multicast just taken to `time`, when it left (RFC 6762 §6), and
    /// logs it as sent, to know it when the kernel loops it back.
    mutating func noteSent(at time: Instant) {
        engine.noteSent(at: time)
    }

    // MARK: Outputs

    /// The datagrams to send, in order.
    mutating func takeDatagrams() -> [OutgoingDatagram] {
        engine.takeDatagrams()
    }

    /// The updates since the last call, in order.
    mutating func takeUpdates() -> [BackendUpdate] {
        defer { updates = [] }
        return updates
    }

    /// What the engine received, met and decided about publications since the last call, while
    /// ``reportsDiagnostics`` is on.
    mutating func takeDiagnostics() -> [EngineDiagnostic] {
        engine.takeDiagnostics()
    }
}
