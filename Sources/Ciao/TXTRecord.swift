import CiaoWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key/value attributes of a DNS-SD TXT record (RFC 6763 §6).
///
/// A record keeps its strings in wire order with each key as spelled (``entries``), so that what a
/// peer sent, or what you give in order, goes out and comes back unchanged; lookups compare keys
/// case-insensitively (RFC 6763 §6.4), and ``values`` shows them lowercased with the first
/// occurrence winning, as Ciao 4 does. Keys are printable ASCII without `=`; each `key=value` entry
/// is at most 255 bytes. A boolean flag (`key`), an empty value (`key=`) and an absent key are
/// distinct. The whole record is limited to 8,900 wire bytes so it fits a 9,000-byte mDNS packet
/// (RFC 6762 §17); RFC 6763 §6.2 recommends staying under 1,300 bytes so the record fits a single
/// Ethernet frame. Two records are equal when their wire bytes are.
public struct TXTRecord: Hashable, Sendable {
    /// The value of a TXT attribute (RFC 6763 §6.4): a flag with no `=`, or bytes after `=` (possibly empty).
    public enum Value: Hashable, Sendable {
        /// Present without `=` (`key`): a boolean attribute that is true.
        case flag
        /// Present with `=` (`key=value`); the bytes may be empty or any binary data.
        case bytes(Data)
    }

    /// One attribute as it stands in the record: its key as spelled, and its value.
    public struct Entry: Hashable, Sendable {
        /// The key as spelled: printable ASCII without `=`.
        public var key: String
        /// The value: a flag or bytes.
        public var value: Value

        /// An entry; the ``TXTRecord`` initializers check it.
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The largest total wire size Ciao accepts, in bytes; RFC 6763 §6.2 recommends ≤ 1,300.
    public static let maximumWireSize = 8900
    /// The largest `key=value` entry, in bytes (one length octet, RFC 6763 §6.1).
    public static let maximumEntrySize = 255

    /// The attributes in wire order, keys as spelled; a key repeated by a peer appears each time.
    public let entries: [Entry]
    /// The attributes by lowercase key, the first occurrence of a key winning (Ciao 4's view).
    public let values: [String: Value]
    /// The RDATA as sent or received.
    private let wireBytes: [UInt8]

    /// The record with no attributes; on the wire, a single zero byte (RFC 6763 §6.1).
    public static let empty = TXTRecord(validated: [])

    /// Creates a record from attributes, as Ciao 4 does: keys lowercased, a `txtvers` key first
    /// (RFC 6763 §6.7), the others in ascending byte order.
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` if a key is empty, contains `=` or anything other than
    ///   printable ASCII, two keys differ only in case, an entry exceeds 255 bytes, or the record exceeds 8,900 bytes.
    public init(_ values: [String: Value]) throws {
        // Sorted so that the error reported for several bad keys is deterministic.
        let sorted = values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (key, _) in sorted { try TXTRecord.validateKey(key) }
        // Stable: keys equal once lowercased stay in the byte order of their spelling.
        let written = sorted.map(\.key).sorted {
            Self.precedesInCiao4Order(ASCIICaseInsensitive.lowercased($0), ASCIICaseInsensitive.lowercased($1))
        }
        let entries = written.map { Entry(key: ASCIICaseInsensitive.lowercased($0), value: values[$0]!) }
        try self.init(entries: entries, spelledAs: written)
    }

    /// Creates a record whose values are the UTF-8 bytes of `strings` (an empty string is an empty value,
    /// not a flag), ordered as ``init(_:)`` orders them.
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` under the same rules as ``init(_:)``.
    public init(strings: [String: String]) throws {
        try self.init(strings.mapValues { Value.bytes(Data($0.utf8)) })
    }

    /// Creates a record with `entries` in the order given and each key as spelled, as other stacks
    /// and Apple's NetService publish them (`txtvers=1 z=1 a=2 M=3` goes out in that order).
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` under the rules of ``init(_:)``; a key given
    ///   twice, in any case, is refused.
    public init(entries: [Entry]) throws {
        for entry in entries { try TXTRecord.validateKey(entry.key) }
        try self.init(entries: entries, spelledAs: entries.map(\.key))
    }

    /// Creates a record of UTF-8 values in the order given, keys as spelled, e.g.
    /// `TXTRecord(orderedStrings: ["txtvers": "1", "GameName": "Chess"])`.
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` under the rules of ``init(entries:)``.
    public init(orderedStrings: KeyValuePairs<String, String>) throws {
        try self.init(entries: orderedStrings.map { Entry(key: $0.key, value: .bytes(Data($0.value.utf8))) })
    }

    /// Checks sizes and case-insensitive duplicates of validated keys; `spelling` names the keys
    /// in messages as the caller wrote them.
    private init(entries: [Entry], spelledAs spelling: [String]) throws {
        var seen: [String: String] = [:]
        var wireSize = 0
        for (entry, written) in zip(entries, spelling) {
            let lower = ASCIICaseInsensitive.lowercased(entry.key)
            if let other = seen[lower] {
                throw CiaoError.invalidTXTRecord(
                    "keys \"\(other)\" and \"\(written)\" differ only in letter case; TXT keys are case-insensitive (RFC 6763 §6.4)"
                )
            }
            seen[lower] = written
            let entrySize = TXTRecord.entrySize(key: entry.key, value: entry.value)
            guard entrySize <= TXTRecord.maximumEntrySize else {
                throw CiaoError.invalidTXTRecord(
                    "the entry for key \"\(written)\" is \(entrySize) bytes; a key=value entry may be at most 255 bytes (RFC 6763 §6.1)"
                )
            }
            wireSize += 1 + entrySize
        }
        guard wireSize <= TXTRecord.maximumWireSize else {
            throw CiaoError.invalidTXTRecord(
                "the record is \(wireSize) bytes on the wire; at most \(TXTRecord.maximumWireSize) are allowed (1,300 recommended, RFC 6763 §6.2)"
            )
        }
        self.init(validated: entries)
    }

    /// Parses TXT RDATA: a sequence of length-prefixed strings (RFC 6763 §6.1–6.4), kept as given.
    ///
    /// Empty strings, strings with an empty key (`=…`) and strings whose key is not printable ASCII are not
    /// entries; for ``values`` keys are lowercased and the first occurrence of a key wins; no data at all is
    /// the empty record.
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` if a length byte runs past the end of the data.
    public init(wireData: Data) throws {
        let bytes = [UInt8](wireData)
        let txt: TXTData
        do {
            txt = try TXTData(wireBytes: bytes)
        } catch {
            let length = Int(bytes[error.offset])
            throw CiaoError.invalidTXTRecord(
                "the string at offset \(error.offset) claims \(length) bytes but only \(bytes.count - error.offset - 1) remain (RFC 6763 §6.1)"
            )
        }
        self.init(txt)
    }

    /// The record that TXT RDATA holds, read as ``init(wireData:)`` reads it.
    package init(_ txt: TXTData) {
        let bytes = txt.wireBytes
        var entries: [Entry] = []
        for string in txt.strings where !string.isEmpty {
            let separator = string.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = string[..<(separator ?? string.endIndex)]
            guard !keyBytes.isEmpty, keyBytes.allSatisfy(TXTRecord.isKeyByte) else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self)
            entries.append(Entry(key: key, value: separator.map { .bytes(Data(string[($0 + 1)...])) } ?? .flag))
        }
        self.entries = entries
        values = Self.firstOccurrences(of: entries)
        wireBytes = bytes.isEmpty ? [0] : bytes
    }

    private init(validated entries: [Entry]) {
        self.entries = entries
        values = Self.firstOccurrences(of: entries)
        var bytes: [UInt8] = []
        for entry in entries {
            bytes.append(UInt8(TXTRecord.entrySize(key: entry.key, value: entry.value)))
            bytes += entry.key.utf8
            if case .bytes(let data) = entry.value {
                bytes.append(UInt8(ascii: "="))
                bytes += data
            }
        }
        wireBytes = bytes.isEmpty ? [0] : bytes
    }

    /// Ciao 4's order of lowercased keys: `txtvers` first (RFC 6763 §6.7), then ascending bytes.
    private static func precedesInCiao4Order(_ a: String, _ b: String) -> Bool {
        if (a == "txtvers") != (b == "txtvers") { return a == "txtvers" }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func firstOccurrences(of entries: [Entry]) -> [String: Value] {
        var values: [String: Value] = [:]
        for entry in entries {
            let key = ASCIICaseInsensitive.lowercased(entry.key)
            if values[key] == nil { values[key] = entry.value }
        }
        return values
    }

    /// The RDATA: the entries as length-prefixed strings in their order, or the bytes received;
    /// the empty record is the single byte `0` (RFC 6763 §6.1).
    public var wireData: Data { Data(wireBytes) }

    /// The record as TXT RDATA, which its bytes always are.
    package var txtData: TXTData { (try? TXTData(wireBytes: wireBytes)) ?? (try! TXTData(strings: [])) }

    /// True when the two records have the same wire bytes: the same entries in the same order,
    /// keys spelled alike.
    public static func == (lhs: TXTRecord, rhs: TXTRecord) -> Bool { lhs.wireBytes == rhs.wireBytes }

    /// Hashes the wire bytes, as ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(wireBytes) }

    /// The value for `key`, compared case-insensitively; `nil` if absent.
    public subscript(key: String) -> Value? {
        values[ASCIICaseInsensitive.lowercased(key)]
    }

    /// The value for `key` (case-insensitive) decoded as UTF-8; `nil` if absent, a flag, or not valid UTF-8.
    public subscript(text key: String) -> String? {
        guard case .bytes(let data)? = self[key] else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    private static func entrySize(key: String, value: Value) -> Int {
        switch value {
        case .flag: key.utf8.count
        case .bytes(let data): key.utf8.count + 1 + data.count
        }
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "=")
    }

    private static func validateKey(_ key: String) throws {
        guard !key.isEmpty else {
            throw CiaoError.invalidTXTRecord("a key is empty; keys need at least one character (RFC 6763 §6.4)")
        }
        guard key.utf8.allSatisfy(isKeyByte) else {
            throw CiaoError.invalidTXTRecord(
                "key \"\(escaped(Array(key.utf8)))\" must be printable ASCII (0x20-0x7E) without \"=\" (RFC 6763 §6.4)")
        }
    }

    /// Printable ASCII as is (backslash doubled), every other byte as `\xNN`.
    fileprivate static func escaped(_ bytes: some Sequence<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\\") {
                out += [byte, byte]
            } else if byte >= 0x20 && byte <= 0x7E {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension TXTRecord: CustomStringConvertible {
    /// The entries in wire order separated by spaces, keys as spelled, e.g. `bin=\x00\xff empty= flag k=v`;
    /// bytes that are not printable ASCII appear as `\xNN`. The empty record is the empty string.
    public var description: String {
        entries.map { entry in
            switch entry.value {
            case .flag: entry.key
            case .bytes(let data): entry.key + "=" + TXTRecord.escaped(data)
            }
        }.joined(separator: " ")
    }
}
