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
    /// The instances each resolving browse has found and not lost, each with the number of its
    /// find and the task resolving it.
    private let automatic = Mutex<[BackendToken: AutomaticResolutions]>([:])

    /// A resolving browse's instances, finds counted as ``DiscoveryBackend/stopResolving(_:of:found:)`` says.
    private struct AutomaticResolutions {
        var present: [Service: (found: Int, resolution: Resolution)] = [:]
        var finds = 0
    }

    private enum Resolution {
        case starting
        case running(Task<Void, Never>)
        case stopped

        var task: Task<Void, Never>? { if case .running(let task) = self { task } else { nil } }
    }

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
        let events = try browser.events(type: type, subtype: subtype, domain: domain, resolving: false)
        let token = makeToken()
        if resolving { automatic.withLock { $0[token] = AutomaticResolutions() } }
        start(events, as: token) { [self] event in
            switch event {
            case .found(let service):
                onUpdate([.found(service)])
                if resolving { startResolving(service, of: token, onUpdate: onUpdate) }
            case .removed(let service):
                let entry = automatic.withLock { $0[token]?.present.removeValue(forKey: service) }
                entry?.resolution.task?.cancel()
                onUpdate([.removed(service)])
            case .failed(let error):
                // asked again next round; the session has no event for it, so the log tells
                DiagnosticHub.shared.emit(.warning, .query, "browsing \(type) in \(self.domain): \(error)")
            default: break
            }
        }
        return token
    }

    func stopResolving(_ service: Service, of browse: BackendToken, found: Int) {
        let task = automatic.withLock { automatic -> Task<Void, Never>? in
            guard let entry = automatic[browse]?.present[service], entry.found == found else { return nil }
            automatic[browse]?.present[service]?.resolution = .stopped
            return entry.resolution.task
        }
        task?.cancel()
    }

    /// Resolves an instance a resolving browse found, concurrently with the others, until it is
    /// removed, stopped or the browse cancelled; a service found again while present is no change.
    private func startResolving(
        _ service: Service, of browse: BackendToken, onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) {
        let found = automatic.withLock { automatic -> Int? in
            guard var resolutions = automatic[browse], resolutions.present[service] == nil else { return nil }
            resolutions.finds += 1
            resolutions.present[service] = (resolutions.finds, .starting)
            automatic[browse] = resolutions
            return resolutions.finds
        }
        guard let found else { return }
        let events: AsyncStream<WideAreaBrowse.Event>
        do {
            events = try browser.resolveEvents(service)
        } catch {
            // The session's resolution timeout reports it.
            DiagnosticHub.shared.emit(.warning, .query, "resolving \(service) in \(domain): \(error)")
            return
        }
        let task = Task {
            for await event in events {
                if case .resolved(let resolved) = event { onUpdate([.resolved(resolved)]) }
            }
        }
        let wanted = automatic.withLock { automatic -> Bool in
            guard let entry = automatic[browse]?.present[service], entry.found == found,
                case .starting = entry.resolution
            else { return false }
            automatic[browse]?.present[service]?.resolution = .running(task)
            return true
        }
        if !wanted { task.cancel() }
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
        if let resolutions = automatic.withLock({ $0.removeValue(forKey: token) }) {
            for entry in resolutions.present.values { entry.resolution.task?.cancel() }
        }
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
