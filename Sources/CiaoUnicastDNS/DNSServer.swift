import CiaoWire

/// A unicast DNS server to send queries to: an IPv4 or IPv6 address and a port (53 by default).
/// Its text form is `ADDRESS[#PORT]`, as dnsmasq and resolvers' tools write it: `198.18.0.53`,
/// `198.18.0.53#5353`, `fd00:198:18::53#53`.
public struct DNSServer: Hashable, Sendable, CustomStringConvertible {
    /// The server's address.
    public enum Address: Hashable, Sendable, CustomStringConvertible {
        case ipv4(IPv4Address)
        case ipv6(IPv6Address)

        public var description: String {
            switch self {
            case .ipv4(let address): address.description
            case .ipv6(let address): address.description
            }
        }
    }

    public var address: Address
    public var port: UInt16

    public init(_ address: Address, port: UInt16 = 53) {
        self.address = address
        self.port = port
    }

    /// Parses `ADDRESS[#PORT]`; nil when the address is neither IPv4 nor IPv6 or the port is not
    /// 1–65535.
    public init?(parsing text: String) {
        let parts = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        var port: UInt16 = 53
        if parts.count == 2 {
            guard let given = UInt16(parts[1]), given != 0 else { return nil }
            port = given
        }
        let host = String(parts[0])
        if let address = IPv4Address(host) {
            self.init(.ipv4(address), port: port)
        } else if let address = IPv6Address(host) {
            self.init(.ipv6(address), port: port)
        } else {
            return nil
        }
    }

    public var description: String { port == 53 ? address.description : "\(address)#\(port)" }
}
