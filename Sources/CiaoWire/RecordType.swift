/// A resource record TYPE or question QTYPE (RFC 1035 §3.2.2, IANA "Resource Record (RR) TYPEs").
public struct RecordType: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let a = RecordType(1)
    public static let ns = RecordType(2)
    public static let cname = RecordType(5)
    public static let soa = RecordType(6)
    public static let ptr = RecordType(12)
    public static let hinfo = RecordType(13)
    public static let txt = RecordType(16)
    public static let aaaa = RecordType(28)
    public static let srv = RecordType(33)
    public static let opt = RecordType(41)
    public static let nsec = RecordType(47)
    /// QTYPE `*` (ANY): matches every type in a question.
    public static let any = RecordType(255)

    private static let mnemonics: [UInt16: String] = [
        1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 13: "HINFO", 16: "TXT", 28: "AAAA", 33: "SRV",
        41: "OPT", 47: "NSEC", 255: "ANY",
    ]

    /// The types by mnemonic, such as `"AAAA"`, as zone files and `dig` name them.
    public static let mnemonicValues: [String: UInt16] = Dictionary(
        uniqueKeysWithValues: mnemonics.map { ($0.value, $0.key) })

    /// The mnemonic, or `TYPEn` for types without one (RFC 3597 §5).
    public var description: String { Self.mnemonics[rawValue] ?? "TYPE\(rawValue)" }

    public static func < (lhs: RecordType, rhs: RecordType) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A CLASS value without the top bit, which mDNS reuses as the cache-flush (answers) or
/// unicast-response (questions) flag (RFC 6762 §10.2, §5.4).
public struct RecordClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let internet = RecordClass(rawValue: 1)
    /// QCLASS `*` (ANY).
    public static let any = RecordClass(rawValue: 255)

    /// `IN`, `ANY`, or `CLASSn` (RFC 3597 §5).
    public var description: String {
        switch rawValue {
        case 1: "IN"
        case 255: "ANY"
        default: "CLASS\(rawValue)"
        }
    }
}
