import Synchronization

/// Publishes one service at a time (RFC 6763 §4–§6): in `local.` over multicast DNS (RFC 6762),
/// under a name that probing has found free, withdrawn with goodbyes; in another domain by signed
/// DNS UPDATE (RFC 2136, RFC 8945), withdrawn by deleting its records. Keeps its TXT record current.
///
/// Starting again replaces the current publication; a start that is superseded, cancelled or
/// stopped before it succeeds throws and never reports success late.
public actor CiaoServer {
    /// The publication's events, in order; never finishes while the server lives.
    public nonisolated let events: AsyncStream<PublicationEvent>
    /// The service as published now (its name after any renaming), or nil.
    public private(set) var publishedService: PublishedService?

    private let eventSink: AsyncStream<PublicationEvent>.Continuation
    private let backends: BackendSelection
    private var current: ActivePublication?
    private var generation = 0
    /// Backend updates on their way to the actor, in order (see ``receive(_:generation:)``).
    private let inbox = Mutex(UpdateInbox())

    private struct UpdateInbox {
        var updates: [(update: PublicationUpdate, generation: Int)] = []
        /// True while a task is on its way to apply `updates`.
        var isDraining = false
    }

    /// One publication, from `start` until it is withdrawn.
    private struct ActivePublication: Sendable {
        var generation: Int
        /// The backend of the configuration's domain.
        var backend: any DiscoveryBackend
        var token: BackendToken
        var configuration: PublicationConfiguration
        var port: UInt16
        var reservation: (any ListenerPort)?
        var pendingStart: CheckedContinuation<PublishedService, any Error>?
        var timeout: DeadlineScheduler.Token?
        /// A conflict has taken a name this publication probed: a start that then times out lost
        /// to other owners, it did not wait for an answer.
        var hasLostAName = false
    }

    /// Creates a server on the process's shared runtimes (multicast DNS for `local.`, unicast DNS
    /// for other domains); nothing is published until ``start(_:timeout:)``.
    public init() {
        self.init(backends: .shared)
    }

    init(backends: BackendSelection) {
        self.backends = backends
        (events, eventSink) = AsyncStream.makeStream()
    }

    deinit {
        if let current {
            current.backend.cancel(current.token)
            DeadlineScheduler.shared.cancel(current.timeout)
        }
        eventSink.finish()
    }

    /// Publishes `configuration` and returns once the name is ours (probing takes about 0.75 s,
    /// RFC 6762 §8.1; without a usable interface it waits for one; in a unicast domain, once the
    /// server has accepted the update). Throws `invalidConfiguration`
    /// before any network work for a bad configuration or a non-positive timeout;
    /// `dnsService(-65548)` on a conflict with renaming off, or when conflicts kept taking the
    /// names it tried until the timeout; `network` when a unicast DNS server refused the update or
    /// its signature; `timedOut`, or
    /// ``CiaoError/noUsableInterface`` if no interface came; `stopped` if ``stop()`` or another
    /// start came first; `CancellationError`.
    public func start(_ configuration: PublicationConfiguration, timeout: Duration = .seconds(10)) async throws
        -> PublishedService
    {
        let generation = try begin(configuration, timeout: timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                current?.pendingStart = continuation
                current?.timeout = DeadlineScheduler.shared.schedule(after: timeout) { [weak self] in
                    Task { await self?.timeOutStart(generation: generation) }
                }
                if Task.isCancelled { failStart(generation: generation, with: CancellationError()) }
            }
        } onCancel: {
            Task { await self.failStart(generation: generation, with: CancellationError()) }
        }
    }

    /// The synchronous part of ``start(_:timeout:)``: checks, then hands the publication to the
    /// backend. Kept out of the async function so that the task waiting for probing to end holds
    /// none of its locals: a task keeps the most stack it ever used for the rest of its life.
    private func begin(_ configuration: PublicationConfiguration, timeout: Duration) throws -> Int {
        guard timeout > .zero else {
            throw CiaoError.invalidConfiguration("the start timeout must be positive, not \(timeout)")
        }
        try configuration.validate()
        let backend = try backends.backend(for: configuration.domain)
        try Task.checkCancellation()
        withdraw(reportingStopped: true)
        generation += 1
        let generation = self.generation
        let reservation = configuration.mode == .listener ? try backends.reserveListenerPort(configuration.type) : nil
        let port = reservation?.port ?? configuration.port
        let token = try backend.publish(Publication(configuration, port: port)) { [weak self] in
            self?.receive($0, generation: generation)
        }
        current = ActivePublication(
            generation: generation, backend: backend, token: token, configuration: configuration, port: port,
            reservation: reservation)
        return generation
    }

    /// Replaces the TXT record of the running publication; browsers see the change (RFC 6762 §8.4).
    /// ``TXTRecord/empty`` clears it. Throws `stopped` when nothing is published.
    public func updateTXT(_ txtRecord: TXTRecord) async throws {
        guard let active = current else { throw CiaoError.stopped }
        try PublicationConfiguration.checkFits(
            txtRecord, name: publishedService?.service.name ?? active.configuration.name,
            type: active.configuration.type)
        current?.configuration.txtRecord = txtRecord
        active.backend.updateTXT(txtRecord, of: active.token)
        await active.backend.waitForPending()
    }

    /// Withdraws the publication (goodbyes, or the records deleted from the zone) and returns
    /// once that is done. Idempotent.
    public func stop() async {
        let backend = current?.backend
        withdraw(reportingStopped: true)
        await backend?.waitForPending()
    }

    // MARK: Updates from the backend

    /// Called on the backend's thread: queues `update` and, unless a task is already on its way
    /// to apply the queue, starts one. A publication has a handful of updates in its life, so no
    /// task waits for them meanwhile, and one drain at a time keeps them in order.
    private nonisolated func receive(_ update: PublicationUpdate, generation: Int) {
        let startsDrain = inbox.withLock { inbox in
            inbox.updates.append((update, generation))
            defer { inbox.isDraining = true }
            return !inbox.isDraining
        }
        if startsDrain { Task { await self.drainInbox() } }
    }

    /// Applies the queued updates in order, until none is left.
    private func drainInbox() {
        while true {
            let batch = inbox.withLock { inbox in
                defer { inbox.updates = [] }
                if inbox.updates.isEmpty { inbox.isDraining = false }
                return inbox.updates
            }
            guard !batch.isEmpty else { return }
            for (update, generation) in batch { apply(update, generation: generation) }
        }
    }

    private func apply(_ update: PublicationUpdate, generation: Int) {
        guard let active = current, active.generation == generation else { return }
        switch update {
        case .registered(let name, let hostName):
            let published = PublishedService(
                service: Service(name: name, type: active.configuration.type), port: active.port, hostName: hostName)
            publishedService = published
            eventSink.yield(.started(published))
            DeadlineScheduler.shared.cancel(active.timeout)
            current?.timeout = nil
            if let pending = active.pendingStart {
                current?.pendingStart = nil
                pending.resume(returning: published)
            }
        case .nameConflict:
            failStart(generation: generation, with: CiaoError.dnsService(CiaoError.Code.nameConflict))
        case .lostName:
            current?.hasLostAName = true
        case .failed(let error):
            failStart(generation: generation, with: error, evenOnceStarted: true)
        }
    }

    /// Fails a start that timed out: a name conflict if conflicts kept taking its names (RFC 6762
    /// §9), ``CiaoError/noUsableInterface`` if there was no interface, `timedOut` otherwise.
    private func timeOutStart(generation: Int) {
        let error: CiaoError =
            current?.hasLostAName == true
            ? .dnsService(CiaoError.Code.nameConflict) : current?.backend.timeoutError ?? .timedOut
        failStart(generation: generation, with: error)
    }

    /// Ends the publication of `generation` with `error`: the pending start throws it, and a
    /// `CiaoError` is also reported as ``PublicationEvent/failed(_:)``. Once started, only a name
    /// conflict ends it, or an error `evenOnceStarted` (the backend gave up on the publication).
    private func failStart(generation: Int, with error: any Error, evenOnceStarted: Bool = false) {
        guard let active = current, active.generation == generation else { return }
        if let pending = active.pendingStart {
            current?.pendingStart = nil
            pending.resume(throwing: error)
        } else if !evenOnceStarted && error as? CiaoError != .dnsService(CiaoError.Code.nameConflict) {
            // A timeout or cancellation that lost the race with success: the start succeeded.
            return
        }
        if let error = error as? CiaoError { eventSink.yield(.failed(error)) }
        withdraw(reportingStopped: false)
    }

    /// Cancels the current publication, if any: goodbyes, the port reservation closed, a pending
    /// start failed with `stopped`; `stopped` is reported only for a publication that had started.
    private func withdraw(reportingStopped: Bool) {
        guard let active = current else { return }
        current = nil
        active.backend.cancel(active.token)
        DeadlineScheduler.shared.cancel(active.timeout)
        active.pendingStart?.resume(throwing: CiaoError.stopped)
        if reportingStopped && publishedService != nil {
            eventSink.yield(.stopped)
        }
        publishedService = nil
    }
}
