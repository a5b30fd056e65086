import CiaoEngine
import CiaoWire

/// A question for a ``DiscoveryBackend`` to ask continuously: a name and the record types wanted,
/// answered on one interface or all.
struct RecordLookup: Hashable, Sendable {
    var name: DomainName
    /// One query each; the answers to all of them reach the same callback.
    var types: [RecordType]
    /// 0 for every interface.
    var interfaceIndex: UInt32
}

extension RecordLookup {
    /// A lookup of `name` as a user writes it (`printer.local`, escapes as in zone files, a
    /// trailing dot optional); `invalidConfiguration` for a name DNS cannot carry.
    init(name: String, types: [DNSRecordType], interfaceIndex: UInt32) throws(CiaoError) {
        let parsed: DomainName
        do {
            parsed = try DomainName(parsing: name.hasSuffix(".") ? name : name + ".")
        } catch {
            throw .invalidConfiguration("\"\(name)\" is not a domain name: \(error)")
        }
        guard parsed != .root else { throw .invalidConfiguration("the name to look up is empty") }
        self.init(name: parsed, types: types.map(\.wireType), interfaceIndex: interfaceIndex)
    }

    /// The A and AAAA lookup of a host name in `local.` (RFC 6762 §3): `raspberrypi`,
    /// `raspberrypi.local` and `raspberrypi.local.` are the same host; a name in another domain is
    /// `invalidConfiguration`, since multicast DNS serves only `local.`.
    init(hostName: String, families: Set<NetworkScope.AddressFamily>, interfaceIndex: UInt32) throws(CiaoError) {
        let bare = hostName.hasSuffix(".") ? String(hostName.dropLast()) : hostName
        let lowered = bare.lowercased()
        let full: String
        if lowered.hasSuffix(".local") {
            full = bare
        } else if !bare.contains(".") {
            full = bare + ".local"
        } else {
            throw .invalidConfiguration(
                "host name \"\(hostName)\" is not in local., the only domain multicast DNS serves")
        }
        guard !families.isEmpty else { throw .invalidConfiguration("choose at least one address family") }
        let types = NetworkScope.AddressFamily.allCases.filter(families.contains).map {
            $0 == .ipv4 ? DNSRecordType.a : .aaaa
        }
        try self.init(name: full, types: types, interfaceIndex: interfaceIndex)
    }

    /// The PTR lookup that maps `address` (`192.0.2.7`, `fe80::1`, a `%zone` ignored) back to a
    /// host name (RFC 1035 §3.5, RFC 3596 §2.5); `invalidConfiguration` for anything else.
    init(reverseOf address: String, interfaceIndex: UInt32) throws(CiaoError) {
        guard let parsed = CiaoEngine.IPAddress(String(address.prefix { $0 != "%" })) else {
            throw .invalidConfiguration("\"\(address)\" is not an IPv4 or IPv6 address")
        }
        self.init(name: parsed.reverseMappingName, types: [.ptr], interfaceIndex: interfaceIndex)
    }
}
