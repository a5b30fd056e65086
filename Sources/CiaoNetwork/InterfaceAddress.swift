/// An address assigned to an interface, with its prefix length, which defines what is on-link.
public struct InterfaceAddress: Hashable, Sendable {
    public var address: IPAddress
    public var prefixLength: Int
    /// An IPv6 address whose preferred lifetime has ended (RFC 4862 §5.5.4), as a temporary
    /// address of RFC 8981 is after a day: still valid, but not for new connections.
    public var isDeprecated: Bool

    public init(_ address: IPAddress, prefixLength: Int, isDeprecated: Bool = false) {
        self.address = address
        self.prefixLength = prefixLength
        self.isDeprecated = isDeprecated
    }

    /// Neither link-local nor deprecated: an address the host name's records always carry.
    public var isPreferredForPublication: Bool { !address.isLinkLocal && !isDeprecated }

    /// True when `other` lies in this address's subnet (RFC 6762 §11: the on-link check).
    public func contains(_ other: IPAddress) -> Bool {
        guard other.family == address.family else { return false }
        let mine = address.bits, theirs = other.bits
        let length = min(max(prefixLength, 0), address.family == .v4 ? 32 : 128)
        func masked(_ value: UInt64, bits: Int) -> UInt64 {
            bits <= 0 ? 0 : bits >= 64 ? value : value & ~(UInt64.max >> UInt64(bits))
        }
        return masked(mine.high, bits: length) == masked(theirs.high, bits: length)
            && masked(mine.low, bits: length - 64) == masked(theirs.low, bits: length - 64)
    }
}
