/// Starts browse sessions for service types (RFC 6763 §4).
public actor CiaoBrowser {
    private let backend: any DiscoveryBackend

    /// Creates a browser on the process's shared mDNS runtime, which starts with the first
    /// browse, publication or resolution.
    public init() {
        self.init(backend: MDNSRuntime.shared)
    }

    init(backend: any DiscoveryBackend) {
        self.backend = backend
    }

    /// Browses for instances of `type`. With `automaticallyResolve`, each service found is
    /// resolved and reported `resolved`, or `resolutionFailed` after `resolutionTimeout`.
    /// Throws `invalidConfiguration` for a domain other than `local.` or a non-positive timeout.
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
        guard Service.isLocalDomain(domain) else {
            throw CiaoError.invalidConfiguration(
                "domain \"\(domain)\" is not served by multicast DNS; use \"local.\" or leave it empty")
        }
        return try DiscoverySession(
            type: type, subtype: subtype, backend: backend, automaticallyResolve: automaticallyResolve,
            resolutionTimeout: resolutionTimeout)
    }
}
