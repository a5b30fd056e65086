#if canImport(Glibc)
import Glibc
#endif
import CiaoEngine
import CiaoTransport
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The process's one mDNS runtime: a single engine shared by every server, browser and resolver,
/// driven on one thread (``RuntimeLoop``) that owns the sockets. The API hands it commands as
/// jobs; the loop runs them in order between network events.
///
/// It starts on first use, with the ``NetworkScope`` in force then, and runs until the process
/// ends; publications are withdrawn with goodbyes when their servers stop.
final class MDNSRuntime: DiscoveryBackend {
    static let shared = MDNSRuntime()

    /// A unit of work for the loop thread.
    typealias Job = @Sendable (RuntimeLoop) -> Void

    private struct State {
        var scope = NetworkScope.all
        var wakeup: Wakeup?
        var jobs: [Job] = []
        var nextToken: UInt64 = 1
    }

    private let state = Mutex(State())
    /// Whether the loop's last interface scan found an interface to use; true until it has scanned.
    private let interfacesPresent = Atomic<Bool>(true)
    /// The group memberships the loop's last interface scan could not make.
    let membershipFailures = ValueWatchers<[NetworkScope.MembershipFailure]>([])

    /// The scope used when the runtime starts; throws once it has started with another.
    func use(_ scope: NetworkScope) throws(CiaoError) {
        try state.withLock { (state: inout State) throws(CiaoError) in
            guard state.wakeup == nil || state.scope == scope else {
                throw .invalidConfiguration(
                    "the network scope must be chosen before the first server, browser or resolver starts")
            }
            state.scope = scope
        }
    }

    // MARK: DiscoveryBackend

    func publish(_ publication: Publication, onUpdate: @escaping @Sendable (PublicationUpdate) -> Void)
        throws(CiaoError)
        -> BackendToken
    {
        let token = newToken()
        try submit(.publish(publication, token)) { update in
            if case .publication(_, let publicationUpdate) = update { onUpdate(publicationUpdate) }
        }
        return token
    }

    func updateTXT(_ txtRecord: TXTRecord, of publication: BackendToken) {
        do {
            try submit { loop in loop.handle(.updateTXT(txtRecord, of: publication)) }
        } catch {
            // The publication started the loop; only a loop that could not start fails here.
            DiagnosticHub.shared.emit(.error, .publication, "the TXT update could not be made: \(error)")
        }
    }

    func browse(
        type: ServiceType, subtype: String?, resolutionTimeout: Duration?,
        onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) throws(CiaoError) -> BackendToken {
        let token = newToken()
        try submit(.browse(type, subtype: subtype, resolutionTimeout: resolutionTimeout, token)) { update in
            if case .browse(_, let updates) = update { onUpdate(updates) }
        }
        return token
    }

    func reconfirm(_ service: Service, of browse: BackendToken) {
        submitIfRunning { loop in loop.handle(.reconfirm(service, of: browse)) }
    }

    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolutionUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        try service.checkResolvable()
        let token = newToken()
        try submit(.resolve(service, token)) { update in
            if case .resolved(_, let resolved) = update { onUpdate(.resolved(resolved)) }
        }
        return token
    }

    func browseTypes(onUpdate: @escaping @Sendable (ServiceType) -> Void) throws(CiaoError) -> BackendToken {
        let token = newToken()
        try submit(.browseTypes(token)) { update in
            if case .serviceType(_, let type) = update { onUpdate(type) }
        }
        return token
    }

    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable (LookupUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        let token = newToken()
        try submit(.lookUp(lookup, token)) { update in
            if case .records(_, let events) = update { onUpdate(.changes(events)) }
        }
        return token
    }

    func cancel(_ token: BackendToken) {
        submitIfRunning { loop in loop.handle(.cancel(token)) }
    }

    var hasUsableInterface: Bool { interfacesPresent.load(ordering: .relaxed) }

    var asksOverIPv4: Bool { state.withLock { $0.scope.families.contains(.ipv4) } }

    /// The loop's counters; empty before it has started.
    func statistics() async -> CiaoStatistics {
        await withCheckedContinuation { (continuation: CheckedContinuation<CiaoStatistics, Never>) in
            let submitted = submitIfRunning { loop in continuation.resume(returning: loop.statisticsSnapshot()) }
            if !submitted { continuation.resume(returning: CiaoStatistics(interfaces: [], sockets: [])) }
        }
    }

    func waitForPending() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let submitted = submitIfRunning { loop in
                loop.sendAndDeliver()
                continuation.resume()
            }
            if !submitted { continuation.resume() }
        }
    }

    // MARK: Jobs

    /// A token not given out before.
    private func newToken() -> BackendToken {
        state.withLock { state in
            defer { state.nextToken += 1 }
            return BackendToken(rawValue: state.nextToken)
        }
    }

    /// Queues `command` for the loop thread; the updates of the token it names go to `callback`.
    private func submit(
        _ command: DiscoveryDriver.Command, callback: @escaping @Sendable (BackendUpdate) -> Void
    ) throws(CiaoError) {
        try submit { loop in loop.handle(command, callback: callback) }
    }

    /// Queues `job` for the loop thread, starting the loop on first use.
    private func submit(_ job: @escaping Job) throws(CiaoError) {
        let wakeup = try state.withLock { (state: inout State) throws(CiaoError) -> Wakeup in
            let wakeup: Wakeup
            if let running = state.wakeup {
                wakeup = running
            } else {
                wakeup = try startLoop(scope: state.scope)
                state.wakeup = wakeup
            }
            state.jobs.append(job)
            return wakeup
        }
        wakeup.signal()
    }

    /// Queues `job` if the loop runs; nothing to cancel or wait for otherwise, and no reason to start it.
    @discardableResult
    private func submitIfRunning(_ job: @escaping Job) -> Bool {
        let wakeup = state.withLock { state -> Wakeup? in
            guard let wakeup = state.wakeup else { return nil }
            state.jobs.append(job)
            return wakeup
        }
        wakeup?.signal()
        return wakeup != nil
    }

    /// The jobs queued since the last call, in order.
    private func takeJobs() -> [Job] {
        state.withLock { state in
            defer { state.jobs = [] }
            return state.jobs
        }
    }

    /// Opens the sockets (so that failures surface to the caller) and starts the loop thread.
    private func startLoop(scope: NetworkScope) throws(CiaoError) -> Wakeup {
        let loop: RuntimeLoop
        do {
            loop = try RuntimeLoop(
                scope: scope, hostLabel: Self.defaultHostLabel(),
                reportInterfacesPresent: { [self] present in interfacesPresent.store(present, ordering: .relaxed) },
                reportMembershipFailures: { [self] failures in membershipFailures.set(failures) })
        } catch {
            throw Self.startFailure(error)
        }
        let transfer = LoopTransfer(loop: loop)
        try DetachedThread.start("multicast DNS") { [self] in transfer.loop.run(takeJobs: takeJobs) }
        if self === MDNSRuntime.shared {
            atexit { MDNSRuntime.shared.withdrawEverythingBeforeExit() }
        }
        return loop.wakeup
    }

    /// The error for sockets that could not be opened; when the port is taken, how to find the
    /// program that holds it without letting others share it (RFC 6762 §15.1).
    static func startFailure(_ error: TransportError) -> CiaoError {
        var message = "cannot start multicast DNS: \(error)"
        if error.errno == EADDRINUSE {
            message +=
                "; another program holds UDP port 5353 without SO_REUSEADDR (or with only SO_REUSEPORT, as"
                + " another user), so Ciao cannot share it: find it with sudo ss -ulpne 'sport = :5353'"
        }
        return .network(message)
    }

    /// Goodbyes for every publication and the host's addresses when the process exits normally
    /// (RFC 6762 §10.1), so that other hosts drop them at once rather than when their records
    /// expire. Waits at most half a second for the loop thread.
    private func withdrawEverythingBeforeExit() {
        let done = DispatchSemaphore(value: 0)
        let submitted = submitIfRunning { loop in
            loop.withdrawEverything()
            done.signal()
        }
        if submitted { _ = done.wait(timeout: .now() + .milliseconds(500)) }
    }

    /// The machine's host name up to its first dot, as the host label (`<label>.local.`, and the
    /// SRV target's first label of a wide-area publication without ``WideAreaOptions/hostName``).
    static func defaultHostLabel() -> String {
        let name = ProcessInfo.processInfo.hostName.prefix { $0 != "." }
        return name.isEmpty || name == "localhost" ? "Ciao" : String(name)
    }
}

/// Hands the loop to its thread, which is its only user from then on.
private struct LoopTransfer: @unchecked Sendable {
    let loop: RuntimeLoop
}
