import Synchronization

/// A running browse for one service type (RFC 6763 §4), started by ``CiaoBrowser``.
///
/// ``events`` buffers without bound, so no membership change is ever dropped; within one batch
/// from the network removals come before additions; a service removed is never reported resolved
/// afterwards. Cancelling the task that iterates ``events``, or releasing the session and its
/// events, stops the session; ``stop()`` is idempotent.
public actor DiscoverySession {
    /// The session's events, in the order ``DiscoveryEvent`` describes; finishes after
    /// ``DiscoveryEvent/stopped``.
    public nonisolated let events: AsyncThrowingStream<DiscoveryEvent, any Error>
    private let core: DiscoveryCore

    /// The services found and not removed.
    public var services: Set<Service> { core.services }

    init(
        type: ServiceType, subtype: String?, backend: any DiscoveryBackend, automaticallyResolve: Bool,
        resolutionTimeout: Duration
    ) throws(CiaoError) {
        let (events, sink) = AsyncThrowingStream<DiscoveryEvent, any Error>.makeStream()
        self.events = events
        core = DiscoveryCore(
            backend: backend, sink: sink, automaticallyResolve: automaticallyResolve,
            resolutionTimeout: resolutionTimeout)
        try core.start(type: type, subtype: subtype)
    }

    /// Whether `service`, found by this session, is published on this host (by this process or by
    /// another responder here), for `ciao browse -l`; known before its `found` event is delivered.
    package nonisolated func isFromThisHost(_ service: Service) -> Bool {
        core.isFromThisHost(service)
    }

    /// The address families `service`'s PTR record has come over so far, as `avahi-browse -p`
    /// prints a line per protocol; empty for a service not found (or no longer).
    package nonisolated func families(of service: Service) -> Set<NetworkScope.AddressFamily> {
        core.families(of: service)
    }

    /// The last result of `service`'s automatic resolution, with the families its addresses
    /// came over as they are now; nil before the first.
    package nonisolated func latestResolution(of service: Service) -> ResolvedService? {
        core.latestResolution(of: service)
    }

    /// Calls `observer` with a found service when its PTR record first comes over another
    /// family, or when its resolution changes only in ``ResolvedService/addressesHeardOver``:
    /// news that ``events`` does not carry, for ``families(of:)`` and ``latestResolution(of:)``
    /// to tell. It is called on the backend's thread.
    package nonisolated func observeArrivals(_ observer: @escaping @Sendable (Service) -> Void) {
        core.observeArrivals(observer)
    }

    /// Asks the network whether `service`, found by this session, is still there, as after a
    /// connection to it failed: its PTR, SRV and TXT records, and its host's addresses once the
    /// session has resolved it, are asked for again without being listed as known; unless its
    /// publisher answers, ``events`` reports it ``DiscoveryEvent/removed(_:)`` about ten seconds
    /// later, rather than when its records' TTL runs out, up to 75 minutes later for a device
    /// gone without goodbyes (RFC 6762 §10.4). A publisher still there answers, and nothing
    /// changes. In a unicast DNS domain the server is asked for the PTR records again at once (at
    /// most once a second), and for the SRV, TXT and addresses of a service being resolved, and
    /// its answer stands. Does nothing for a service not found (or no longer), or once stopped.
    public nonisolated func reconfirm(_ service: Service) {
        core.reconfirm(service)
    }

    /// Stops browsing and resolving; ``events`` reports `stopped` and finishes.
    public func stop() {
        core.stop()
    }
}
