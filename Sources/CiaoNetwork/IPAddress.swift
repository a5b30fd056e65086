import CiaoWire

/// IPv4 or IPv6; mDNS runs separately over each (RFC 6762 §20).
public enum IPFamily: Hashable, Sendable, CaseIterable {
    case v4, v6
}

/// An IPv4 or IPv6 address.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(IPv4Address)
    case v6(IPv6Address)

    public var family: IPFamily {
        switch self {
        case .v4: .v4
        case .v6: .v6
        }
    }

    public var description: String {
        switch self {
        case .v4(let address): address.description
        case .v6(let address): address.description
        }
    }

    /// True for `169.254.0.0/16` (RFC 3927) and `fe80::/10` (RFC 4291 §2.5.6): usable on one link only.
    public var isLinkLocal: Bool {
        switch self {
        case .v4(let address): address.bytes.0 == 169 && address.bytes.1 == 254
        case .v6(let address): address.isLinkLocal
        }
    }

    /// The address as an A or AAAA record's data.
    public var recordData: RecordData {
        switch self {
        case .v4(let address): .a(address)
        case .v6(let address): .aaaa(address)
        }
    }

    /// The first `length` bits as one big-endian integer pair, for prefix comparison.
    var bits: (high: UInt64, low: UInt64) {
        switch self {
        case .v4(let address):
            let value =
                UInt64(address.bytes.0) << 24 | UInt64(address.bytes.1) << 16
                | UInt64(address.bytes.2) << 8 | UInt64(address.bytes.3)
            return (value << 32, 0)
        case .v6(let address):
            return (address.high, address.low)
        }
    }
}

extension RecordData {
    /// The address an A or AAAA record carries; nil for other types (the inverse of
    /// ``IPAddress/recordData``).
    public var address: IPAddress? {
        switch self {
        case .a(let v4): .v4(v4)
        case .aaaa(let v6): .v6(v6)
        default: nil
        }
    }
}
