import CiaoEngine

/// The multicast DNS engine and the DNS-SD layer above it as one state machine without I/O, the
/// part of the runtime that decides everything (RFC 6762, RFC 6763): commands, received
/// datagrams, interface changes and time in; datagrams to send and ``BackendUpdate`` values out;
/// ``nextDeadline`` says when to ``advance(to:)`` it. ``RuntimeLoop`` runs it over sockets, the
/// tests on the simulated network.
struct DiscoveryDriver {
    /// What the API asks of the driver; each names the ``BackendToken`` its updates carry.
    enum Command: Sendable {
        case publish(Publication, BackendToken)
        case updateTXT(TXTRecord, of: BackendToken)
        /// With `resolving`, each instance found is resolved until it is removed, its resolution
        /// is stopped or the browse is cancelled.
        case browse(ServiceType, subtype: String?, resolving: Bool, BackendToken)
        /// Stops resolving an instance a resolving browse found, if it is still the `found`th find.
        case stopResolving(Service, of: BackendToken, found: Int)
        case resolve(Service, BackendToken)
        case browseTypes(BackendToken)
        case lookUp(RecordLookup, BackendToken)
        /// Stops what the token started; a publication is withdrawn with goodbyes.
        case cancel(BackendToken)
        /// Every publication withdrawn and every interface left, with their goodbyes together.
        case withdrawEverything
    }

    private(set) var engine: MDNSEngine
    private var directory = ServiceDirectory()
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

    /// When ``advance(to:)`` is due next.
    var nextDeadline: Instant? { engine.nextDeadline }

    // MARK: Inputs

    mutating func handle(_ command: Command, at now: Instant) {
        switch command {
        case .publish(let publication, let token):
            directory.publish(publication, token: token, engine: &engine, at: now)
        case .updateTXT(let txtRecord, let token):
            directory.updateTXT(txtRecord, of: token, engine: &engine, at: now)
        case .browse(let type, let subtype, let resolving, let token):
            directory.browse(
                type: type, subtype: subtype, resolving: resolving, token: token, engine: &engine, at: now)
        case .stopResolving(let service, let token, let found):
            directory.stopResolving(service, of: token, found: found, engine: &engine)
        case .resolve(let service, let token):
            directory.resolve(service, token: token, engine: &engine, at: now)
        case .browseTypes(let token):
            directory.browseTypes(token: token, engine: &engine, at: now)
        case .lookUp(let lookup, let token):
            directory.lookUp(lookup, token: token, engine: &engine, at: now)
        case .cancel(let token):
            directory.cancel(token, engine: &engine, at: now)
        case .withdrawEverything:
            directory.withdrawEverything(engine: &engine, at: now)
            for id in directory.interfaceNames.keys.sorted() { removeInterface(id, at: now) }
        }
        updates += directory.takeUpdates(from: &engine, at: now)
    }

    /// A new interface, or new addresses on one (RFC 6762 §8.3, §10.2).
    mutating func setInterface(_ interface: NetworkInterface, at now: Instant) {
        directory.interfaceNames[interface.id] = interface.name
        engine.setInterface(interface, at: now)
        updates += directory.takeUpdates(from: &engine, at: now)
    }

    /// An interface gone or down: its records withdrawn, its caches emptied.
    mutating func removeInterface(_ id: InterfaceID, at now: Instant) {
        engine.removeInterface(id, at: now)
        directory.interfaceNames[id] = nil
        updates += directory.takeUpdates(from: &engine, at: now)
    }

    /// Handles one received datagram; returns why the engine ignored it, if it did.
    @discardableResult
    mutating func receive(_ datagram: ReceivedDatagram, at now: Instant) -> DropReason? {
        let dropped = engine.receive(datagram, at: now)
        updates += directory.takeUpdates(from: &engine, at: now)
        return dropped
    }

    /// Runs every timer due at `now`.
    mutating func advance(to now: Instant) {
        engine.advance(to: now)
        updates += directory.takeUpdates(from: &engine, at: now)
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
