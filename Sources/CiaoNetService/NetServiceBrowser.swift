#if !canImport(Darwin)
import Ciao
import Foundation
import Synchronization

/// Foundation's `NetServiceBrowser` for Linux: finds services of a type (`didFind`, `didRemove`,
/// with `moreComing` set while more of the same batch are queued) and the domains to browse or
/// register in (`local.`, then those the network recommends). Callbacks arrive on the run loop it
/// is scheduled in.
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

    /// How domains are found: domain enumeration over unicast DNS, or a fake in tests.
    var domainSearch: @Sendable (DomainSearch.Purpose) throws(CiaoError) -> AsyncStream<WideAreaBrowse.Event> = {
        purpose throws(CiaoError) in try DomainSearch.events(for: purpose)
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

    /// Reports the domains to browse in through `netServiceBrowser(_:didFindDomain:moreComing:)`
    /// and `didRemoveDomain`, until ``stop()``: `local.` (RFC 6762 §3) first, then those the
    /// network recommends (`b`, `db`, `lb` under the search domains and the reverse names of this
    /// host's networks, RFC 6763 §11) as they are found.
    open func searchForBrowsableDomains() {
        searchForDomains(.browsing)
    }

    /// Reports the domains to register in, as ``searchForBrowsableDomains()`` does, from the
    /// `r` and `dr` records.
    open func searchForRegistrationDomains() {
        searchForDomains(.registration)
    }

    /// Browses for `type` (such as `_http._tcp.`) in `domain`: empty or `local.` by multicast
    /// DNS, another domain by unicast DNS through the servers of `/etc/resolv.conf`.
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

    private func searchForDomains(_ purpose: DomainSearch.Purpose) {
        guard search == nil else { return report(didNotSearch: .activityInProgress) }
        delegate?.netServiceBrowserWillSearch(self)
        let this = RunLoopBound(object: self), delivery = self.delivery
        delivery.deliver {
            this.object.delegate?.netServiceBrowser(this.object, didFindDomain: "local.", moreComing: false)
        }
        let events: AsyncStream<WideAreaBrowse.Event>
        do {
            events = try domainSearch(purpose)
        } catch {
            return delivery.deliver { this.object.report(didNotSearch: NetService.code(for: error)) }
        }
        search = Task {
            for await event in events {
                switch event {
                case .domainFound(let domain, _):
                    delivery.deliver {
                        this.object.delegate?.netServiceBrowser(this.object, didFindDomain: domain, moreComing: false)
                    }
                case .domainRemoved(let domain):
                    delivery.deliver {
                        this.object.delegate?.netServiceBrowser(this.object, didRemoveDomain: domain, moreComing: false)
                    }
                default:
                    // a round no server answered is asked again; NetService has no callback for it
                    continue
                }
            }
        }
    }

    private func report(didNotSearch code: NetService.ErrorCode) {
        delegate?.netServiceBrowser(self, didNotSearch: NetService.errorDictionary(code))
    }
}
#endif
