import Ciao
import Foundation

/// One JSON object per event per line, with an ISO 8601 `time`, for scripts.
///
/// TXT values are strings when they are UTF-8, `{"hex": "00ff"}` when they are not, and `true`
/// for a flag (a key without `=`).
struct JSONEventFormatter: EventFormatter {
    func lines(for event: OutputEvent, at time: Date) -> [String] {
        var fields: [String: Any]
        switch event {
        case .found(let service, let interface):
            fields = Self.fields(service, interface)
            fields["event"] = "found"
        case .removed(let service, let interface):
            fields = Self.fields(service, interface)
            fields["event"] = "removed"
        case .resolved(let resolved, let interface):
            fields = Self.fields(resolved.service, interface)
            fields["event"] = "resolved"
            fields["host"] = resolved.hostName
            fields["port"] = Int(resolved.port)
            fields["addresses"] = resolved.addresses
            fields["txt"] = Self.txt(resolved.txtRecord)
        case .resolutionFailed(let service, let interface, let error):
            fields = Self.fields(service, interface)
            fields["event"] = "resolutionFailed"
            fields["error"] = error.description
        case .type(let type):
            fields = ["event": "type", "type": type.rawValue, "domain": "local.", "rfc6335": type.isRFC6335]
        case .published(let published):
            fields = [
                "event": "published", "name": published.service.name, "type": published.service.type.rawValue,
                "domain": published.service.domain, "host": published.hostName, "port": Int(published.port),
            ]
        }
        fields["time"] = Self.timeFormat.format(time)
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return [] }
        return [String(decoding: data, as: UTF8.self)]
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func fields(_ service: Service, _ interface: InterfaceInfo) -> [String: Any] {
        ["name": service.name, "type": service.type.rawValue, "domain": service.domain, "interface": interface.name]
    }

    private static func txt(_ record: TXTRecord) -> [String: Any] {
        record.values.mapValues { value -> Any in
            switch value {
            case .flag: return true
            case .bytes(let data):
                if let text = String(validating: data, as: UTF8.self) { return text }
                return ["hex": data.map { String(format: "%02x", $0) }.joined()]
            }
        }
    }
}
