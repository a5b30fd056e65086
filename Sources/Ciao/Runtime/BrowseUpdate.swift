/// One change to the set of instances a browse sees.
enum BrowseUpdate: Hashable, Sendable {
    case found(Service)
    case removed(Service)
    /// The service, found in the same batch, is published on this host: by this process or by
    /// another responder here (avahi-daemon, mDNSResponder), as `avahi-browse -l` tells.
    case fromThisHost(Service)
    /// The families the service's PTR record has come over so far: in the batch that finds it,
    /// and again when it first comes over another (`avahi-browse` prints a line per protocol).
    case heardOver(Service, Set<NetworkScope.AddressFamily>)
    /// A resolving browse resolved a service it found, or its host, port, addresses, TXT or the
    /// families its addresses came over changed.
    case resolved(ResolvedService)
    /// A resolving browse had no result for a service it found within its resolution timeout, and
    /// stopped resolving it.
    case resolutionFailed(Service)
}

extension [BrowseUpdate] {
    /// The change of membership one batch makes: each service's last `found` or `removed` in it,
    /// as that update spells it, in the order the services are first mentioned: what a discovery
    /// session applies, and what a resolving browse starts and stops resolving.
    var lastMentions: [BrowseUpdate] {
        var mentioned: [Service] = []
        var last: [Service: BrowseUpdate] = [:]
        for update in self {
            switch update {
            case .found(let service), .removed(let service):
                if last.updateValue(update, forKey: service) == nil { mentioned.append(service) }
            case .fromThisHost, .heardOver, .resolved, .resolutionFailed:
                continue
            }
        }
        return mentioned.map { last[$0]! }
    }
}
