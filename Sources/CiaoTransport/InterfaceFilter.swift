import CiaoNetwork

/// Which interfaces and address families mDNS runs on.
public struct InterfaceFilter: Hashable, Sendable {
    /// Interface names to use; nil means every suitable interface.
    public var names: Set<String>?
    /// The address families to use (RFC 6762 §20: mDNS runs separately over IPv4 and IPv6).
    public var families: Set<IPFamily>

    public init(names: Set<String>? = nil, families: Set<IPFamily> = [.v4, .v6]) {
        self.names = names
        self.families = families
    }

    /// Every suitable interface, both families.
    public static let all = InterfaceFilter()

    /// True when the interface called `name` is selected.
    public func includes(name: String) -> Bool {
        names?.contains(name) ?? true
    }

    /// True when addresses of `family` are selected.
    public func includes(_ family: IPFamily) -> Bool {
        families.contains(family)
    }
}
