/// An interface the engine runs on: its index, name and current addresses.
public struct NetworkInterface: Hashable, Sendable {
    public var id: InterfaceID
    public var name: String
    public var addresses: [InterfaceAddress]

    public init(id: InterfaceID, name: String, addresses: [InterfaceAddress]) {
        self.id = id
        self.name = name
        self.addresses = addresses
    }

    /// True when `address` is on one of this interface's subnets, or is an IPv6 link-local address.
    public func isOnLink(_ address: IPAddress) -> Bool {
        if case .v6(let v6) = address, v6.isLinkLocal { return true }
        return addresses.contains { $0.contains(address) }
    }

    /// The addresses the host name's records carry on this interface: per family, those that are
    /// neither link-local nor deprecated, or all of the family's where it has none such.
    /// avahi-daemon chooses the same, so that two responders on one host publish one record set
    /// (RFC 6762 §15).
    public var publishedAddresses: [InterfaceAddress] {
        addresses.filter { candidate in
            candidate.isPreferredForPublication
                || !addresses.contains { $0.address.family == candidate.address.family && $0.isPreferredForPublication }
        }
    }

    /// The families this interface has addresses of.
    public var families: [IPFamily] {
        IPFamily.allCases.filter { family in addresses.contains { $0.address.family == family } }
    }

    /// True when `address` is one of this interface's own.
    public func owns(_ address: IPAddress) -> Bool {
        addresses.contains { $0.address == address }
    }
}
