/// The interfaces the engine runs on, each with its state (RFC 6762 §6, §10: caches, pending
/// answers and multicast times are per link). Passes over every interface go in ``InterfaceID``
/// order, so that the same inputs send the same datagrams.
struct InterfaceTable {
    /// How often the interfaces' ``MulticastLog``s forget what no rule looks at any more.
    static let multicastSweepInterval: Duration = .seconds(60)

    private var byID: [InterfaceID: InterfaceState] = [:]
    private var nextMulticastSweep: Instant = .zero
    /// Pairs of interfaces on one link, as shown by our own multicast sent on one and heard on the
    /// other (RFC 6762 §14); a pair is forgotten when either interface goes or gains an address
    /// on a subnet it did not have, as on another link.
    private var sharedLinks: Set<InterfacePair> = []

    /// Two interfaces, unordered.
    private struct InterfacePair: Hashable {
        let lower: InterfaceID
        let higher: InterfaceID

        init(_ first: InterfaceID, _ second: InterfaceID) {
            (lower, higher) = first < second ? (first, second) : (second, first)
        }
    }

    var isEmpty: Bool { byID.isEmpty }

    /// The interface IDs, ascending.
    var ids: [InterfaceID] { byID.keys.sorted() }

    /// The interfaces' descriptions, in ID order.
    var networkInterfaces: [NetworkInterface] { ids.compactMap { byID[$0]?.interface } }

    /// The interfaces' states, in no particular order.
    var states: Dictionary<InterfaceID, InterfaceState>.Values { byID.values }

    func contains(_ id: InterfaceID) -> Bool { byID[id] != nil }

    /// True when `predicate` holds for the ID of an interface.
    func contains(where predicate: (InterfaceID) -> Bool) -> Bool { byID.keys.contains(where: predicate) }

    /// True when `address` is one of this host's, on any interface.
    func owns(_ address: IPAddress) -> Bool { byID.values.contains { $0.interface.owns(address) } }

    /// The interface, other than `interface`, that `address` is one of the addresses of; the
    /// lowest-numbered when several are.
    func owner(of address: IPAddress, besides interface: InterfaceID) -> InterfaceID? {
        ids.first { $0 != interface && byID[$0]?.interface.owns(address) == true }
    }

    /// The state of interface `id`, nil if the engine does not run on it; changed in place, so
    /// that a change to one record does not copy the interface's cache. Setting a state adds the
    /// interface; ``remove(_:)`` removes it.
    subscript(id: InterfaceID) -> InterfaceState? {
        get { byID[id] }
        _modify { yield &byID[id] }
    }

    /// Removes interface `id`, and what was known of its link.
    mutating func remove(_ id: InterfaceID) {
        byID[id] = nil
        forgetSharedLinks(of: id)
    }

    /// Has every interface's ``MulticastLog`` forget its old times, unless they did within
    /// ``multicastSweepInterval``, so that the logs hold what is recent rather than every
    /// record ever sent.
    mutating func forgetOldMulticasts(at now: Instant) {
        guard now >= nextMulticastSweep else { return }
        nextMulticastSweep = now + Self.multicastSweepInterval
        updateEach { $0.multicastLog.forgetOld(at: now) }
    }

    /// Applies `change` to every interface's state in place.
    mutating func updateEach(_ change: (inout InterfaceState) -> Void) {
        for index in byID.values.indices { change(&byID.values[index]) }
    }

    // MARK: Shared links

    /// Notes that interfaces `first` and `second` are on one link; returns true when that was not
    /// known yet.
    @discardableResult
    mutating func noteSharedLink(_ first: InterfaceID, _ second: InterfaceID) -> Bool {
        guard first != second, byID[first] != nil, byID[second] != nil else { return false }
        return sharedLinks.insert(InterfacePair(first, second)).inserted
    }

    /// Forgets which interfaces share a link with `id`.
    mutating func forgetSharedLinks(of id: InterfaceID) {
        sharedLinks = sharedLinks.filter { $0.lower != id && $0.higher != id }
    }

    /// The interfaces known to be on the link of `id`, ascending.
    func interfacesSharingLink(with id: InterfaceID) -> [InterfaceID] {
        sharedLinks.compactMap { pair in
            pair.lower == id ? pair.higher : pair.higher == id ? pair.lower : nil
        }.sorted()
    }
}
