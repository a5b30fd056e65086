import CiaoEngine
import CiaoTransport

/// Which interfaces and address families this process's mDNS runtime uses. Choose it with
/// ``use(_:)`` before the first server, browser or resolver starts; by default every interface
/// that can multicast (loopback excluded), IPv4 and IPv6.
public struct NetworkScope: Hashable, Sendable {
    /// An IP address family multicast DNS runs over (RFC 6762 §3).
    public enum AddressFamily: Hashable, Sendable, CaseIterable {
        /// `ipv4` is IPv4, mDNS group 224.0.0.251; `ipv6` is IPv6, mDNS group ff02::fb.
        case ipv4, ipv6
    }

    /// Interface names such as `eth0`; nil for all.
    public var interfaces: Set<String>?
    /// The address families to use; at least one.
    public var families: Set<AddressFamily>
    /// Whether a query over one family lists as known answers only what came over it, as
    /// avahi-daemon does: dual-stack responders then answer over both families, and
    /// ``ResolvedService/addressesHeardOver`` and ``DiscoverySession/families(of:)`` tell
    /// `ciao browse -p` a line per protocol as avahi-browse prints them. Off by default: each such
    /// responder answers once.
    package var knownAnswersPerFamily = false

    /// A scope of the named interfaces (nil: every one that can multicast) and the given families.
    /// ``use(_:)`` checks it.
    public init(interfaces: Set<String>? = nil, families: Set<AddressFamily> = [.ipv4, .ipv6]) {
        self.interfaces = interfaces
        self.families = families
    }

    /// Every interface that can multicast, loopback excluded, over IPv4 and IPv6: the default.
    public static let all = NetworkScope()

    /// An interface on which the runtime could not join the mDNS group for one family: multicast
    /// queries and answers arriving there are not heard. Most often Linux's limit of IPv4 group
    /// memberships per socket (`net.ipv4.igmp_max_memberships`, 20 by default) on a host with more
    /// interfaces than that; the runtime then keeps the lowest-numbered interfaces joined.
    public struct MembershipFailure: Hashable, Sendable, CustomStringConvertible {
        /// The interface's name, such as `eth0`.
        public var interface: String
        /// The family whose group could not be joined.
        public var family: AddressFamily
        /// What the kernel said, worded for a user.
        public var reason: String

        /// The ``reason``.
        public var description: String { reason }
    }

    /// The group memberships the runtime could not make at its last interface scan; empty while
    /// every one holds, or before the runtime has started. Each is retried whenever the
    /// interfaces change.
    public static var membershipFailures: [MembershipFailure] { MDNSRuntime.shared.membershipFailures.value }

    /// ``membershipFailures`` now, then each time an interface scan changes them.
    package static func membershipFailureChanges() -> AsyncStream<[MembershipFailure]> {
        MDNSRuntime.shared.membershipFailures.watch()
    }

    /// Makes `scope` the runtime's. Throws `invalidConfiguration` for an empty interface list or
    /// family set, for an interface name this host does not have (the message lists those it
    /// has), or once the runtime has started with a different scope.
    public static func use(_ scope: NetworkScope) throws(CiaoError) {
        guard scope.interfaces?.isEmpty != true else {
            throw .invalidConfiguration("the interface list is empty; leave it nil for every interface")
        }
        guard !scope.families.isEmpty else {
            throw .invalidConfiguration("choose at least one address family")
        }
        try scope.checkInterfacesExist(among: InterfaceScanner.systemInterfaceNames())
        try MDNSRuntime.shared.use(scope)
    }

    /// Throws `invalidConfiguration` naming each chosen interface missing from `existing`.
    func checkInterfacesExist(among existing: [String]) throws(CiaoError) {
        let missing = (interfaces ?? []).filter { !existing.contains($0) }.sorted()
        guard !missing.isEmpty else { return }
        let names = missing.map { "\"\($0)\"" }.joined(separator: ", ")
        throw .invalidConfiguration(
            "no network interface named \(names) on this host; it has \(existing.joined(separator: ", "))")
    }

    /// The transport's form of this scope.
    package var interfaceFilter: InterfaceFilter {
        InterfaceFilter(
            names: interfaces, families: Set(families.map { $0 == .ipv4 ? IPFamily.v4 : IPFamily.v6 }))
    }
}

extension NetworkScope.AddressFamily {
    /// The API's name for an engine's and transport's family.
    package init(_ family: IPFamily) {
        self = family == .v4 ? .ipv4 : .ipv6
    }

    /// The family of a numeric address as ``ResolvedService/addresses`` holds it (`192.0.2.7`,
    /// `fe80::1%eth0`).
    package init(ofAddress address: String) {
        self = address.contains(":") ? .ipv6 : .ipv4
    }
}
