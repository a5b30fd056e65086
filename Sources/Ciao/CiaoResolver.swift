import Synchronization

/// Resolves a service once: SRV, TXT and the target's A / AAAA records (RFC 6763 §5), without
/// connecting to it.
public enum CiaoResolver {
    /// Returns the service's host, port, addresses and TXT as soon as all are known: over
    /// multicast DNS for `local.`, from the servers of `/etc/resolv.conf` for another domain. Throws
    /// `invalidConfiguration` for a non-positive timeout (before any network work), `timedOut`
    /// (``CiaoError/noUsableInterface`` when no interface could carry the queries), or
    /// `CancellationError`.
    public static func resolve(_ service: Service, timeout: Duration = .seconds(10)) async throws -> ResolvedService {
        try await resolve(service, timeout: timeout, backends: .shared)
    }

    static func resolve(_ service: Service, timeout: Duration, backends: BackendSelection) async throws
        -> ResolvedService
    {
        guard timeout > .zero else {
            throw CiaoError.invalidConfiguration("the resolve timeout must be positive, not \(timeout)")
        }
        try service.checkResolvable()
        let backend = try backends.backend(for: service.domain)
        let (results, sink) = AsyncStream<ResolvedService>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let token = try backend.resolve(service) { sink.yield($0) }
        defer { backend.cancel(token) }
        return try await withThrowingTaskGroup(of: ResolvedService?.self) { group in
            group.addTask {
                for await result in results { return result }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer {
                sink.finish()
                group.cancelAll()
            }
            guard let first = try await group.next(), let resolved = first else {
                try Task.checkCancellation()
                throw backend.timeoutError
            }
            return resolved
        }
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
