import Ciao
import CiaoWire

/// A TXT entry for people (RFC 6763 §6.4): `key=value` when the value is printable UTF-8,
/// `key=<hex …>` when binary, `key=` marked empty, and a bare key marked as a flag, so that
/// the three kinds never look alike.
enum TXTEntryText {
    static func describe(_ entry: TXTRecord.Entry) -> String {
        switch entry.value {
        case .flag:
            return "  \(entry.key)  (flag)"
        case .bytes(let bytes) where bytes.isEmpty:
            return "  \(entry.key)=  (empty)"
        case .bytes(let bytes):
            if let text = String(validating: bytes, as: UTF8.self),
                !text.unicodeScalars.contains(where: \.isControlCharacter)
            {
                return "  \(entry.key)=\(text)"
            }
            let hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
            return "  \(entry.key)=<\(hex)>  (hex)"
        }
    }
}
