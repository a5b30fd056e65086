/// The RDATA of a resource record, decoded for the types mDNS and DNS-SD use and kept as opaque
/// bytes for every other type (RFC 3597).
public enum RecordData: Hashable, Sendable {
    /// A: an IPv4 address (RFC 1035 §3.4.1).
    case a(IPv4Address)
    /// AAAA: an IPv6 address (RFC 3596 §2.2).
    case aaaa(IPv6Address)
    /// PTR: a domain name (RFC 1035 §3.3.12); in DNS-SD, a service instance (RFC 6763 §4.1).
    case ptr(DomainName)
    /// SRV: the target host and port of a service instance (RFC 2782, RFC 6763 §5).
    case srv(SRVData)
    /// TXT: one or more character strings (RFC 1035 §3.3.14, RFC 6763 §6).
    case txt(TXTData)
    /// NSEC: the types that exist at a name, asserting all others absent (RFC 4034 §4, RFC 6762 §6.1).
    case nsec(NSECData)
    /// OPT pseudo-record options (RFC 6891 §6.1.2). The record's class and TTL carry the UDP payload
    /// size and extended flags; they stay in ``ResourceRecord/rrClass`` and ``ResourceRecord/ttl``.
    case opt([EDNSOption])
    /// Any other type, with its RDATA exactly as received (RFC 3597 §5).
    case unknown(RecordType, [UInt8])

    /// The record type this data belongs to.
    public var type: RecordType {
        switch self {
        case .a: .a
        case .aaaa: .aaaa
        case .ptr: .ptr
        case .srv: .srv
        case .txt: .txt
        case .nsec: .nsec
        case .opt: .opt
        case .unknown(let type, _): type
        }
    }
}
