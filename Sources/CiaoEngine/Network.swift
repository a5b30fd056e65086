import CiaoWire

/// An interface, by its operating-system index.
public struct InterfaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var index: UInt32

    public init(_ index: UInt32) { self.index = index }

    public static func < (lhs: InterfaceID, rhs: InterfaceID) -> Bool { lhs.index < rhs.index }

    public var description: String { "if\(index)" }
}

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
    fileprivate var bits: (high: UInt64, low: UInt64) {
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

/// An address assigned to an interface, with its prefix length, which defines what is on-link.
public struct InterfaceAddress: Hashable, Sendable {
    public var address: IPAddress
    public var prefixLength: Int

    public init(_ address: IPAddress, prefixLength: Int) {
        self.address = address
        self.prefixLength = prefixLength
    }

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
    /// not link-local, or the link-local ones where the family has no other. avahi-daemon chooses
    /// the same, so that two responders on one host publish one record set (RFC 6762 §15).
    public var publishedAddresses: [InterfaceAddress] {
        addresses.filter { candidate in
            !candidate.address.isLinkLocal
                || !addresses.contains { $0.address.family == candidate.address.family && !$0.address.isLinkLocal }
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

/// An address and UDP port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: IPAddress
    public var port: UInt16

    public init(_ address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public var description: String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }
}

/// The mDNS port (RFC 6762 §3).
public let mdnsPort: UInt16 = 5353

/// A datagram the transport received, with what the engine needs to judge it (RFC 6762 §6, §11).
public struct ReceivedDatagram: Sendable {
    public var bytes: [UInt8]
    public var source: SocketAddress
    public var interface: InterfaceID
    /// True when it was sent to the mDNS multicast group rather than to one of our addresses.
    public var isMulticast: Bool

    public init(bytes: [UInt8], source: SocketAddress, interface: InterfaceID, isMulticast: Bool) {
        self.bytes = bytes
        self.source = source
        self.interface = interface
        self.isMulticast = isMulticast
    }
}

/// A datagram for the transport to send on one interface.
public struct OutgoingDatagram: Hashable, Sendable {
    public enum Destination: Hashable, Sendable {
        /// The mDNS group of that family, 224.0.0.251 or ff02::fb, port 5353.
        case multicast(IPFamily)
        case unicast(SocketAddress)
    }

    /// Why the engine sends a datagram, for logs.
    public enum Purpose: Hashable, Sendable {
        /// Probing for a name (RFC 6762 §8.1).
        case probe
        /// Announcing records, first or after a change (§8.3, §8.4).
        case announcement
        /// Answering a query, or defending a name (§6).
        case answer
        /// Withdrawing records with TTL 0 (§10.1).
        case goodbye
        /// Asking a question (§5).
        case query
    }

    public var bytes: [UInt8]
    public var interface: InterfaceID
    public var destination: Destination
    public var purpose: Purpose = .answer

    public var family: IPFamily {
        switch destination {
        case .multicast(let family): family
        case .unicast(let address): address.address.family
        }
    }
}
