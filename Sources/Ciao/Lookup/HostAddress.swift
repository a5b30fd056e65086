import CiaoTransport

/// One address of a host, as an A or AAAA record gave it on one interface (RFC 6762 §6).
public struct HostAddress: Hashable, Sendable, CustomStringConvertible {
    /// The numeric address: `192.0.2.7`, `fd00::7`, or `fe80::1%eth0` for an IPv6 link-local
    /// address, which is usable only with its interface as `%zone`.
    public var address: String
    /// IPv4 (an A record) or IPv6 (AAAA).
    public var family: NetworkScope.AddressFamily
    /// The interface it came over.
    public var interfaceIndex: UInt32
    /// The time to live the host gave, in seconds.
    public var ttl: UInt32

    /// An address with these fields; the lookups make them from the records they receive.
    public init(address: String, family: NetworkScope.AddressFamily, interfaceIndex: UInt32, ttl: UInt32) {
        self.address = address
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.ttl = ttl
    }

    /// The numeric address, ``address``.
    public var description: String { address }
}

extension HostAddress {
    /// The address an A or AAAA record carries; nil for other records.
    init?(_ record: DNSRecord) {
        switch record.type {
        case .a: family = .ipv4
        case .aaaa: family = .ipv6
        default: return nil
        }
        // A unicast DNS answer (interface 0) has no link to name a zone by.
        let isLinkLocal =
            record.interfaceIndex != 0 && family == .ipv6 && record.data.count == 16 && record.data[0] == 0xFE
            && record.data[1] & 0xC0 == 0x80
        address =
            isLinkLocal
            ? "\(record.value)%\(InterfaceScanner.name(ofIndex: record.interfaceIndex) ?? String(record.interfaceIndex))"
            : record.value
        interfaceIndex = record.interfaceIndex
        ttl = record.ttl
    }
}
