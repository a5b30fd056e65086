#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim
import CiaoNetwork
import CiaoWire

// Conversions between the engine's address values and the kernel's sockaddr structures.

extension IPv4Address {
    /// The mDNS IPv4 group, 224.0.0.251 (RFC 6762 §3).
    static let mdnsGroup = IPv4Address(224, 0, 0, 251)

    init(_ address: in_addr) {
        self = withUnsafeBytes(of: address) { IPv4Address($0[0], $0[1], $0[2], $0[3]) }
    }

    var inAddr: in_addr {
        var address = in_addr()
        withUnsafeMutableBytes(of: &address) { raw in
            raw[0] = bytes.0
            raw[1] = bytes.1
            raw[2] = bytes.2
            raw[3] = bytes.3
        }
        return address
    }

    /// 224.0.0.0/4 (RFC 5771).
    var isMulticast: Bool { bytes.0 & 0xF0 == 0xE0 }
}

extension IPv6Address {
    /// The mDNS IPv6 group, ff02::fb (RFC 6762 §3).
    static let mdnsGroup = IPv6Address(high: 0xFF02_0000_0000_0000, low: 0xFB)

    init(_ address: in6_addr) {
        self = withUnsafeBytes(of: address) { IPv6Address(bytes: $0)! }
    }

    var in6Addr: in6_addr {
        var address = in6_addr()
        let bytes = self.bytes
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        return address
    }

    /// ff00::/8 (RFC 4291 §2.7).
    var isMulticast: Bool { high >> 56 == 0xFF }
}

extension IPAddress {
    /// The mDNS group of `family` (RFC 6762 §3).
    static func mdnsGroup(_ family: IPFamily) -> IPAddress {
        switch family {
        case .v4: .v4(.mdnsGroup)
        case .v6: .v6(.mdnsGroup)
        }
    }

    /// True for a multicast group address of either family.
    var isMulticast: Bool {
        switch self {
        case .v4(let address): address.isMulticast
        case .v6(let address): address.isMulticast
        }
    }

    /// Reads the address out of a sockaddr_in or sockaddr_in6; nil for other families.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            self = .v4(IPv4Address(v4.sin_addr))
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            self = .v6(IPv6Address(v6.sin6_addr))
        default:
            return nil
        }
    }
}

extension SocketAddress {
    /// Reads address and port out of a sockaddr_in or sockaddr_in6 the kernel filled in.
    init?(_ storage: UnsafePointer<sockaddr_storage>) {
        let raw = UnsafeRawPointer(storage)
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            let v4 = raw.loadUnaligned(as: sockaddr_in.self)
            self.init(.v4(IPv4Address(v4.sin_addr)), port: UInt16(bigEndian: v4.sin_port))
        case AF_INET6:
            let v6 = raw.loadUnaligned(as: sockaddr_in6.self)
            self.init(.v6(IPv6Address(v6.sin6_addr)), port: UInt16(bigEndian: v6.sin6_port))
        default:
            return nil
        }
    }
}

/// A sockaddr_in or sockaddr_in6, ready to hand to bind(2) or sendmsg(2).
enum POSIXSocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// `address`:`port`; an IPv6 address gets `scopeID` (the interface index; RFC 4007 §11), which
    /// the kernel requires for link-local and link-scope multicast destinations.
    init(_ address: IPAddress, port: UInt16, scopeID: UInt32 = 0) {
        switch address {
        case .v4(let v4):
            var value = sockaddr_in()
            value.sin_family = sa_family_t(AF_INET)
            value.sin_port = port.bigEndian
            value.sin_addr = v4.inAddr
            self = .v4(value)
        case .v6(let v6):
            var value = sockaddr_in6()
            value.sin6_family = sa_family_t(AF_INET6)
            value.sin6_port = port.bigEndian
            value.sin6_addr = v6.in6Addr
            value.sin6_scope_id = scopeID
            self = .v6(value)
        }
    }

    /// The wildcard address of `family` with `port`, for bind(2).
    static func wildcard(_ family: IPFamily, port: UInt16) -> POSIXSocketAddress {
        switch family {
        case .v4: POSIXSocketAddress(.v4(IPv4Address(0, 0, 0, 0)), port: port)
        case .v6: POSIXSocketAddress(.v6(IPv6Address(high: 0, low: 0)), port: port)
        }
    }

    /// Calls `body` with a pointer to the sockaddr and its length.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch self {
        case .v4(var value):
            withUnsafePointer(to: &value) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(var value):
            withUnsafePointer(to: &value) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
