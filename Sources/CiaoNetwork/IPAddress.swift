import CiaoWire

/// IPv4 or IPv6; mDNS runs separately over each (RFC 6762 §20).
public enum IPFamily: Hashable, Sendable, CaseIterable {
    case v4, v6
}

/// An IPv4 or IPv6 address.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(IPv4Address)
    case v6(IPv6Address)

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text, without a `%zone`; nil for anything else.
    public init?(_ text: String) {
        if let v4 = IPv4Address(text) {
            self = .v4(v4)
        } else if let v6 = IPv6Address(text) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// True for an address no host can be reached at: unspecified (`0.0.0.0`, `::`), loopback
    /// (`127.0.0.0/8`, `::1`), multicast (`224.0.0.0/4`, `ff00::/8`) or IPv4-mapped (`::ffff:0:0/96`).
    public var isUnreachableAsHost: Bool {
        switch self {
        case .v4(let address):
            address.bytes.0 == 0 || address.bytes.0 == 127 || address.bytes.0 >= 224
        case .v6(let address):
            (address.high == 0 && address.low <= 1) || address.high >> 56 == 0xFF
                || (address.high == 0 && address.low >> 32 == 0xFFFF)
        }
    }

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
