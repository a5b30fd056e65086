import CiaoWire

/// A JSON value (RFC 8259) and its text: one line, object keys sorted, `/` unescaped, as the
/// `--json` lines print it.
enum JSONValue: ExpressibleByStringLiteral {
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    init(stringLiteral value: String) {
        self = .string(value)
    }

    var text: String {
        switch self {
        case .string(let value): Self.quoted(value)
        case .int(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.keys.sorted().map { Self.quoted($0) + ":" + fields[$0]!.text }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t` … or `\uXXXX`, DEL,
    /// C1 controls and the line and paragraph separators too, so that a line read on a terminal
    /// cannot move its cursor.
    private static func quoted(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.isControlCharacter:
                let digits = Array("0123456789abcdef")
                text += "\\u" + [12, 8, 4, 0].map { String(digits[Int(scalar.value >> $0 & 0xF)]) }.joined()
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
