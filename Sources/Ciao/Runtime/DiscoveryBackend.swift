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
    /// Asks again for the records that made the browse of `browse` find `service`, as after a
    /// failed connection to it (RFC 6762 §10.4); the browse reports it removed unless its
    /// publisher answers within about ten seconds; a unicast DNS backend asks its server again
    /// at once, whose answer has authority.
    func reconfirm(_ service: Service, of browse: BackendToken)
    /// Resolves a service continuously: a callback each time host, port, addresses or TXT change,
    /// or a round fails.
    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolutionUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    /// Enumerates the service types on the network (RFC 6763 §9), each reported once.
    func browseTypes(onUpdate: @escaping @Sendable (ServiceType) -> Void) throws(CiaoError) -> BackendToken
    /// Asks for records of a name continuously (RFC 6762 §5.2; in unicast DNS, again at 80 % of
    /// the TTL); each callback carries the changes of one batch, in order, records already cached
    /// first, or a question that could not be asked.
    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable (LookupUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    /// Stops what `token` started; a publication is withdrawn with goodbyes (RFC 6762 §10.1).
    func cancel(_ token: BackendToken)
    /// Returns once everything asked before has been carried out, goodbyes sent included.
    func waitForPending() async
    /// False while the backend knows of no interface it can use: nothing can be published or
    /// found until one comes. True until it has looked.
    var hasUsableInterface: Bool { get }
    /// Whether the backend asks over IPv4: a one-shot resolution with IPv6 addresses alone waits
    /// for IPv4 ones only then.
    var asksOverIPv4: Bool { get }
}

extension DiscoveryBackend {
    /// The error for an operation that timed out: `timedOut`, or ``CiaoError/noUsableInterface``
    /// when there was no interface to carry it.
    var timeoutError: CiaoError { hasUsableInterface ? .timedOut : .noUsableInterface }

    var asksOverIPv4: Bool { true }
}

/// Names something started on a ``DiscoveryBackend``, to stop it.
struct BackendToken: Hashable, Sendable {
    var rawValue: UInt64
}
