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
        .init(names: ["--json"], value: nil, help: "print one JSON object per line")
    ]

    /// `alpha.local<TAB>198.18.0.1`, as `avahi-resolve -n` prints.
    func print(_ address: HostAddress, of hostName: String) {
        let name = Self.withoutTrailingDot(hostName)
        let interface = interfaces.info(for: address.interfaceIndex).name
        switch format {
        case .human: write("\(name)\t\(address.address)")
        case .json:
            write([
                "event": "address", "name": .string(hostName), "interface": .string(interface),
                "ttl": .int(Int(address.ttl)),
                "address": .string(address.address), "family": address.family == .ipv4 ? "IPv4" : "IPv6",
            ])
        }
    }

    /// `198.18.0.1<TAB>alpha.local`, as `avahi-resolve -a` prints.
    func print(hostName: String, of address: String) {
        switch format {
        case .human: write("\(address)\t\(Self.withoutTrailingDot(hostName))")
        case .json: write(["event": "hostName", "address": .string(address), "host": .string(hostName)])
        }
    }

    /// A record as `dig` prints it, its interface after `;`; with `change`, a `dns-sd -Q` line
    /// led by the time of day and `Add`, `Upd` or `Rmv`. A type denied is an `Add` of that type
    /// at `askedName` with `No Such Record` for its data, as `dns-sd -Q` prints it; the record
    /// that denies it (an NSEC, or a unicast zone's SOA, which has the zone's name) goes into the
    /// JSON object under its type, `nsec` or `soa`.
    func print(_ record: DNSRecord, change: RecordEvent? = nil, askedName: String? = nil) {
        let interface = interfaces.info(for: record.interfaceIndex).name
        var name = record.name
        var type = record.type
        var value = record.value
        if case .noSuchRecord(let denied, _) = change {
            name = askedName.map { $0.hasSuffix(".") ? $0 : $0 + "." } ?? record.name
            type = denied
            value = "No Such Record"
        }
        switch format {
        case .human:
            let line = "\(name)\t\(record.ttl)\tIN\t\(type)\t\(value)\t; \(interface)"
            guard let change else { return write(line) }
            write("\(TimeOfDay.now())  \(Self.word(for: change))  \(line)")
        case .json:
            var fields: [String: JSONValue] = [
                "event": .string(change.map(Self.jsonEvent) ?? "record"), "name": .string(name),
                "interface": .string(interface), "type": .string(type.description), "ttl": .int(Int(record.ttl)),
                "value": .string(record.value), "data": .string(JSONEventFormatter.hex(record.data)),
            ]
            if case .noSuchRecord = change {
                // The record that says so, not a record of the type.
                fields["value"] = nil
                fields["data"] = nil
                fields[record.type.description.lowercased()] = .string(record.value)
            }
            write(fields)
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
        case .noSuchRecord: "Add"
        }
    }

    private static func jsonEvent(_ change: RecordEvent) -> String {
        switch change {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        case .noSuchRecord: "noSuchRecord"
        }
    }

    private static func withoutTrailingDot(_ name: String) -> String {
        name.hasSuffix(".") && name.count > 1 ? String(name.dropLast()) : name
    }

    /// One JSON object per line, with an ISO 8601 `time`, as the other commands' `--json` lines.
    private func write(_ fields: [String: JSONValue]) {
        var fields = fields
        fields["time"] = .string(JSONEventFormatter.timeFormat.format(Date()))
        write(JSONValue.object(fields).text)
    }

    private func write(_ text: String) {
        CommandLineTool.write(text + "\n", to: STDOUT_FILENO)
    }
}
