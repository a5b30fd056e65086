import Synchronization

/// Resolves a service once: SRV, TXT and the target's A / AAAA records (RFC 6763 §5), without
/// connecting to it.
public enum CiaoResolver {
    /// Returns the service's host, port, addresses and TXT once all are known. Over multicast DNS
    /// for `local.`: at once with addresses of both families, or of one with the host's responder
    /// saying it has none of the other (an NSEC record, RFC 6762 §6.1); otherwise once results have paused
    /// for ``answerPause`` (a host's other family) and, while only IPv6 addresses are known and
    /// the ``NetworkScope`` has IPv4, not before ``sharedAnswerWindow`` has passed (a responder
    /// gives the A records it multicast within the last second only to the second query, RFC 6762
    /// §6, and avahi by default sends them over IPv4 only). From the servers of
    /// `/etc/resolv.conf` for another domain, at once. Throws `invalidConfiguration` for a
    /// non-positive timeout (before any network work), `timedOut` (``CiaoError/noUsableInterface``
    /// when no interface could carry the queries), `network` at once when the servers of another
    /// domain refuse, cannot be reached or have no SRV record for it, or `CancellationError`.
    public static func resolve(_ service: Service, timeout: Duration = .seconds(10)) async throws -> ResolvedService {
        try await resolve(service, timeout: timeout, backends: .shared)
    }

    /// ``resolve(_:timeout:)`` on `backends`, waiting for IPv4 addresses up to `window`.
    static func resolve(
        _ service: Service, timeout: Duration, backends: BackendSelection, window: Duration = sharedAnswerWindow
    ) async throws -> ResolvedService {
        guard timeout > .zero else {
            throw CiaoError.invalidConfiguration("the resolve timeout must be positive, not \(timeout)")
        }
        try service.checkResolvable()
        let backend = try backends.backend(for: service.domain)
        // A unicast DNS server's answer is whole: there is no other family to wait for.
        let isMulticast = Service.isLocalDomain(service.domain)
        let waitsForIPv4 = isMulticast && backend.asksOverIPv4
        // The latest result, or why the latest round failed while none has come.
        let outcome = try await settle(
            Result<ResolvedService, CiaoError>?.none, timeout: timeout, backend: backend, window: window,
            start: { onUpdate throws(CiaoError) in try backend.resolve(service, onUpdate: onUpdate) },
            fold: { outcome, update in
                switch update {
                case .resolved(let resolved): outcome = .success(resolved)
                case .failed(let error): if outcome?.resolved == nil { outcome = .failure(error) }
                }
            },
            answers: { $0?.resolved != nil },
            awaitsSecondQuery: { outcome in
                waitsForIPv4 && outcome?.resolved.map { $0.hasAddress(of: .ipv6) && !$0.isSettled(.ipv4) } ?? false
            },
            isComplete: { outcome in
                switch outcome {
                case .success(let resolved): !isMulticast || resolved.isSettled(.ipv4) && resolved.isSettled(.ipv6)
                case .failure: true
                case nil: false
                }
            },
            failure: { outcome in if case .failure(let error) = outcome { error } else { nil } })
        // `settle` returns only an outcome that answers or has failed.
        guard let outcome else { throw backend.timeoutError }
        return try outcome.get()
    }
}

extension Service {
    /// Throws `invalidConfiguration` for what no network lookup could find: an instance name that
    /// is empty or longer than a DNS label (63 bytes, RFC 6763 §4.1.1).
    func checkResolvable() throws(CiaoError) {
        guard (1...63).contains(name.utf8.count) else {
            throw .invalidConfiguration("the instance name must be 1 to 63 bytes of UTF-8, not \(name.utf8.count)")
        }
    }
}

extension Result<ResolvedService, CiaoError> {
    /// The result, if it is one.
    fileprivate var resolved: ResolvedService? { try? get() }
}

extension ResolvedService {
    /// Whether `family` is settled: some address is of it, or the host's responder says it has
    /// none (RFC 6762 §6.1).
    fileprivate func isSettled(_ family: NetworkScope.AddressFamily) -> Bool {
        familiesDenied.contains(family) || hasAddress(of: family)
    }
}
