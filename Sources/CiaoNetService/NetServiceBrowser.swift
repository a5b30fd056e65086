#if !canImport(Darwin)
import Ciao
import Foundation
import Synchronization

/// Foundation's `NetServiceBrowser` for Linux: finds services of a type (`didFind`, `didRemove`,
/// with `moreComing` set while more of the same batch are queued) and the browsable domains
/// (always `local.` for multicast DNS). Callbacks arrive on the run loop it is scheduled in.
open class NetServiceBrowser: NSObject {
    /// The object told of the search and of the services and domains found; held weakly.
    public weak var delegate: (any NetServiceBrowserDelegate)?
    /// Accepted for source compatibility.
    public var includesPeerToPeer = false

    private var delivery = RunLoopDelivery.main
    private var search: Task<Void, Never>?
    private var session: DiscoverySession?
    /// The NetService handed out for each service found, so that `didRemove` passes the same object.
    private var found: [Service: NetService] = [:]
    /// Events waiting for the run loop, delivered together so that `moreComing` means something.
    private let pending = Mutex<PendingEvents>(PendingEvents())

    private struct PendingEvents {
        var events: [DiscoveryEvent] = []
        var isScheduled = false
    }

    /// A browser that is not searching yet; callbacks go to the main run loop.
    public override init() {
        super.init()
    }

    deinit {
        search?.cancel()
    }

    /// Delivers delegate callbacks on `runLoop` in `mode` from now on. On Linux the browser has
    /// one run loop and mode at a time: this replaces the earlier one.
    open func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        delivery = RunLoopDelivery(runLoop: runLoop, modes: [mode])
    }

    /// Stops delivery on `runLoop`. On Linux callbacks then go to the main run loop again, and
    /// `mode` is not looked at.
    open func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        if delivery.runLoop === runLoop { delivery = .main }
    }

    /// Reports the domains to browse in: multicast DNS has one, `local.` (RFC 6762 §3), reported
    /// once through `netServiceBrowser(_:didFindDomain:moreComing:)`.
    open func searchForBrowsableDomains() {
        reportDomain()
    }

    /// Reports the domains to publish in: `local.` alone, as ``searchForBrowsableDomains()`` does.
    open func searchForRegistrationDomains() {
        reportDomain()
    }

    /// Browses for `type` (such as `_http._tcp.`) in `domain`: empty or `local.` by multicast
    /// DNS, another domain by unicast DNS (``CiaoBrowser/browse(type:domain:automaticallyResolve:resolutionTimeout:)``).
    open func searchForServices(ofType type: String, inDomain domain: String) {
        guard search == nil else { return report(didNotSearch: .activityInProgress) }
        guard let serviceType = try? ServiceType(observed: type), (try? Service.checkDomain(domain)) != nil else {
            return report(didNotSearch: .badArgumentError)
        }
        delegate?.netServiceBrowserWillSearch(self)
        let this = RunLoopBound(object: self), delivery = self.delivery
        search = Task {
            do {
                let session = try await CiaoBrowser().browse(
                    type: serviceType, domain: domain, automaticallyResolve: false)
                delivery.deliver { this.object.session = session }
                for try await event in session.events { this.object.enqueue(event) }
            } catch is CancellationError {
            } catch {
                delivery.deliver {
                    this.object.search = nil
                    this.object.report(didNotSearch: NetService.code(for: error))
                }
            }
        }
    }

    /// Stops searching; `netServiceBrowserDidStopSearch` follows.
    open func stop() {
        search?.cancel()
        search = nil
        let session = self.session
        self.session = nil
        let this = RunLoopBound(object: self), delivery = self.delivery
        Task {
            await session?.stop()
            delivery.deliver { this.object.delegate?.netServiceBrowserDidStopSearch(this.object) }
        }
    }

    // MARK: Internals

    /// Called from the search task: queues the event and makes sure a delivery is on its way.
    private nonisolated func enqueue(_ event: DiscoveryEvent) {
        let schedule = pending.withLock { pending -> Bool in
            pending.events.append(event)
            defer { pending.isScheduled = true }
            return !pending.isScheduled
        }
        guard schedule else { return }
        let this = RunLoopBound(object: self)
        delivery.deliver { this.object.deliverPending() }
    }

    private func deliverPending() {
        let events = pending.withLock { pending -> [DiscoveryEvent] in
            pending.isScheduled = false
            defer { pending.events = [] }
            return pending.events
        }
        let changes = events.filter {
            switch $0 {
            case .found, .removed: true
            default: false
            }
        }
        for (index, event) in changes.enumerated() {
            let moreComing = index < changes.count - 1
            switch event {
            case .found(let service):
                let netService = NetService(
                    domain: service.domain, type: service.type.rawValue + ".", name: service.name)
                found[service] = netService
                delegate?.netServiceBrowser(self, didFind: netService, moreComing: moreComing)
            case .removed(let service):
                guard let netService = found.removeValue(forKey: service) else { continue }
                delegate?.netServiceBrowser(self, didRemove: netService, moreComing: moreComing)
            default:
                continue
            }
        }
    }

    private func reportDomain() {
        delegate?.netServiceBrowserWillSearch(self)
        let this = RunLoopBound(object: self)
        delivery.deliver {
            this.object.delegate?.netServiceBrowser(this.object, didFindDomain: "local.", moreComing: false)
        }
    }

    private func report(didNotSearch code: NetService.ErrorCode) {
        delegate?.netServiceBrowser(self, didNotSearch: NetService.errorDictionary(code))
    }
}
#endif
