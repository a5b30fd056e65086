import CiaoWire

/// Why a unicast DNS query failed, each with what a user can do about it.
public enum UnicastDNSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No server answered within the attempts the configuration allows.
    case timedOut(name: DomainName, type: RecordType)
    /// Every server answered with this RCODE (SERVFAIL 2, FORMERR 1, NOTIMP 4, or another).
    case serverFailure(rcode: UInt8)
    /// Every server refused the query (RCODE 5).
    case refused
    /// A reply over TCP still had TC set, which RFC 7766 does not allow.
    case truncatedOverTCP
    /// A matching reply could not be decoded.
    case malformed(String)
    /// There is no server to ask.
    case noServers
    /// Too many queries are outstanding at once; the new one was not started.
    case tooManyQueries(limit: Int)
    /// A server's socket failed, as the transport describes it (an ICMP unreachable read back as
    /// a refusal, no route, a TCP reset), and no server answered otherwise after it.
    case unreachable(String)

    public var description: String {
        switch self {
        case .timedOut(let name, let type):
            "no DNS server answered the \(type) query for \(name); check that the servers are reachable"
                + " (resolv.conf or --server)"
        case .serverFailure(let rcode):
            "the DNS servers failed the query (RCODE \(rcode)); the zone may be broken or unreachable from them"
        case .refused:
            "the DNS servers refused the query; they may not serve this domain or this client"
        case .truncatedOverTCP:
            "a DNS server sent a truncated reply over TCP; the server is misbehaving"
        case .malformed(let reason):
            "a DNS reply was malformed: \(reason)"
        case .noServers:
            "no DNS server is configured; add a nameserver line to /etc/resolv.conf or give one with --server"
        case .tooManyQueries(let limit):
            "more than \(limit) DNS queries are outstanding; wait for some to finish"
        case .unreachable(let reason):
            "\(reason); check that the servers are reachable (resolv.conf or --server)"
        }
    }
}
