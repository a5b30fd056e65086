import Synchronization

/// The state of a ``DiscoverySession``, shared with the backend's callbacks (which arrive on the
/// backend's thread). Every change, and the events it yields, happens under one lock, so events
/// come out in the order the changes were made; calls into the backend happen after the lock is
/// released. With automatic resolution the backend resolves what the browse finds, and times each
/// resolution out in its own time.
final class DiscoveryCore: Sendable {
    private struct State {
        var browse: BackendToken?
        var services: Set<Service> = []
        /// The services found that this host publishes.
        var servicesFromThisHost: Set<Service> = []
        /// The families each found service's PTR record has come over.
        var families: [Service: Set<NetworkScope.AddressFamily>] = [:]
        /// Told of what came over another family and changed nothing else (``DiscoverySession/observeArrivals(_:)``).
        var arrivalObserver: (@Sendable (Service) -> Void)?
        /// The last result of each found service's resolution, to tell a change from one in the
        /// families its addresses came over alone, which the backend also reports.
        var lastResolved: [Service: ResolvedService] = [:]
        var isStopped = false
    }

    private let backend: any DiscoveryBackend
    private let sink: AsyncThrowingStream<DiscoveryEvent, any Error>.Continuation
    private let resolutionTimeout: Duration?
    private let state = Mutex(State())

    init(
        backend: any DiscoveryBackend, sink: AsyncThrowingStream<DiscoveryEvent, any Error>.Continuation,
        automaticallyResolve: Bool, resolutionTimeout: Duration
    ) {
        self.backend = backend
        self.sink = sink
        self.resolutionTimeout = automaticallyResolve ? resolutionTimeout : nil
    }

    var services: Set<Service> { state.withLock { $0.services } }

    /// Whether a service found is published on this host.
    func isFromThisHost(_ service: Service) -> Bool { state.withLock { $0.servicesFromThisHost.contains(service) } }

    /// The families a found service's PTR record has come over.
    func families(of service: Service) -> Set<NetworkScope.AddressFamily> {
        state.withLock { $0.families[service] ?? [] }
    }

    /// The last result of a found service's resolution.
    func latestResolution(of service: Service) -> ResolvedService? {
        state.withLock { $0.lastResolved[service] }
    }

    func observeArrivals(_ observer: @escaping @Sendable (Service) -> Void) {
        state.withLock { $0.arrivalObserver = observer }
    }

    func start(type: ServiceType, subtype: String?) throws(CiaoError) {
        sink.yield(.started)
        // Strong references: the backend drops its callbacks on cancel, and the stream's
        // termination runs once; the core lives as long as either side needs it.
        let token = try backend.browse(type: type, subtype: subtype, resolutionTimeout: resolutionTimeout) { updates in
            self.apply(updates)
        }
        let stoppedMeanwhile = state.withLock { state in
            state.browse = token
            return state.isStopped
        }
        if stoppedMeanwhile { backend.cancel(token) }
        sink.onTermination = { _ in self.stop() }
    }

    func stop() {
        let (wasRunning, browse) = state.withLock { state -> (Bool, BackendToken?) in
            guard !state.isStopped else { return (false, nil) }
            state.isStopped = true
            sink.yield(.stopped)
            return (true, state.browse)
        }
        guard wasRunning else { return }
        sink.finish()
        if let browse { backend.cancel(browse) }
    }

    /// Has the backend ask again for what made the browse find `service`; nothing for a service
    /// not found, or once stopped.
    func reconfirm(_ service: Service) {
        let browse = state.withLock { state in
            state.isStopped || !state.services.contains(service) ? nil : state.browse
        }
        if let browse { backend.reconfirm(service, of: browse) }
    }

    /// Applies one batch: the net change of membership, removals first, then resolutions and their
    /// failures.
    private func apply(_ updates: [BrowseUpdate]) {
        state.withLock { state in
            guard !state.isStopped else { return }
            // Services found before this batch whose PTR came over another family.
            var heardOverAnother: [Service] = []
            var resolutions: [BrowseUpdate] = []
            for update in updates {
                switch update {
                case .found, .removed:
                    break
                case .fromThisHost(let ours):
                    state.servicesFromThisHost.insert(ours)
                case .heardOver(let heard, let families):
                    if state.families.updateValue(families, forKey: heard) != families,
                        state.services.contains(heard)
                    {
                        heardOverAnother.append(heard)
                    }
                case .resolved, .resolutionFailed:
                    resolutions.append(update)
                }
            }
            // The set of services itself is not copied, so a batch costs what it mentions.
            var removed: [Service] = []
            var found: [Service] = []
            for update in updates.lastMentions {
                switch update {
                case .found(let instance) where !state.services.contains(instance):
                    state.services.insert(instance)
                    found.append(instance)
                case .removed(let instance) where state.services.contains(instance):
                    state.services.remove(instance)
                    state.servicesFromThisHost.remove(instance)
                    state.families[instance] = nil
                    state.lastResolved[instance] = nil
                    removed.append(instance)
                default:
                    break
                }
            }
            for service in removed { sink.yield(.removed(service)) }
            for service in found { sink.yield(.found(service)) }
            for service in heardOverAnother where state.services.contains(service) {
                state.arrivalObserver?(service)
            }
            for update in resolutions {
                switch update {
                case .resolved(let result): apply(result, to: &state)
                case .resolutionFailed(let service) where state.services.contains(service):
                    sink.yield(.resolutionFailed(service, backend.timeoutError))
                default: break
                }
            }
        }
    }

    /// A found service's resolution result: an event when it is new or changed; ignored once the
    /// service is gone.
    private func apply(_ resolved: ResolvedService, to state: inout State) {
        guard state.services.contains(resolved.service) else { return }
        let previous = state.lastResolved.updateValue(resolved, forKey: resolved.service)
        if resolved == previous {
            state.arrivalObserver?(resolved.service)
        } else {
            sink.yield(.resolved(resolved))
        }
    }
}
