import CiaoWire

/// A DNS record type (RFC 1035 §3.2.2) by number, with its mnemonic where it has one.
public struct DNSRecordType: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The type's number, as in a record's TYPE field.
    public var rawValue: UInt16

    /// The type numbered `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An IPv4 address (RFC 1035 §3.4.1).
    public static let a = DNSRecordType(rawValue: 1)
    /// A domain name pointer: a service instance of a type (RFC 6763 §4.1), or an address's host
    /// name (RFC 1035 §3.5).
    public static let ptr = DNSRecordType(rawValue: 12)
    /// Host information: CPU and operating system (RFC 1035 §3.3.2).
    public static let hinfo = DNSRecordType(rawValue: 13)
    /// Text strings: a service's attributes (RFC 6763 §6).
    public static let txt = DNSRecordType(rawValue: 16)
    /// An IPv6 address (RFC 3596 §2).
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// A service's host and port (RFC 2782).
    public static let srv = DNSRecordType(rawValue: 33)
    /// The types a name has, asserting the others absent (RFC 6762 §6.1).
    public static let nsec = DNSRecordType(rawValue: 47)
    /// Every type of a name (QTYPE `*`).
    public static let any = DNSRecordType(rawValue: 255)

    /// A mnemonic such as `AAAA` (any letter case), `TYPE65` (RFC 3597 §5) or a number such as `65`;
    /// nil for anything else, and for the types that are not records (0, OPT).
    public init?(_ text: String) {
        let upper = text.uppercased()
        if let number = UInt16(upper) ?? (upper.hasPrefix("TYPE") ? UInt16(upper.dropFirst(4)) : nil) {
            self.init(rawValue: number)
        } else if let known = RecordType.mnemonicValues[upper] {
            self.init(rawValue: known)
        } else {
            return nil
        }
        guard rawValue != 0, rawValue != RecordType.opt.rawValue else { return nil }
    }

    /// The mnemonic, or `TYPEn` for a type without one (RFC 3597 §5).
    public var description: String { RecordType(rawValue).description }

    /// Orders types by number.
    public static func < (lhs: DNSRecordType, rhs: DNSRecordType) -> Bool { lhs.rawValue < rhs.rawValue }

    var wireType: RecordType { RecordType(rawValue) }
}
