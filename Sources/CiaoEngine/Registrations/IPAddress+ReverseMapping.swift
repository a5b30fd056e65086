import CiaoWire

extension IPAddress {
    /// The name whose PTR record maps this address to a host name: `4.3.2.1.in-addr.arpa.`
    /// (RFC 1035 §3.5) or 32 reversed hex nibbles under `ip6.arpa.` (RFC 3596 §2.5).
    public var reverseMappingName: DomainName {
        let labels: [String]
        switch self {
        case .v4(let address):
            labels =
                [address.bytes.3, address.bytes.2, address.bytes.1, address.bytes.0].map(String.init)
                + ["in-addr", "arpa"]
        case .v6(let address):
            let nibbles = address.bytes.reversed().flatMap { [$0 & 0x0F, $0 >> 4] }
            labels = nibbles.map { String($0, radix: 16) } + ["ip6", "arpa"]
        }
        // At most 34 labels of one to three bytes: always a valid name.
        return (try? DomainName(labels: labels)) ?? .root
    }
}

extension DomainName {
    private static let ipv4ReverseDomain = DomainName("in-addr.arpa.")!
    private static let ipv6ReverseDomain = DomainName("ip6.arpa.")!

    /// True for a name under `in-addr.arpa.` or `ip6.arpa.`, where reverse-mapping PTRs live.
    var isReverseMappingName: Bool {
        isSubdomain(of: Self.ipv4ReverseDomain) || isSubdomain(of: Self.ipv6ReverseDomain)
    }
}
