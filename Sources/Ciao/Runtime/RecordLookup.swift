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

    /// Whether multicast DNS asks it: a name in `local.` (RFC 6762 §3), a reverse-mapping name,
    /// which the host with the address answers on the link (§4), or a single label. Any other
    /// name is a unicast DNS question for the system's servers, as `dns-sd -Q` sends it (which
    /// asks unicast DNS for reverse names too, but for the link-local ones).
    var isMulticast: Bool {
        name.labelCount < 2 || Self.multicastDomains.contains { name.isSubdomain(of: $0) }
    }

    private static let multicastDomains = [
        ServiceDirectory.localDomain, try! DomainName(labels: ["in-addr", "arpa"]),
        try! DomainName(labels: ["ip6", "arpa"]),
    ]
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

    /// The A and AAAA lookup of a host name: `raspberrypi`, `raspberrypi.local` and
    /// `raspberrypi.local.` are the same host in `local.` (RFC 6762 §3); a name of two labels or
    /// more in another domain, such as `printer.example.com`, is asked of unicast DNS.
    init(hostName: String, families: Set<NetworkScope.AddressFamily>, interfaceIndex: UInt32) throws(CiaoError) {
        guard !families.isEmpty else { throw .invalidConfiguration("choose at least one address family") }
        let types = NetworkScope.AddressFamily.allCases.filter(families.contains).map {
            $0 == .ipv4 ? DNSRecordType.a : .aaaa
        }
        try self.init(name: CiaoResolver.qualifiedHostName(hostName), types: types, interfaceIndex: interfaceIndex)
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

extension CiaoResolver {
    /// `hostName` as a lookup asks for it, with its trailing dot: a single label is a name in
    /// `local.` (`raspberrypi` is `raspberrypi.local.`), any other name is as written.
    package static func qualifiedHostName(_ hostName: String) -> String {
        let bare = hostName.hasSuffix(".") ? String(hostName.dropLast()) : hostName
        return (bare.contains(".") ? bare : bare + ".local") + "."
    }

    /// Whether a lookup of `name` (a host name when `isHostName`) asks multicast DNS rather than
    /// unicast DNS (``RecordLookup/isMulticast``); a name that cannot be asked for counts as
    /// multicast, its lookup failing as it starts.
    package static func asksMulticastDNS(_ name: String, isHostName: Bool = false) -> Bool {
        let lookup =
            isHostName
            ? try? RecordLookup(hostName: name, families: [.ipv4], interfaceIndex: 0)
            : try? RecordLookup(name: name, types: [.a], interfaceIndex: 0)
        return lookup?.isMulticast ?? true
    }
}
