/// Starts browse sessions for service types (RFC 6763 §4).
public actor CiaoBrowser {
    private let backends: BackendSelection

    /// Creates a browser on the process's shared runtimes: multicast DNS for `local.`, unicast
    /// DNS for other domains; each starts with its first use.
    public init() {
        self.init(backends: .shared)
    }

    init(backends: BackendSelection) {
        self.backends = backends
    }

    /// Browses for instances of `type` in `domain`: empty or `local.` by multicast DNS, any other
    /// domain (`example.com.`) by unicast DNS through the servers of `/etc/resolv.conf`, asked
    /// again at 80 % of each TTL (RFC 6763 §4). With `automaticallyResolve`, each service found is
    /// resolved and reported `resolved`, or `resolutionFailed` after `resolutionTimeout` (one of
    /// a century or more, `.seconds(.max)` say, never passes). Throws `invalidConfiguration` for a
    /// domain that is not a domain name or a non-positive timeout.
    public func browse(
        type: ServiceType, domain: String = "", automaticallyResolve: Bool = true,
        resolutionTimeout: Duration = .seconds(10)
    ) async throws -> DiscoverySession {
        try session(
            type: type, subtype: nil, domain: domain, automaticallyResolve: automaticallyResolve,
            resolutionTimeout: resolutionTimeout)
    }

    /// Browses for the instances of `type` published under `subtype`, such as `_printer`
    /// (`_printer._sub._http._tcp`, RFC 6763 §7.1); the services found are of `type`. Throws
    /// `invalidConfiguration` for a subtype that is not one label starting with `_`, and as
    /// ``browse(type:domain:automaticallyResolve:resolutionTimeout:)`` does.
    public func browse(
        type: ServiceType, subtype: String, domain: String = "", automaticallyResolve: Bool = true,
        resolutionTimeout: Duration = .seconds(10)
    ) async throws -> DiscoverySession {
        try ServiceType.checkSubtype(subtype)
        return try session(
            type: type, subtype: subtype, domain: domain, automaticallyResolve: automaticallyResolve,
            resolutionTimeout: resolutionTimeout)
    }

    private func session(
        type: ServiceType, subtype: String?, domain: String, automaticallyResolve: Bool, resolutionTimeout: Duration
    ) throws -> DiscoverySession {
        guard resolutionTimeout > .zero else {
            throw CiaoError.invalidConfiguration("the resolution timeout must be positive, not \(resolutionTimeout)")
        }
        return try DiscoverySession(
            type: type, subtype: subtype, backend: try backends.backend(for: domain),
            automaticallyResolve: automaticallyResolve,
            resolutionTimeout: min(resolutionTimeout, Self.longestResolutionTimeout))
    }

    /// A century: the longest resolution timeout a backend is given, since a longer one would
    /// overflow the clocks' nanosecond counts, and means never all the same.
    static let longestResolutionTimeout = Duration.seconds(100 * 365 * 86_400)
}
