import CiaoWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key/value attributes of a DNS-SD TXT record (RFC 6763 §6).
///
/// Keys are printable ASCII without `=`, compared case-insensitively and stored lowercase; each `key=value`
/// entry is at most 255 bytes. A boolean flag (`key`), an empty value (`key=`) and an absent key are distinct.
/// The whole record is limited to 8,900 wire bytes so it fits a 9,000-byte mDNS packet (RFC 6762 §17);
/// RFC 6763 §6.2 recommends staying under 1,300 bytes so the record fits a single Ethernet frame.
public struct TXTRecord: Hashable, Sendable {
    /// The value of a TXT attribute (RFC 6763 §6.4): a flag with no `=`, or bytes after `=` (possibly empty).
    public enum Value: Hashable, Sendable {
        /// Present without `=` (`key`): a boolean attribute that is true.
        case flag
        /// Present with `=` (`key=value`); the bytes may be empty or any binary data.
        case bytes(Data)
    }

    /// The largest total wire size Ciao accepts, in bytes; RFC 6763 §6.2 recommends ≤ 1,300.
    public static let maximumWireSize = 8900
    /// The largest `key=value` entry, in bytes (one length octet, RFC 6763 §6.1).
    public static let maximumEntrySize = 255

    /// The attributes by lowercase key.
    public let values: [String: Value]

    /// The record with no attributes; on the wire, a single zero byte (RFC 6763 §6.1).
    public static let empty = TXTRecord(validated: [:])

    /// Creates a record from attributes; keys are lowercased.
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` if a key is empty, contains `=` or anything other than
    ///   printable ASCII, two keys differ only in case, an entry exceeds 255 bytes, or the record exceeds 8,900 bytes.
    public init(_ values: [String: Value]) throws {
        var lowered: [String: Value] = [:]
        var wireSize = 0
        // Sorted so that the error reported for several bad keys is deterministic.
        for (key, value) in values.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            try TXTRecord.validateKey(key)
            let lower = ASCIICaseInsensitive.lowercased(key)
            if lowered[lower] != nil {
                let other = values.keys.filter { ASCIICaseInsensitive.lowercased($0) == lower && $0 != key }
                    .sorted().first ?? lower
                throw CiaoError.invalidTXTRecord(
                    "keys \"\(other)\" and \"\(key)\" differ only in letter case; TXT keys are case-insensitive (RFC 6763 §6.4)")
            }
            let entrySize = TXTRecord.entrySize(key: lower, value: value)
            guard entrySize <= TXTRecord.maximumEntrySize else {
                throw CiaoError.invalidTXTRecord(
                    "the entry for key \"\(key)\" is \(entrySize) bytes; a key=value entry may be at most 255 bytes (RFC 6763 §6.1)")
            }
            wireSize += 1 + entrySize
            lowered[lower] = value
        }
        guard wireSize <= TXTRecord.maximumWireSize else {
            throw CiaoError.invalidTXTRecord(
                "the record is \(wireSize) bytes on the wire; at most \(TXTRecord.maximumWireSize) are allowed (1,300 recommended, RFC 6763 §6.2)")
        }
        self.values = lowered
    }

    /// Creates a record whose values are the UTF-8 bytes of `strings` (an empty string is an empty value, not a flag).
    ///
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` under the same rules as ``init(_:)``.
    public init(strings: [String: String]) throws {
        try self.init(strings.mapValues { Value.bytes(Data($0.utf8)) })
    }

    /// Parses TXT RDATA: a sequence of length-prefixed strings (RFC 6763 §6.1–6.4).
    ///
    /// Empty strings, strings with an empty key (`=…`) and strings whose key is not printable ASCII are ignored;
    /// keys are lowercased and the first occurrence of a key wins; no data at all is the empty record.
    /// - Throws: ``CiaoError/invalidTXTRecord(_:)`` if a length byte runs past the end of the data.
    public init(wireData: Data) throws {
        let bytes = [UInt8](wireData)
        let strings: [ArraySlice<UInt8>]
        do {
            strings = try TXTData(wireBytes: bytes).strings
        } catch {
            let length = Int(bytes[error.offset])
            throw CiaoError.invalidTXTRecord(
                "the string at offset \(error.offset) claims \(length) bytes but only \(bytes.count - error.offset - 1) remain (RFC 6763 §6.1)")
        }
        var values: [String: Value] = [:]
        for entry in strings where !entry.isEmpty {
            let separator = entry.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = entry[..<(separator ?? entry.endIndex)]
            guard !keyBytes.isEmpty, keyBytes.allSatisfy(TXTRecord.isKeyByte) else { continue }
            let key = String(decoding: keyBytes.map(ASCIICaseInsensitive.lowercase), as: UTF8.self)
            guard values[key] == nil else { continue }
            if let separator {
                values[key] = .bytes(Data(entry[(separator + 1)...]))
            } else {
                values[key] = .flag
            }
        }
        self.values = values
    }

    private init(validated values: [String: Value]) {
        self.values = values
    }

    /// The RDATA: `key=value` / `key` strings each prefixed by its length, keys in ascending byte order;
    /// the empty record is the single byte `0` (RFC 6763 §6.1).
    public var wireData: Data {
        guard !values.isEmpty else { return Data([0]) }
        var data = Data()
        for (key, value) in sortedEntries {
            data.append(UInt8(TXTRecord.entrySize(key: key, value: value)))
            data.append(contentsOf: key.utf8)
            if case .bytes(let bytes) = value {
                data.append(UInt8(ascii: "="))
                data.append(bytes)
            }
        }
        return data
    }

    /// The value for `key`, compared case-insensitively; `nil` if absent.
    public subscript(key: String) -> Value? {
        values[ASCIICaseInsensitive.lowercased(key)]
    }

    /// The value for `key` (case-insensitive) decoded as UTF-8; `nil` if absent, a flag, or not valid UTF-8.
    public subscript(text key: String) -> String? {
        guard case .bytes(let data)? = self[key] else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    private var sortedEntries: [(key: String, value: Value)] {
        values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
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
    /// The entries in wire order separated by spaces, e.g. `bin=\x00\xff empty= flag k=v`; bytes that are not
    /// printable ASCII appear as `\xNN`. The empty record is the empty string.
    public var description: String {
        sortedEntries.map { key, value in
            switch value {
            case .flag: key
            case .bytes(let data): key + "=" + TXTRecord.escaped(data)
            }
        }.joined(separator: " ")
    }
}
