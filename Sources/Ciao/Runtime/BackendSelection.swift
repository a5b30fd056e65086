/// Which backend serves a domain: multicast DNS for `local.` (RFC 6762), unicast DNS for any
/// other (RFC 6763 over the DNS); and where a listener-mode publication's port comes from. The
/// API types route through one, so tests can give fakes for all three.
struct BackendSelection: Sendable {
    /// The backend of `local.`.
    let local: any DiscoveryBackend
    /// Makes the backend of a domain other than `local.`; throws when unicast DNS cannot start.
    let wideArea: @Sendable (_ domain: String) throws(CiaoError) -> any DiscoveryBackend
    /// Holds a port for a listener-mode publication of a type; throws when none can be had. An
    /// ephemeral port of this host unless set otherwise.
    var reserveListenerPort: @Sendable (ServiceType) throws(CiaoError) -> any ListenerPort = reserveSystemPort(for:)

    /// The process's mDNS runtime for `local.`, its unicast DNS loop for the rest.
    static let shared = BackendSelection(local: MDNSRuntime.shared, wideArea: WideAreaBackend.shared(for:))

    /// `local` for every domain: unicast domains refused, as a fake backend can serve only one.
    init(local: any DiscoveryBackend) {
        self.init(local: local) { domain throws(CiaoError) in
            throw .invalidConfiguration("domain \"\(domain)\" is not served by multicast DNS")
        }
    }

    init(
        local: any DiscoveryBackend,
        wideArea: @escaping @Sendable (_ domain: String) throws(CiaoError) -> any DiscoveryBackend
    ) {
        self.local = local
        self.wideArea = wideArea
    }

    /// The backend that asks `lookup`: multicast DNS, or unicast DNS for a name it does not serve
    /// (``RecordLookup/isMulticast``).
    func backend(for lookup: RecordLookup) throws(CiaoError) -> any DiscoveryBackend {
        lookup.isMulticast ? local : try wideArea(lookup.name.parent.description)
    }

    /// The backend serving `domain`, checked to be a domain name when it is not `local.`.
    func backend(for domain: String) throws(CiaoError) -> any DiscoveryBackend {
        if Service.isLocalDomain(domain) { return local }
        try Service.checkDomain(domain)
        return try wideArea(domain)
    }
}
