import CiaoUnicastDNS
import Synchronization

/// Serves one unicast DNS domain behind the public API (RFC 6763 over unicast DNS): browsing,
/// resolving and type enumeration by asking again at 80 % of each TTL (``WideAreaBrowse``),
/// publishing by signed DNS UPDATE (``WideAreaPublication``). Callbacks come from a task per
/// token, in order; a resolving browse's also come from each find's resolution task and from its
/// timeout on ``DeadlineScheduler``, one at a time (``delivering(_:)``); record lookups of names
/// outside `local.` by asking again likewise.
final class WideAreaBackend: DiscoveryBackend {
    /// The domain served, with its trailing dot.
    let domain: String
    private let loop: UnicastDNSLoop
    private let browser: WideAreaBrowse
    private let work = Mutex<[BackendToken: Work]>([:])
    /// Publications cancelled whose records are still being deleted; ``waitForPending()`` waits for them.
    private let withdrawals = Mutex<[BackendToken: Task<Void, Never>]>([:])
    private let nextToken = Atomic<UInt64>(0)
    /// Held while a resolving browse's callback runs, with the check that the find it is about is
    /// still current: a find's failure or result is never delivered after its removal.
    private let delivery = Mutex(())
    /// The instances each resolving browse has found and not lost, each with its resolution.
    private let automatic = Mutex<[BackendToken: AutomaticResolutions]>([:])

    /// A resolving browse's instances, and how long the resolution of each may go without a result.
    private struct AutomaticResolutions {
        var timeout: Duration
        var present: [Service: AutomaticResolution] = [:]
        var finds = 0
    }

    /// The resolution of one find: its number tells it from a later find of the same service.
    private struct AutomaticResolution {
        var find: Int
        /// Until the first result.
        var timeout: DeadlineScheduler.Token?
        var resolving: Task<Void, Never>?
        /// Brings the resolution's next round forward (a reconfirmation).
        let trigger = RoundTrigger()
        /// A result came: the timeout no longer applies.
        var hasResult = false
        /// The timeout passed first: nothing more of this find is reported.
        var hasFailed = false

        func cancel() {
            DeadlineScheduler.shared.cancel(timeout)
            resolving?.cancel()
        }
    }

    /// What a token started.
    private enum Work {
        case task(Task<Void, Never>)
        /// A browse, whose next round its trigger brings forward.
        case browse(Task<Void, Never>, RoundTrigger)
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
        WideAreaBackend(domain: domain, loop: try SystemResolver.loop.get())
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
        type: ServiceType, subtype: String?, resolutionTimeout: Duration?,
        onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) throws(CiaoError) -> BackendToken {
        let trigger = RoundTrigger()
        let events = try browser.events(
            type: type, subtype: subtype, domain: domain, resolving: false, trigger: trigger)
        let token = makeToken()
        if let resolutionTimeout {
            automatic.withLock { $0[token] = AutomaticResolutions(timeout: resolutionTimeout) }
        }
        let task = Self.consume(events) { [self] event in
            switch event {
            case .found(let service):
                delivering { onUpdate([.found(service)]) }
                if resolutionTimeout != nil { startResolving(service, of: token, onUpdate: onUpdate) }
            case .removed(let service):
                delivering {
                    automatic.withLock { $0[token]?.present.removeValue(forKey: service) }?.cancel()
                    onUpdate([.removed(service)])
                }
            case .failed(let error):
                // asked again next round; the session has no event for it, so the log tells
                DiagnosticHub.shared.emit(.warning, .query, "browsing \(type) in \(self.domain): \(error)")
            default: break
            }
        }
        work.withLock { $0[token] = .browse(task, trigger) }
        return token
    }

    /// Resolves an instance a resolving browse found, concurrently with the others, until it is
    /// removed, the browse is cancelled or the timeout passes without a result; a service found
    /// again while present is no change.
    private func startResolving(
        _ service: Service, of browse: BackendToken, onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) {
        let started = automatic.withLock { automatic -> (Int, RoundTrigger)? in
            guard var resolutions = automatic[browse], resolutions.present[service] == nil else { return nil }
            resolutions.finds += 1
            let find = resolutions.finds
            // Its action waits for this lock, so it finds the entry in place.
            let timeout = DeadlineScheduler.shared.schedule(after: resolutions.timeout) { [self] in
                delivering {
                    if failResolution(of: service, find: find, browse: browse) {
                        onUpdate([.resolutionFailed(service)])
                    }
                }
            }
            let resolution = AutomaticResolution(find: find, timeout: timeout)
            resolutions.present[service] = resolution
            automatic[browse] = resolutions
            return (find, resolution.trigger)
        }
        guard let (find, trigger) = started else { return }
        var resolving: Task<Void, Never>?
        do {
            let events = try browser.resolveEvents(service, trigger: trigger)
            resolving = Task { [self] in
                for await event in events {
                    guard case .resolved(let resolved) = event else { continue }
                    let isCurrent = delivering { () -> Bool in
                        guard noteResult(of: service, find: find, browse: browse) else { return false }
                        onUpdate([.resolved(resolved)])
                        return true
                    }
                    guard isCurrent else { return }
                }
            }
        } catch {
            // The timeout reports it.
            DiagnosticHub.shared.emit(.warning, .query, "resolving \(service) in \(domain): \(error)")
        }
        let isWanted = automatic.withLock { automatic -> Bool in
            guard let entry = automatic[browse]?.present[service], entry.find == find, !entry.hasFailed else {
                return false
            }
            automatic[browse]?.present[service]?.resolving = resolving
            return true
        }
        if !isWanted { resolving?.cancel() }
    }

    /// Notes a result of the `find`th find's resolution; returns whether it is still to be
    /// reported (the timeout has not passed first, the service is still present).
    private func noteResult(of service: Service, find: Int, browse: BackendToken) -> Bool {
        let (isCurrent, timeout) = automatic.withLock { automatic -> (Bool, DeadlineScheduler.Token?) in
            guard var entry = automatic[browse]?.present[service], entry.find == find, !entry.hasFailed else {
                return (false, nil)
            }
            let timeout = entry.timeout
            entry.hasResult = true
            entry.timeout = nil
            automatic[browse]?.present[service] = entry
            return (true, timeout)
        }
        DeadlineScheduler.shared.cancel(timeout)
        return isCurrent
    }

    /// Fails the `find`th find's resolution and stops it, if it has no result yet; returns
    /// whether it failed.
    private func failResolution(of service: Service, find: Int, browse: BackendToken) -> Bool {
        let failed = automatic.withLock { automatic -> AutomaticResolution? in
            guard var entry = automatic[browse]?.present[service], entry.find == find, !entry.hasResult,
                !entry.hasFailed
            else { return nil }
            entry.hasFailed = true
            automatic[browse]?.present[service] = entry
            return entry
        }
        failed?.resolving?.cancel()
        return failed != nil
    }

    /// Asks the server for the browse's PTR records again at once, rather than at 80 % of their
    /// TTL (up to an hour away), and, in a resolving browse, for the service's SRV, TXT and
    /// addresses: the browse reports the service removed if the zone no longer holds its PTR
    /// record, resolved anew if what it resolved to has changed. The server's answer has
    /// authority, so nothing waits ten seconds.
    func reconfirm(_ service: Service, of browse: BackendToken) {
        guard case .browse(_, let trigger) = work.withLock({ $0[browse] }) else { return }
        trigger.fire()
        automatic.withLock { $0[browse]?.present[service]?.trigger }?.fire()
    }

    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolutionUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        let token = makeToken()
        start(try browser.resolveEvents(service), as: token) { [domain] event in
            switch event {
            case .resolved(let resolved): onUpdate(.resolved(resolved))
            case .resolutionFailed(_, let error):
                // A continuous resolution has no event for it, so the log tells.
                DiagnosticHub.shared.emit(.warning, .query, "resolving \(service) in \(domain): \(error)")
                onUpdate(.failed(error))
            default: break
            }
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

    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable (LookupUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        let token = makeToken()
        start(browser.lookupEvents(lookup), as: token) { event in
            switch event {
            case .records(let events): onUpdate(.changes(events))
            case .questionFailed(let type, let error):
                // A continuous lookup has no event for it, so the log tells.
                DiagnosticHub.shared.emit(.warning, .query, "looking up \(type) records of \(lookup.name): \(error)")
                onUpdate(.failed(DNSRecordType(rawValue: type.rawValue), error))
            default: break
            }
        }
        return token
    }

    func cancel(_ token: BackendToken) {
        if let resolutions = automatic.withLock({ $0.removeValue(forKey: token) }) {
            for entry in resolutions.present.values { entry.cancel() }
        }
        switch work.withLock({ $0.removeValue(forKey: token) }) {
        case .task(let task), .browse(let task, _): task.cancel()
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
        let task = Self.consume(events, handle)
        work.withLock { $0[token] = .task(task) }
    }

    /// A task running `handle` on each of `events`.
    private static func consume(
        _ events: AsyncStream<WideAreaBrowse.Event>, _ handle: @escaping @Sendable (WideAreaBrowse.Event) -> Void
    ) -> Task<Void, Never> {
        Task { for await event in events { handle(event) } }
    }

    /// Runs `body`, which checks a find and calls a resolving browse's callback, with no other
    /// such body running.
    @discardableResult
    private func delivering<Result>(_ body: () -> Result) -> Result {
        delivery.withLock { _ in body() }
    }

    private func makeToken() -> BackendToken {
        BackendToken(rawValue: nextToken.add(1, ordering: .relaxed).newValue)
    }
}
