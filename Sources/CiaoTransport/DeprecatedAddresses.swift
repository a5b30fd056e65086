#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// The IPv6 addresses whose preferred lifetime has ended (IFA_F_DEPRECATED, RFC 4862 §5.5.4), by
/// interface, as /proc/net/if_inet6 lists them: getifaddrs(3) does not tell.
struct DeprecatedAddresses {
    private var addresses: Set<IndexedAddress> = []

    /// An address on the interface with `index`.
    private struct IndexedAddress: Hashable {
        var index: UInt32
        var address: IPAddress
    }

    /// Those of this network namespace now; none when /proc/net/if_inet6 cannot be read.
    static func current() -> DeprecatedAddresses {
        DeprecatedAddresses(ifInet6: contents(of: "/proc/net/if_inet6") ?? "")
    }

    /// Those among the lines of /proc/net/if_inet6: the address in 32 hex digits, then the
    /// interface index, prefix length, scope and flags in hex, and the name. Lines that do not
    /// read so are skipped.
    init(ifInet6 text: String) {
        let deprecatedFlag: UInt32 = 0x20
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 6, fields[0].utf8.count == 32,
                let index = UInt32(fields[1], radix: 16), let flags = UInt32(fields[4], radix: 16),
                flags & deprecatedFlag != 0
            else { continue }
            // 32 hex digits in groups of four: the RFC 4291 text form.
            let digits = Array(fields[0])
            let groups = stride(from: 0, to: 32, by: 4).map { String(digits[$0..<$0 + 4]) }
            guard let address = IPAddress(groups.joined(separator: ":")), address.family == .v6 else { continue }
            addresses.insert(IndexedAddress(index: index, address: address))
        }
    }

    /// Whether `address` on the interface with `index` is deprecated.
    func contains(_ address: IPAddress, onInterface index: UInt32) -> Bool {
        addresses.contains(IndexedAddress(index: index, address: address))
    }

    /// The text of a small file such as one in /proc, or nil when it cannot be read; at most 1 MiB.
    private static func contents(of path: String) -> String? {
        let file = SystemCall.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard file >= 0 else { return nil }
        defer { SystemCall.close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 1 << 20 {
            let count = SystemCall.retryingInterrupts {
                chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
