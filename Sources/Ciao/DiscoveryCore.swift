import Synchronization

/// The state of a ``DiscoverySession``, shared with the backend's callbacks (which arrive on the
/// backend's thread) and with resolution timeouts. Every change, and the events it yields, happens
/// under one lock, so events come out in the order the changes were made; calls into the backend
/// happen after the lock is released.
final class DiscoveryCore: Sendable {
    private struct State {
        var browse: BackendToken?
        var services: Set<Service> = []
        /// Resolutions of found services.
        var resolutions: [Service: Resolution] = [:]
        var resolutionsStarted = 0
        /// When each resolution started without a result yet times out, in start order (every
        /// resolution has the same timeout, so that is deadline order). Entries of resolutions
        /// that succeeded or ended meanwhile are skipped when they come due.
        var deadlines: [ResolutionDeadline] = []
        /// The one task sleeping until the first deadline: a task per resolution would hold a
        /// thousand sleeping tasks while a thousand services resolve.
        var timer: Task<Void, Never>?
        var isStopped = false
    }

    private struct ResolutionDeadline {
        var service: Service
        var number: Int
        var deadline: ContinuousClock.Instant
    }

    private struct Resolution {
        /// Tells this resolution from an earlier one of the same service, whose late results
        /// and timeout must be ignored.
        var number: Int
        /// Nil until the backend has answered the request.
        var token: BackendToken?
        var last: ResolvedService?
    }

    /// Backend work decided under the lock and done after it.
    private struct Followup {
        var cancel: [BackendToken] = []
        var resolve: [(service: Service, number: Int)] = []
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
        // Strong references: the backend drops its callbacks on cancel, and the stream's
        // termination runs once; the core lives as long as either side needs it.
        let token = try backend.browse(type: type) { updates in self.apply(updates) }
        let stoppedMeanwhile = state.withLock { state in
            state.browse = token
            return state.isStopped
        }
        if stoppedMeanwhile { backend.cancel(token) }
        sink.onTermination = { _ in self.stop() }
    }

    func stop() {
        let followup = state.withLock { state -> Followup? in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            var followup = Followup()
            followup.cancel = [state.browse].compactMap { $0 } + state.resolutions.values.compactMap(\.token)
            state.resolutions = [:]
            state.deadlines = []
            state.timer?.cancel()
            state.timer = nil
            sink.yield(.stopped)
            return followup
        }
        guard let followup else { return }
        sink.finish()
        perform(followup)
    }

    /// Applies one batch: the net change of membership, removals first.
    private func apply(_ updates: [BrowseUpdate]) {
        let followup = state.withLock { state -> Followup in
            var followup = Followup()
            guard !state.isStopped else { return followup }
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
                    followup.cancel += [resolution.token].compactMap { $0 }
                }
                sink.yield(.removed(service))
            }
            for service in Self.unique(found) {
                sink.yield(.found(service))
                guard automaticallyResolve else { continue }
                state.resolutionsStarted += 1
                let number = state.resolutionsStarted
                state.resolutions[service] = Resolution(number: number)
                state.deadlines.append(
                    ResolutionDeadline(service: service, number: number, deadline: .now + resolutionTimeout))
                followup.resolve.append((service, number))
            }
            armTimer(&state)
            return followup
        }
        perform(followup)
    }

    private func perform(_ followup: Followup) {
        for token in followup.cancel { backend.cancel(token) }
        for (service, number) in followup.resolve {
            do {
                let token = try backend.resolve(service) { resolved in self.resolved(resolved, by: number) }
                let wanted = state.withLock { state -> Bool in
                    guard state.resolutions[service]?.number == number else { return false }
                    state.resolutions[service]?.token = token
                    return true
                }
                if !wanted { backend.cancel(token) }
            } catch {
                state.withLock { state in
                    guard let resolution = state.resolutions[service], resolution.number == number else { return }
                    state.resolutions[service] = nil
                    sink.yield(.resolutionFailed(service, error))
                }
            }
        }
    }

    /// Starts the timer for the first deadline of a resolution still waiting for its first
    /// result, unless the timer runs already; drops the deadlines before it, which need none.
    private func armTimer(_ state: inout State) {
        guard state.timer == nil else { return }
        let resolutions = state.resolutions
        let settled = state.deadlines.prefix { entry in
            resolutions[entry.service].map { $0.number != entry.number || $0.last != nil } ?? true
        }.count
        state.deadlines.removeFirst(settled)
        guard let first = state.deadlines.first else { return }
        state.timer = Task { [weak self] in
            guard (try? await Task.sleep(until: first.deadline, clock: .continuous)) != nil else { return }
            self?.deadlinesPassed()
        }
    }

    /// Fails the resolutions whose deadline has passed without a result, and arms the timer for
    /// the next deadline.
    private func deadlinesPassed() {
        let now = ContinuousClock.now
        let tokens = state.withLock { state -> [BackendToken] in
            state.timer = nil
            let due = Array(state.deadlines.prefix { $0.deadline <= now })
            state.deadlines.removeFirst(due.count)
            let tokens = due.compactMap { timedOut($0.service, number: $0.number, &state) }
            armTimer(&state)
            return tokens
        }
        for token in tokens { backend.cancel(token) }
    }

    private func resolved(_ resolved: ResolvedService, by number: Int) {
        state.withLock { state in
            guard !state.isStopped, state.services.contains(resolved.service),
                var resolution = state.resolutions[resolved.service], resolution.number == number,
                resolution.last != resolved
            else { return }
            resolution.last = resolved
            state.resolutions[resolved.service] = resolution
            sink.yield(.resolved(resolved))
        }
    }

    /// Ends resolution `number` of `service` with `timedOut` if it is still waiting for its first
    /// result; returns its backend token to cancel.
    private func timedOut(_ service: Service, number: Int, _ state: inout State) -> BackendToken? {
        guard !state.isStopped, state.services.contains(service), let resolution = state.resolutions[service],
            resolution.number == number, resolution.last == nil
        else { return nil }
        state.resolutions[service] = nil
        sink.yield(.resolutionFailed(service, .timedOut))
        return resolution.token
    }

    private static func unique(_ services: [Service]) -> [Service] {
        var seen: Set<Service> = []
        return services.filter { seen.insert($0).inserted }
    }
}
