import CiaoUnicastDNS
import Synchronization

/// Serves one unicast DNS domain behind the public API (RFC 6763 over unicast DNS): browsing,
/// resolving and type enumeration by asking again at 80 % of each TTL (``WideAreaBrowse``),
/// publishing by signed DNS UPDATE (``WideAreaPublication``). Callbacks come from a task per
/// token, in order; record lookups are for `local.` only.
final class WideAreaBackend: DiscoveryBackend {
    /// The domain served, with its trailing dot.
    let domain: String
    private let loop: UnicastDNSLoop
    private let browser: WideAreaBrowse
    private let work = Mutex<[BackendToken: Work]>([:])
    /// Publications cancelled whose records are still being deleted; ``waitForPending()`` waits for them.
    private let withdrawals = Mutex<[BackendToken: Task<Void, Never>]>([:])
    private let nextToken = Atomic<UInt64>(0)
    /// The instances each resolving browse no longer resolves (their resolution timed out); a
    /// round asks for every instance anyway, so their results are dropped until they are removed.
    private let unresolved = Mutex<[BackendToken: Set<Service>]>([:])

    /// What a token started.
    private enum Work {
        case task(Task<Void, Never>)
        case publication(WideAreaPublication, events: Task<Void, Never>)
    }

    /// A backend for `domain` asking through `loop`, which backends of other domains may share.
    init(domain: String, loop: UnicastDNSLoop) {
        self.domain = Service.normalisedDomain(domain)
        self.loop = loop
        browser = WideAreaBrowse(loop: loop)
    }

    /// The backend for `domain` on the process's unicast DNS loop, which asks the servers of
    /// `/etc/resolv.conf` as they were when it started.
    static func shared(for domain: String) throws(CiaoError) -> any DiscoveryBackend {
        WideAreaBackend(domain: domain, loop: try UnicastDNSLoop.system.get())
    }

    var hasUsableInterface: Bool { true }

    func publish(_ publication: Publication, onUpdate: @escaping @Sendable (PublicationUpdate) -> Void)
        throws(CiaoError) -> BackendToken
    {
        guard let options = publication.wideArea else {
            throw .invalidConfiguration("publishing in \(domain) is a DNS UPDATE, signed with a key: set wideArea")
        }
        let running = try WideAreaPublication(publication, domain: domain, options: options, loop: loop)
        let token = makeToken()
        let events = Task {
            for await event in running.events {
                switch event {
                case .registered(let name, let hostName, _, _): onUpdate(.registered(name: name, hostName: hostName))
                case .failed(.dnsService(CiaoError.Code.nameConflict)): onUpdate(.nameConflict)
                case .failed(let error): onUpdate(.failed(error))
                case .deregistered: return
                }
            }
        }
        work.withLock { $0[token] = .publication(running, events: events) }
        return token
    }

    func updateTXT(_ txtRecord: TXTRecord, of publication: BackendToken) {
        guard case .publication(let running, _) = work.withLock({ $0[publication] }) else { return }
        running.updateTXT(txtRecord)
    }

    func browse(
        type: ServiceType, subtype: String?, resolving: Bool, onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) throws(CiaoError) -> BackendToken {
        let events = try browser.events(type: type, subtype: subtype, domain: domain, resolving: resolving)
        let token = makeToken()
        start(events, as: token) { [self] event in
            switch event {
            case .found(let service): onUpdate([.found(service)])
            case .removed(let service):
                unresolved.withLock { _ = $0[token]?.remove(service) }
                onUpdate([.removed(service)])
            case .resolved(let resolved):
                guard !unresolved.withLock({ $0[token]?.contains(resolved.service) == true }) else { return }
                onUpdate([.resolved(resolved)])
            case .failed(let error):
                // asked again next round; the session has no event for it, so the log tells
                DiagnosticHub.shared.emit(.warning, .query, "browsing \(type) in \(self.domain): \(error)")
            default: break
            }
        }
        return token
    }

    func stopResolving(_ service: Service, of browse: BackendToken) {
        unresolved.withLock { _ = $0[browse, default: []].insert(service) }
    }

    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolvedService) -> Void) throws(CiaoError)
        -> BackendToken
    {
        let token = makeToken()
        start(try browser.resolveEvents(service), as: token) { event in
            if case .resolved(let resolved) = event { onUpdate(resolved) }
        }
        return token
    }

    func browseTypes(onUpdate: @escaping @Sendable (ServiceType) -> Void) throws(CiaoError) -> BackendToken {
        let token = makeToken()
        start(try browser.typeEvents(domain: domain), as: token) { event in
            if case .typeFound(let type) = event { onUpdate(type) }
        }
        return token
    }

    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable ([RecordEvent]) -> Void) throws(CiaoError)
        -> BackendToken
    {
        throw .invalidConfiguration("record lookups go over multicast DNS only, not in \(domain)")
    }

    func cancel(_ token: BackendToken) {
        unresolved.withLock { $0[token] = nil }
        switch work.withLock({ $0.removeValue(forKey: token) }) {
        case .task(let task): task.cancel()
        case .publication(let running, let events):
            withdrawals.withLock { $0[token] = events }
            running.stop()
            Task { [self] in
                await events.value
                withdrawals.withLock { $0[token] = nil }
            }
        case nil: return
        }
    }

    /// Returns once the records of every publication cancelled so far are deleted (or their
    /// deletion has failed).
    func waitForPending() async {
        for task in withdrawals.withLock({ Array($0.values) }) { await task.value }
    }

    /// Runs `handle` on each of `events` in a task that ``cancel(_:)`` of `token` ends.
    private func start(
        _ events: AsyncStream<WideAreaBrowse.Event>, as token: BackendToken,
        _ handle: @escaping @Sendable (WideAreaBrowse.Event) -> Void
    ) {
        let task = Task { for await event in events { handle(event) } }
        work.withLock { $0[token] = .task(task) }
    }

    private func makeToken() -> BackendToken {
        BackendToken(rawValue: nextToken.add(1, ordering: .relaxed).newValue)
    }
}

extension UnicastDNSLoop {
    /// The process's loop for unicast domains, started at its first use, asking the servers
    /// `/etc/resolv.conf` named then.
    static let system = Result { () throws(CiaoError) in try UnicastDNSLoop(configuration: .system()) }
}
