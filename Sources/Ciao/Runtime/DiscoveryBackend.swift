/// What the public API needs from the mDNS runtime, so that the API's lifecycle rules can be tested
/// on a fake: ``MDNSRuntime`` is the real one, driving the engine over sockets.
///
/// Every method returns at once and never calls a callback itself: results arrive later, in order,
/// on the backend's own thread. A callback already under way may still arrive after
/// ``cancel(_:)``, so receivers check their own state too.
protocol DiscoveryBackend: Sendable {
    /// Starts probing for `publication`'s name (RFC 6762 §8).
    func publish(_ publication: Publication, onUpdate: @escaping @Sendable (PublicationUpdate) -> Void)
        throws(CiaoError)
        -> BackendToken
    /// Replaces a publication's TXT record and announces it again (RFC 6762 §8.4).
    func updateTXT(_ txtRecord: TXTRecord, of publication: BackendToken)
    /// Browses for instances of a type, or of those under one of its subtypes (RFC 6763 §7.1);
    /// each callback carries the changes of one batch, in order. With a `resolutionTimeout`, each
    /// instance found is resolved until it is removed: ``BrowseUpdate/resolved(_:)`` after its
    /// `found`, or ``BrowseUpdate/resolutionFailed(_:)`` when no result came within the timeout,
    /// and then no more resolving of that find.
    func browse(
        type: ServiceType, subtype: String?, resolutionTimeout: Duration?,
        onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) throws(CiaoError) -> BackendToken
    /// Resolves a service continuously: a callback each time host, port, addresses or TXT change.
    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolvedService) -> Void) throws(CiaoError)
        -> BackendToken
    /// Enumerates the service types on the network (RFC 6763 §9), each reported once.
    func browseTypes(onUpdate: @escaping @Sendable (ServiceType) -> Void) throws(CiaoError) -> BackendToken
    /// Asks for records of a name continuously (RFC 6762 §5.2); each callback carries the changes
    /// of one batch, in order, records already cached first.
    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable ([RecordEvent]) -> Void) throws(CiaoError)
        -> BackendToken
    /// Stops what `token` started; a publication is withdrawn with goodbyes (RFC 6762 §10.1).
    func cancel(_ token: BackendToken)
    /// Returns once everything asked before has been carried out, goodbyes sent included.
    func waitForPending() async
    /// False while the backend knows of no interface it can use: nothing can be published or
    /// found until one comes. True until it has looked.
    var hasUsableInterface: Bool { get }
}

extension DiscoveryBackend {
    /// The error for an operation that timed out: `timedOut`, or ``CiaoError/noUsableInterface``
    /// when there was no interface to carry it.
    var timeoutError: CiaoError { hasUsableInterface ? .timedOut : .noUsableInterface }
}

/// Names something started on a ``DiscoveryBackend``, to stop it.
struct BackendToken: Hashable, Sendable {
    var rawValue: UInt64
}

/// A service for the backend to publish, already validated.
struct Publication: Hashable, Sendable {
    /// The instance name; empty for the host's name.
    var name: String
    var type: ServiceType
    var port: UInt16
    var txtRecord: TXTRecord
    var subtypes: [String]
    var allowsRenaming: Bool
    /// The key and servers of a publication in a unicast DNS domain; nil for `local.`.
    var wideArea: WideAreaOptions?
}

extension Publication {
    /// What the backend publishes of `configuration`, on `port`.
    init(_ configuration: PublicationConfiguration, port: UInt16) {
        self.init(
            name: configuration.name, type: configuration.type, port: port, txtRecord: configuration.txtRecord,
            subtypes: configuration.subtypes, allowsRenaming: configuration.allowsRenaming,
            wideArea: Service.isLocalDomain(configuration.domain) ? nil : configuration.wideArea)
    }

    /// The instance name to publish: ``name``, or `hostLabel` when it is empty.
    func instanceName(hostLabel: String) -> String {
        name.isEmpty ? hostLabel : name
    }
}

/// What becomes of a publication.
enum PublicationUpdate: Hashable, Sendable {
    /// Probing found the name free (first time), or a rename settled on a new one; `hostName`
    /// is the target of the SRV record.
    case registered(name: String, hostName: String)
    /// The name is taken and renaming is off (DNS-SD error −65548).
    case nameConflict
    /// A conflict took the name it was probing or held; it probes again under another (§9).
    case lostName
    /// The publication cannot go on: a unicast DNS server refused the update or never answered.
    case failed(CiaoError)
}

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
