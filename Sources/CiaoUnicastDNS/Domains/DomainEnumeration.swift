import CiaoWire

/// Which domains to browse and register in, as the network says (RFC 6763 §11): PTR queries for
/// `b`, `db`, `r`, `dr` and `lb` under each search domain and under the reverse-mapped network
/// of each of this host's global addresses.
public enum DomainEnumeration {
    /// The five kinds of domain enumeration query (RFC 6763 §11).
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// Domains recommended for browsing.
        case browse = "b"
        /// The one default browsing domain.
        case defaultBrowse = "db"
        /// Domains recommended for registering services.
        case registration = "r"
        /// The one default registration domain.
        case defaultRegistration = "dr"
        /// Domains for legacy browsing: browsed automatically when no domain is given.
        case legacyBrowse = "lb"
    }

    /// A network this host has an address on: the address and its prefix length.
    public enum Network: Hashable, Sendable {
        case v4(IPv4Address, prefixLength: Int)
        case v6(IPv6Address, prefixLength: Int)

        /// False for loopback, link-local (169.254/16, fe80::/10) and unspecified addresses, whose
        /// reverse names no server delegates (RFC 6763 §11: global addresses only).
        public var isGlobal: Bool {
            switch self {
            case .v4(let address, _):
                let (a, b, _, _) = address.bytes
                return a != 127 && a != 0 && !(a == 169 && b == 254)
            case .v6(let address, _):
                let top = address.high >> 48
                return !(address.high == 0 && (address.low == 0 || address.low == 1)) && top & 0xFFC0 != 0xFE80
            }
        }

        /// The reverse-mapping name of the network's address with its host bits zero:
        /// `0.1.168.192.in-addr.arpa.` for 192.168.1.7/24, 32 nibbles under `ip6.arpa.` for IPv6.
        public var reverseName: DomainName {
            var labels: [String]
            switch self {
            case .v4(let address, let prefixLength):
                let (a, b, c, d) = address.bytes
                let value = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
                let masked = value & Self.mask32(prefixLength)
                labels = (0..<4).map { String(masked >> ($0 * 8) & 0xFF) } + ["in-addr", "arpa"]
            case .v6(let address, let prefixLength):
                let high = address.high & Self.mask64(prefixLength)
                let low = address.low & Self.mask64(prefixLength - 64)
                let nibbles = (0..<16).map { low >> ($0 * 4) & 0xF } + (0..<16).map { high >> ($0 * 4) & 0xF }
                labels = nibbles.map { String($0, radix: 16) } + ["ip6", "arpa"]
            }
            return try! DomainName(labels: labels)  // ≤ 34 labels of at most 5 bytes: always valid
        }

        static func mask32(_ prefixLength: Int) -> UInt32 {
            prefixLength <= 0 ? 0 : prefixLength >= 32 ? .max : ~(UInt32.max >> prefixLength)
        }

        static func mask64(_ prefixLength: Int) -> UInt64 {
            prefixLength <= 0 ? 0 : prefixLength >= 64 ? .max : ~(UInt64.max >> prefixLength)
        }
    }

    /// The PTR question names for `kind`: under each search domain, then under each global
    /// network's reverse name, each once, in that order; a name too long to ask (over 255
    /// bytes) is left out.
    public static func queryNames(_ kind: Kind, searchDomains: [DomainName], networks: [Network]) -> [DomainName] {
        let suffix = try! DomainName(labels: [kind.rawValue, "_dns-sd", "_udp"])
        var names: [DomainName] = []
        for base in searchDomains + networks.filter(\.isGlobal).map(\.reverseName) {
            guard let name = try? suffix.appending(base), !names.contains(name) else { continue }
            names.append(name)
        }
        return names
    }

    /// The domains the PTR answers to `question` name: each answer's target, once, skipping
    /// records that do not answer the question and targets that are not plausible domains
    /// (the root).
    public static func domains(in answers: [ResourceRecord], for question: DomainName) -> [DomainName] {
        var domains: [DomainName] = []
        for record in answers where record.name == question {
            guard case .ptr(let domain) = record.data, !domain.isRoot, !domains.contains(domain) else { continue }
            domains.append(domain)
        }
        return domains
    }
}
