import Ciao

/// The form the publish view edits: a new publication's name, type, port and TXT entries, or
/// only the TXT entries of a running one. TXT is written as `ciao publish` takes it, entries
/// separated by spaces (`KEY=VALUE`, `KEY=`, `KEY`, `\xHH` for a byte, `\x20` for a space).
struct PublishForm: Equatable {
    enum Field: String, CaseIterable {
        case name = "Name"
        case type = "Type"
        case port = "Port"
        case txt = "TXT"
    }

    /// Nil for a new publication; else the publication whose TXT is edited.
    var editing: Int?
    var fields: [Field]
    var values: [Field: String]
    var focus: Field
    /// Why the last submission was refused.
    var error: String?

    /// A new demo publication, as CiaoSample offers: a TCP service on a port Ciao holds.
    static func new(number: Int) -> PublishForm {
        PublishForm(
            editing: nil, fields: Field.allCases,
            values: [.name: "Ciao Demo \(number)", .type: "_ciaodemo._tcp", .port: "", .txt: "demo=\(number)"],
            focus: .name)
    }

    /// The TXT of `publication`, to edit.
    static func txt(of publication: Publication) -> PublishForm {
        PublishForm(
            editing: publication.id, fields: [.txt],
            values: [.txt: publication.configuration.txtRecord.entries.map(argument).joined(separator: " ")],
            focus: .txt)
    }

    /// `entry` as ``TXTArguments`` reads it back: bytes outside printable ASCII, spaces and
    /// backslashes escaped.
    static func argument(_ entry: TXTRecord.Entry) -> String {
        guard case .bytes(let value) = entry.value else { return entry.key }
        let text = value.map { byte -> String in
            switch byte {
            case UInt8(ascii: "\\"): return "\\\\"
            case 0x21...0x7E: return String(Character(Unicode.Scalar(byte)))
            default: return "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return entry.key + "=" + text.joined()
    }

    mutating func type(_ character: Character) {
        values[focus, default: ""].append(character)
        error = nil
    }

    mutating func deleteBackward() {
        if !(values[focus]?.isEmpty ?? true) { values[focus]!.removeLast() }
        error = nil
    }

    /// Moves the focus `offset` fields on, wrapping around.
    mutating func moveFocus(by offset: Int) {
        guard let index = fields.firstIndex(of: focus) else { return }
        focus = fields[(index + offset + fields.count) % fields.count]
    }

    /// The TXT record the form gives.
    func txtRecord() throws(ArgumentError) -> TXTRecord {
        try TXTArguments.record((values[.txt] ?? "").split(separator: " ").map(String.init))
    }

    /// The publication the form describes: an empty port (or `listener`) lets Ciao hold one.
    func configuration() throws -> PublicationConfiguration {
        let portText = (values[.port] ?? "").trimmingSpaces
        var mode = PublicationConfiguration.Mode.listener
        var port: UInt16 = 0
        if !portText.isEmpty, portText != "listener" {
            guard let value = UInt16(portText), value > 0 else {
                throw ArgumentError("Port must be 1–65535, or empty to let Ciao hold one, not \"\(portText)\"")
            }
            port = value
            mode = .externalPort
        }
        let type = try CommonOptions.serviceType((values[.type] ?? "").trimmingSpaces)
        return PublicationConfiguration(
            type: type, name: values[.name] ?? "", port: port, mode: mode, txtRecord: try txtRecord())
    }
}

extension String {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
