import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON object per event per line, with an ISO 8601 `time`, for scripts.
///
/// TXT values are strings when they are UTF-8, `{"hex": "00ff"}` when they are not, and `true`
/// for a flag (a key without `=`); `txt` holds each key once, its first value (RFC 6763 §6.4),
/// and `txtData` the record's bytes, every string in wire order.
struct JSONEventFormatter: EventFormatter {
    func lines(for event: OutputEvent, at time: Date) -> [String] {
        var fields: [String: JSONValue]
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
            fields["host"] = .string(resolved.hostName)
            fields["port"] = .int(Int(resolved.port))
            fields["addresses"] = .array(resolved.addresses.map(JSONValue.string))
            fields["txt"] = .object(Self.txt(resolved.txtRecord))
            fields["txtData"] = .string(Self.hex(resolved.txtRecord.wireData))
        case .resolutionFailed(let service, let interface, let error):
            fields = Self.fields(service, interface)
            fields["event"] = "resolutionFailed"
            fields["error"] = .string(error.description)
        case .type(let type, let domain):
            fields = [
                "event": "type", "type": .string(type.rawValue), "domain": .string(domain),
                "rfc6335": .bool(type.isRFC6335),
            ]
        case .domainFound(let domain, let isDefault):
            fields = ["event": "domainFound", "domain": .string(domain), "default": .bool(isDefault)]
        case .domainRemoved(let domain):
            fields = ["event": "domainRemoved", "domain": .string(domain)]
        case .published(let published):
            fields = [
                "event": "published", "name": .string(published.service.name),
                "type": .string(published.service.type.rawValue),
                "domain": .string(published.service.domain), "host": .string(published.hostName),
                "port": .int(Int(published.port)),
            ]
        }
        fields["time"] = .string(Self.timeFormat.format(time))
        return [JSONValue.object(fields).text]
    }

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func fields(_ service: Service, _ interface: InterfaceInfo) -> [String: JSONValue] {
        [
            "name": .string(service.name), "type": .string(service.type.rawValue), "domain": .string(service.domain),
            "interface": .string(interface.name),
        ]
    }

    private static func txt(_ record: TXTRecord) -> [String: JSONValue] {
        record.values.mapValues { value -> JSONValue in
            switch value {
            case .flag: return .bool(true)
            case .bytes(let data):
                if let text = String(validating: data, as: UTF8.self) { return .string(text) }
                return .object(["hex": .string(hex(data))])
            }
        }
    }

    /// Lowercase hex digits, two per byte.
    static func hex(_ data: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
