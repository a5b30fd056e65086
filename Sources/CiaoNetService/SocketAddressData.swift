#if !canImport(Darwin)
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `NetService.addresses` entries: a numeric address and port as the bytes of a `sockaddr_in` or
/// `sockaddr_in6`, as Foundation gives them, ready for `connect(2)`.
enum SocketAddressData {
    /// `address` may carry an IPv6 zone (`fe80::1%eth0`), which becomes the scope id.
    static func make(_ address: String, port: UInt16) -> Data? {
        let parts = address.split(separator: "%", maxSplits: 1).map(String.init)
        guard let host = parts.first else { return nil }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return withUnsafeBytes(of: v4) { Data($0) }
        }
        var v6 = sockaddr_in6()
        guard inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 else { return nil }
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        if parts.count == 2 { v6.sin6_scope_id = if_nametoindex(parts[1]) }
        return withUnsafeBytes(of: v6) { Data($0) }
    }
}
#endif
