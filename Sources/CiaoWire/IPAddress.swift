#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 address as carried in an A record (RFC 1035 §3.4.1).
public struct IPv4Address: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The four bytes in network order.
    public var bytes: (UInt8, UInt8, UInt8, UInt8)

    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { bytes = (a, b, c, d) }

    /// Parses dotted-quad text such as `198.18.0.1`.
    public init?(_ text: String) {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        self = withUnsafeBytes(of: &address) { IPv4Address($0[0], $0[1], $0[2], $0[3]) }
    }

    public var description: String { "\(bytes.0).\(bytes.1).\(bytes.2).\(bytes.3)" }

    public static func == (lhs: IPv4Address, rhs: IPv4Address) -> Bool {
        lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }
}

/// An IPv6 address as carried in an AAAA record (RFC 3596 §2.2).
public struct IPv6Address: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The sixteen bytes in network order, as two big-endian halves.
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Builds an address from exactly 16 bytes in network order.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// Parses text such as `fd00:198:18::1` (RFC 4291 §2.2).
    public init?(_ text: String) {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        guard let parsed = withUnsafeBytes(of: &address, { IPv6Address(bytes: $0) }) else { return nil }
        self = parsed
    }

    /// The sixteen bytes in network order.
    public var bytes: [UInt8] {
        (0..<16).map { index in
            UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * (7 - UInt64(index % 8))))
        }
    }

    /// True for `fe80::/10`, which needs a zone (interface) to be usable.
    public var isLinkLocal: Bool { high >> 54 == 0x3FA }

    /// Canonical text form (RFC 5952).
    public var description: String {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
