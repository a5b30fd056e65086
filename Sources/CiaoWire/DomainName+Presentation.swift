/// Presentation (text) form of names: labels joined by dots, with `.` and `\` escaped as `\.` and
/// `\\`, and other bytes that cannot be shown as `\DDD` (RFC 1035 §5.1, RFC 6763 §4.3).
extension DomainName: CustomStringConvertible, LosslessStringConvertible {
    /// Parses presentation form: `\.`, `\\`, `\X` for any character X, and `\DDD` (decimal byte)
    /// escapes; a trailing dot is optional; `""` and `"."` are the root.
    public init(parsing text: String) throws(NameError) {
        var labels: [[UInt8]] = []
        var label: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        if bytes == [UInt8(ascii: ".")] { bytes = [] }
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "."):
                guard !label.isEmpty else { throw .emptyLabel }
                labels.append(label)
                label = []
            case UInt8(ascii: "\\"):
                guard let next = bytes.popFirst() else { throw .invalidEscape(text) }
                if Self.isDigit(next) {
                    let digits = [next] + bytes.prefix(2)
                    guard digits.count == 3, digits.allSatisfy(Self.isDigit) else { throw .invalidEscape(text) }
                    let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    guard value <= 255 else { throw .invalidEscape(text) }
                    label.append(UInt8(value))
                    bytes.removeFirst(2)
                } else {
                    label.append(next)
                }
            default:
                label.append(byte)
            }
        }
        if !label.isEmpty { labels.append(label) }
        try self.init(labels: labels)
    }

    /// Parses presentation form; `nil` when the text is not a valid name.
    public init?(_ description: String) {
        guard let name = try? DomainName(parsing: description) else { return nil }
        self = name
    }

    /// Presentation form with a trailing dot; the root is `"."`.
    public var description: String {
        guard !isRoot else { return "." }
        var text = ""
        for label in labels {
            text += Self.escaped(label)
            text += "."
        }
        return text
    }

    /// One label in presentation form: printable text and valid UTF-8 kept, `.` and `\` escaped,
    /// control characters (C0 and C1, DEL, the line and paragraph separators) and bytes that are
    /// not valid UTF-8 written as `\DDD`.
    public static func escaped(_ label: ArraySlice<UInt8>) -> String {
        var result = ""
        if let text = String(validating: label, as: UTF8.self) {
            for scalar in text.unicodeScalars { append(scalar, to: &result) }
        } else {
            for byte in label {
                if byte < 0x80 { append(Unicode.Scalar(byte), to: &result) } else { result += decimalEscape(byte) }
            }
        }
        return result
    }

    /// Appends `scalar` escaped as needed: `.` and `\` after a backslash, a control character
    /// as its UTF-8 bytes in `\DDD` form.
    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        switch scalar {
        case ".": result += "\\."
        case "\\": result += "\\\\"
        case _ where scalar.isControlCharacter: result += scalar.decimalEscaped
        default: result.unicodeScalars.append(scalar)
        }
    }

    /// `\DDD`: a byte as three decimal digits (RFC 1035 §5.1).
    package static func decimalEscape(_ byte: UInt8) -> String {
        let digits = String(byte)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
