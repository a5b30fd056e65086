import Synchronization

/// A running browse for one service type (RFC 6763 §4), started by ``CiaoBrowser``.
///
/// ``events`` buffers without bound, so no membership change is ever dropped; within one batch
/// from the network removals come before additions; a service removed is never reported resolved
/// afterwards. Cancelling the task that iterates ``events``, or releasing the session and its
/// events, stops the session; ``stop()`` is idempotent.
public actor DiscoverySession {
    public nonisolated let events: AsyncThrowingStream<DiscoveryEvent, any Error>
    private let core: DiscoveryCore

    /// The services found and not removed.
    public var services: Set<Service> { core.services }

    init(
        type: ServiceType, backend: any DiscoveryBackend, automaticallyResolve: Bool, resolutionTimeout: Duration
    ) throws(CiaoError) {
        let (events, sink) = AsyncThrowingStream<DiscoveryEvent, any Error>.makeStream()
        self.events = events
        core = DiscoveryCore(
            backend: backend, sink: sink, automaticallyResolve: automaticallyResolve,
            resolutionTimeout: resolutionTimeout)
        try core.start(type: type)
    }

    /// Stops browsing and resolving; ``events`` reports `stopped` and finishes.
    public func stop() {
        core.stop()
    }
}

/// The state of a ``DiscoverySession``, shared with the backend's callbacks, which arrive on the
/// backend's thread, and with resolution timeouts: every change and the events it yields happen
/// under one lock, so events come out in the order the changes were made.
final class DiscoveryCore: Sendable {
    private struct State {
        var browse: BackendToken?
        var services: Set<Service> = []
        /// Resolutions running for found services, with their timeouts until the first result.
        var resolutions: [Service: Resolution] = [:]
        var resolutionsStarted = 0
        var isStopped = false
    }

    private struct Resolution {
        /// Tells this resolution from an earlier one of the same service, whose late results
        /// and timeout must be ignored.
        var number: Int
        var token: BackendToken
        var timeout: Task<Void, Never>?
        var last: ResolvedService?
    }

    private let backend: any DiscoveryBackend
    private let sink: AsyncThrowingStream<DiscoveryEvent, any Error>.Continuation
    private let automaticallyResolve: Bool
    private let resolutionTimeout: Duration
    private let state = Mutex(State())

    init(
        backend: any DiscoveryBackend, sink: AsyncThrowingStream<DiscoveryEvent, any Error>.Continuation,
        automaticallyResolve: Bool, resolutionTimeout: Duration
    ) {
        self.backend = backend
        self.sink = sink
        self.automaticallyResolve = automaticallyResolve
        self.resolutionTimeout = resolutionTimeout
    }

    var services: Set<Service> { state.withLock { $0.services } }

    func start(type: ServiceType) throws(CiaoError) {
        sink.yield(.started)
        try state.withLock { (state: inout State) throws(CiaoError) in
            // Strong references: the backend drops its callbacks on cancel, and the stream's
            // termination runs once; the core lives as long as either side needs it.
            state.browse = try backend.browse(type: type) { updates in self.apply(updates) }
        }
        sink.onTermination = { _ in self.stop() }
    }

    func stop() {
        let stopped = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            if let browse = state.browse { backend.cancel(browse) }
            for resolution in state.resolutions.values {
                resolution.timeout?.cancel()
                backend.cancel(resolution.token)
            }
            state.resolutions = [:]
            sink.yield(.stopped)
            return true
        }
        if stopped { sink.finish() }
    }

    /// Applies one batch: the net change of membership, removals first.
    private func apply(_ updates: [BrowseUpdate]) {
        state.withLock { state in
            guard !state.isStopped else { return }
            let before = state.services
            var after = before
            for update in updates {
                switch update {
                case .found(let service): after.insert(service)
                case .removed(let service): after.remove(service)
                }
            }
            state.services = after
            let removed = updates.compactMap { update -> Service? in
                if case .removed(let service) = update, before.contains(service), !after.contains(service) { service } else { nil }
            }
            let found = updates.compactMap { update -> Service? in
                if case .found(let service) = update, after.contains(service), !before.contains(service) { service } else { nil }
            }
            for service in Self.unique(removed) {
                if let resolution = state.resolutions.removeValue(forKey: service) {
                    resolution.timeout?.cancel()
                    backend.cancel(resolution.token)
                }
                sink.yield(.removed(service))
            }
            for service in Self.unique(found) {
                sink.yield(.found(service))
                if automaticallyResolve { startResolving(service, in: &state) }
            }
        }
    }

    private func startResolving(_ service: Service, in state: inout State) {
        state.resolutionsStarted += 1
        let number = state.resolutionsStarted
        do {
            let token = try backend.resolve(service) { resolved in self.resolved(resolved, by: number) }
            let timeout = resolutionTimeout
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.resolutionTimedOut(service, number: number)
            }
            state.resolutions[service] = Resolution(number: number, token: token, timeout: timer)
        } catch {
            sink.yield(.resolutionFailed(service, error))
        }
    }

    private func resolved(_ resolved: ResolvedService, by number: Int) {
        state.withLock { state in
            guard !state.isStopped, state.services.contains(resolved.service),
                var resolution = state.resolutions[resolved.service], resolution.number == number,
                resolution.last != resolved
            else { return }
            resolution.timeout?.cancel()
            resolution.timeout = nil
            resolution.last = resolved
            state.resolutions[resolved.service] = resolution
            sink.yield(.resolved(resolved))
        }
    }

    private func resolutionTimedOut(_ service: Service, number: Int) {
        state.withLock { state in
            guard !state.isStopped, state.services.contains(service), let resolution = state.resolutions[service],
                resolution.number == number, resolution.last == nil
            else { return }
            state.resolutions[service] = nil
            backend.cancel(resolution.token)
            sink.yield(.resolutionFailed(service, .timedOut))
        }
    }

    private static func unique(_ services: [Service]) -> [Service] {
        var seen: Set<Service> = []
        return services.filter { seen.insert($0).inserted }
    }
}
