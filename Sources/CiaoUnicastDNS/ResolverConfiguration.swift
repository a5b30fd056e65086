import CiaoWire

/// The stub resolver's settings as `resolv.conf(5)` gives them: the servers (at most three, tried
/// in order), the search list, and `options ndots:`, `timeout:` and `attempts:`.
public struct ResolverConfiguration: Hashable, Sendable {
    /// The most servers glibc reads (MAXNS); later `nameserver` lines are ignored, as there.
    public static let maximumServers = 3

    public var servers: [DNSServer]
    /// The domains tried for a relative name; `domain` and `search` lines replace each other, the
    /// last one winning, as in glibc.
    public var searchDomains: [DomainName]
    /// Dots a name needs to be tried as absolute first (glibc caps it at 15).
    public var ndots: Int
    /// How long one attempt waits for a reply (glibc caps it at 30 s).
    public var timeout: Duration
    /// Rounds over all servers (glibc caps it at 5).
    public var attempts: Int

    public init(
        servers: [DNSServer], searchDomains: [DomainName] = [], ndots: Int = 1, timeout: Duration = .seconds(5),
        attempts: Int = 2
    ) {
        self.servers = servers
        self.searchDomains = searchDomains
        self.ndots = ndots
        self.timeout = timeout
        self.attempts = attempts
    }

    /// Reads the text of a `resolv.conf` file; lines it does not understand are skipped, as the
    /// system resolver skips them. With no `nameserver` line the server list is empty (glibc
    /// would use 127.0.0.1; a caller decides).
    public init(parsing text: String) {
        self.init(servers: [])
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = words.first, !keyword.hasPrefix("#"), !keyword.hasPrefix(";") else { continue }
            let values = words.dropFirst().prefix { !$0.hasPrefix("#") && !$0.hasPrefix(";") }
            switch keyword {
            case "nameserver":
                if servers.count < Self.maximumServers, let text = values.first,
                    let server = Self.server(String(text))
                {
                    servers.append(server)
                }
            case "domain":
                searchDomains = values.first.flatMap { try? DomainName(parsing: String($0)) }.map { [$0] } ?? []
            case "search":
                searchDomains = values.compactMap { try? DomainName(parsing: String($0)) }
            case "options":
                for option in values { apply(option: option) }
            default:
                continue
            }
        }
    }

    /// A `nameserver` value: an address, an IPv6 one possibly with a `%zone` (dropped: a global
    /// server is reached without one).
    private static func server(_ text: String) -> DNSServer? {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        guard !address.contains("#") else { return nil }
        return DNSServer(parsing: address)
    }

    private mutating func apply(option: Substring) {
        let parts = option.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let value = Int(parts[1]), value >= 0 else { return }
        switch parts[0] {
        case "ndots": ndots = min(value, 15)
        case "timeout": timeout = .seconds(min(max(value, 1), 30))
        case "attempts": attempts = min(max(value, 1), 5)
        default: return
        }
    }
}
