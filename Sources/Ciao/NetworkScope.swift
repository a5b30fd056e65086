import CiaoEngine
import CiaoTransport

/// Which interfaces and address families this process's mDNS runtime uses. Choose it with
/// ``use(_:)`` before the first server, browser or resolver starts; by default every interface
/// that can multicast (loopback excluded), IPv4 and IPv6.
public struct NetworkScope: Hashable, Sendable {
    public enum AddressFamily: Hashable, Sendable, CaseIterable {
        case ipv4, ipv6
    }

    /// Interface names such as `eth0`; nil for all.
    public var interfaces: Set<String>?
    public var families: Set<AddressFamily>

    public init(interfaces: Set<String>? = nil, families: Set<AddressFamily> = [.ipv4, .ipv6]) {
        self.interfaces = interfaces
        self.families = families
    }

    public static let all = NetworkScope()

    /// Makes `scope` the runtime's. Throws `invalidConfiguration` for an empty interface list or
    /// family set, or once the runtime has started with a different scope.
    public static func use(_ scope: NetworkScope) throws(CiaoError) {
        guard scope.interfaces?.isEmpty != true else {
            throw .invalidConfiguration("the interface list is empty; leave it nil for every interface")
        }
        guard !scope.families.isEmpty else {
            throw .invalidConfiguration("choose at least one address family")
        }
        try MDNSRuntime.shared.use(scope)
    }

    /// The transport's form of this scope.
    package var interfaceSelection: InterfaceSelection {
        InterfaceSelection(
            names: interfaces, families: Set(families.map { $0 == .ipv4 ? IPFamily.v4 : IPFamily.v6 }))
    }
}
