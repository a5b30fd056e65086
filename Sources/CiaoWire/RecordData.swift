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

/// SRV RDATA (RFC 2782): priority, weight, port and target host.
public struct SRVData: Hashable, Sendable {
    public var priority: UInt16
    public var weight: UInt16
    public var port: UInt16
    public var target: DomainName

    public init(priority: UInt16 = 0, weight: UInt16 = 0, port: UInt16, target: DomainName) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = target
    }
}

/// TXT RDATA kept in wire form: a sequence of length-prefixed strings that exactly fills it
/// (RFC 1035 §3.3.14). Empty RDATA is accepted and means one empty string (RFC 6763 §6.1).
public struct TXTData: Hashable, Sendable {
    /// The RDATA bytes; always a well-formed sequence of strings.
    public let wireBytes: [UInt8]

    /// Wraps RDATA after checking that its strings exactly fill it.
    public init(wireBytes: [UInt8]) throws(TXTDataError) {
        var index = 0
        while index < wireBytes.count {
            let end = index + 1 + Int(wireBytes[index])
            guard end <= wireBytes.count else { throw TXTDataError(offset: index) }
            index = end
        }
        self.wireBytes = wireBytes
    }

    /// Builds RDATA from strings of at most 255 bytes each; no strings gives one empty string.
    public init(strings: [[UInt8]]) throws(TXTDataError) {
        var bytes: [UInt8] = []
        for (index, string) in strings.enumerated() {
            guard string.count <= 255 else { throw TXTDataError(offset: index) }
            bytes.append(UInt8(string.count))
            bytes.append(contentsOf: string)
        }
        self.wireBytes = bytes.isEmpty ? [0] : bytes
    }

    /// The character strings, in order.
    public var strings: [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var index = 0
        while index < wireBytes.count {
            let length = Int(wireBytes[index])
            result.append(wireBytes[(index + 1)..<(index + 1 + length)])
            index += 1 + length
        }
        return result
    }
}

/// A TXT string that overruns its RDATA (or is too long to encode), at the given string offset.
public struct TXTDataError: Error, Equatable, Sendable {
    public var offset: Int
}

/// NSEC RDATA (RFC 4034 §4.1) with the type bit maps decoded to a sorted set of types.
public struct NSECData: Hashable, Sendable {
    public var nextDomainName: DomainName
    /// The types present, sorted ascending and without duplicates.
    public private(set) var types: [RecordType]

    /// Keeps `types` sorted and without duplicates. Lists that come in order, as a decoded type
    /// bitmap and most built ones do, are taken as they are, without sorting.
    public init(nextDomainName: DomainName, types: [RecordType]) {
        self.nextDomainName = nextDomainName
        if zip(types, types.dropFirst()).allSatisfy({ $0 < $1 }) {
            self.types = types
        } else {
            var unique: [RecordType] = []
            for type in types.sorted() where unique.last != type { unique.append(type) }
            self.types = unique
        }
    }

    /// The same for any sequence of types (a set, a lazy map).
    public init(nextDomainName: DomainName, types: some Sequence<RecordType>) {
        self.init(nextDomainName: nextDomainName, types: Array(types))
    }
}

/// One EDNS(0) option (RFC 6891 §6.1.2), such as the Owner option mDNS sleep proxies use.
public struct EDNSOption: Hashable, Sendable {
    public var code: UInt16
    public var data: [UInt8]

    public init(code: UInt16, data: [UInt8]) {
        self.code = code
        self.data = data
    }
}
