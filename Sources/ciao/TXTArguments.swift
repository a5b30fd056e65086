import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// TXT entries from the shell: `KEY=VALUE`, `KEY=` (empty value) and `KEY` (a flag, RFC 6763
/// §6.4). In values, `\xHH` is a byte given in hex and `\\` a backslash, so binary values can be
/// typed.
enum TXTArguments {
    /// The record of `arguments`, in their order and with each key as written.
    static func record(_ arguments: [String]) throws(ArgumentError) -> TXTRecord {
        var entries: [TXTRecord.Entry] = []
        var keys: Set<String> = []
        for argument in arguments {
            let (key, value) = try entry(argument)
            guard keys.insert(key.lowercased()).inserted else { throw ArgumentError("TXT key \"\(key)\" given twice") }
            entries.append(TXTRecord.Entry(key: key, value: value))
        }
        do {
            return try TXTRecord(entries: entries)
        } catch {
            throw ArgumentError("\(error)")
        }
    }

    static func entry(_ argument: String) throws(ArgumentError) -> (String, TXTRecord.Value) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, .flag) }
        let key = String(argument[..<equals])
        guard !key.isEmpty else { throw ArgumentError("TXT entry \"\(argument)\" has no key") }
        return (key, .bytes(Data(try unescaped(argument[argument.index(after: equals)...]))))
    }

    /// The bytes of `value` with `\xHH` and `\\` decoded.
    static func unescaped(_ value: Substring) throws(ArgumentError) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = Array(value.utf8)[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            switch rest.popFirst() {
            case UInt8(ascii: "\\"):
                bytes.append(byte)
            case UInt8(ascii: "x"):
                let digits = rest.prefix(2)
                guard digits.count == 2, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                    let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16)
                else {
                    throw ArgumentError("\\x must be followed by two hex digits in \"\(value)\"")
                }
                bytes.append(value)
                rest = rest.dropFirst(2)
            default:
                throw ArgumentError("unknown escape in \"\(value)\": use \\xHH for a byte and \\\\ for a backslash")
            }
        }
        return bytes
    }
}
