import Ciao
import CiaoWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Aligned columns for people, in the manner of avahi-browse: `+` found, `-` removed, `=`
/// resolved with its details indented below, TXT strings in the order they were published;
/// coloured on a terminal. Names come with their control characters escaped (`\027`), and
/// columns are counted in terminal columns, so that no peer's name can move the cursor or skew
/// the table.
struct HumanFormatter: EventFormatter {
    var style: TerminalStyle

    static let nameWidth = 32
    static let typeWidth = 20

    /// The TXT strings in wire order, as they were published; `(none)` for a record without data.
    static func txtField(_ txt: TXTRecord) -> String {
        let field = ParsableFormatter.txtFieldInWireOrder(txt)
        return field.isEmpty ? "(none)" : field
    }

    func lines(for event: OutputEvent, at time: Date) -> [String] {
        switch event {
        case .found(let service, let interface):
            return [row(style.paint("+", .green), interface.name, service)]
        case .removed(let service, let interface):
            return [row(style.paint("-", .red), interface.name, service)]
        case .resolved(let resolved, let interface):
            return [
                row(style.paint("=", .blue), interface.name, resolved.service),
                "    hostname = \(resolved.hostName)",
                "    address  = \(resolved.addresses.joined(separator: ", "))",
                "    port     = \(resolved.port)",
                "    txt      = \(Self.txtField(resolved.txtRecord))",
            ]
        case .resolutionFailed(let service, let interface, let error):
            return [
                row(style.paint("!", .red), interface.name, service) + "  "
                    + style.paint(error.description.escapingControlCharacters, .dim)
            ]
        case .type(let type, _):
            return [
                type.isRFC6335
                    ? type.rawValue : type.rawValue + "  " + style.paint("(not an RFC 6335 service name)", .dim)
            ]
        case .domainFound(let domain, let isDefault):
            return [style.paint("+", .green) + " " + domain + (isDefault ? "  " + style.paint("(default)", .dim) : "")]
        case .domainRemoved(let domain):
            return [style.paint("-", .red) + " " + domain]
        case .published(let published):
            return [
                "Established under name '\(published.service.name.escapingControlCharacters)' (\(published.service.type).local.) on "
                    + "\(published.hostName) port \(published.port)"
            ]
        }
    }

    private func row(_ mark: String, _ interface: String, _ service: Service) -> String {
        [
            mark, Self.padded(interface, 8), Self.padded(service.name.escapingControlCharacters, Self.nameWidth),
            Self.padded(service.type.rawValue, Self.typeWidth), service.domain,
        ].joined(separator: " ")
    }

    /// `text` padded with spaces to `width` terminal columns (longer text is kept whole).
    static func padded(_ text: String, _ width: Int) -> String {
        let columns = DisplayWidth.of(text)
        return columns >= width ? text : text + String(repeating: " ", count: width - columns)
    }
}
