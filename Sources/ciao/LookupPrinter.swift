#if canImport(Glibc)
import Glibc
#endif
import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `resolve-host`, `resolve-address` and `query` print: lines as avahi-resolve, dig and
/// `dns-sd -Q` print them, or one JSON object per line with an ISO 8601 `time`.
final class LookupPrinter {
    enum Format {
        case human, json
    }

    /// The JSON form of one line.
    private struct Line: Encodable {
        var event: String
        var time: String
        var name: String
        var interface: String
        var type: String?
        var ttl: UInt32?
        var value: String?
        var data: String?
        var address: String?
        var family: String?
        var host: String?
    }

    let format: Format
    private var interfaces: InterfaceDirectory

    init(format: Format, scope: NetworkScope) {
        self.format = format
        interfaces = InterfaceDirectory(scope: scope)
    }

    static func format(_ arguments: ParsedArguments) -> Format {
        arguments.has("--json") ? .json : .human
    }

    static let options: [CommandSpec.Option] = [
        .init(names: ["--json"], value: nil, help: "print one JSON object per line"),
    ]

    /// `alpha.local<TAB>198.18.0.1`, as `avahi-resolve -n` prints.
    func print(_ address: HostAddress, of hostName: String) {
        let name = Self.withoutTrailingDot(hostName)
        let interface = interfaces.info(for: address.interfaceIndex).name
        switch format {
        case .human: write("\(name)\t\(address.address)")
        case .json:
            write(Line(
                event: "address", time: Self.now(), name: hostName, interface: interface, ttl: address.ttl,
                address: address.address, family: address.family == .ipv4 ? "IPv4" : "IPv6"))
        }
    }

    /// `198.18.0.1<TAB>alpha.local`, as `avahi-resolve -a` prints.
    func print(hostName: String, of address: String) {
        switch format {
        case .human: write("\(address)\t\(Self.withoutTrailingDot(hostName))")
        case .json: write(Line(event: "hostName", time: Self.now(), name: hostName, interface: "any", address: address, host: hostName))
        }
    }

    /// A record as `dig` prints it, its interface after `;`; with `change`, a `dns-sd -Q` line
    /// led by the time of day and `Add`, `Upd` or `Rmv`.
    func print(_ record: DNSRecord, change: RecordEvent? = nil) {
        let interface = interfaces.info(for: record.interfaceIndex).name
        switch format {
        case .human:
            let line = "\(record.name)\t\(record.ttl)\tIN\t\(record.type)\t\(record.value)\t; \(interface)"
            guard let change else { return write(line) }
            write("\(TimeOfDay.now())  \(Self.word(for: change))  \(line)")
        case .json:
            write(Line(
                event: change.map(Self.jsonEvent) ?? "record", time: Self.now(), name: record.name, interface: interface,
                type: record.type.description, ttl: record.ttl, value: record.value,
                data: record.data.map { byte in String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16) }.joined()))
        }
    }

    /// The header of `query --continuous` lines for people.
    func printContinuousHeader() {
        if format == .human { write("Time          A/R  Name\tTTL\tClass\tType\tData\t; Interface") }
    }

    private static func word(for change: RecordEvent) -> String {
        switch change {
        case .added: "Add"
        case .updated: "Upd"
        case .removed: "Rmv"
        }
    }

    private static func jsonEvent(_ change: RecordEvent) -> String {
        switch change {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        }
    }

    private static func withoutTrailingDot(_ name: String) -> String {
        name.hasSuffix(".") && name.count > 1 ? String(name.dropLast()) : name
    }

    private static func now() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private func write(_ line: Line) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            write(String(decoding: try encoder.encode(line), as: UTF8.self))
        } catch {
            CommandLineTool.printError("cannot print a line as JSON: \(error)")
        }
    }

    private func write(_ text: String) {
        CommandLineTool.write(text + "\n", to: STDOUT_FILENO)
    }
}
