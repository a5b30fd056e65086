import Ciao
import CiaoWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lines of `avahi-browse -p` (and `-r`), so that scripts written for it can switch: fields
/// split by `;`, names escaped as avahi escapes them, one line per interface and protocol.
///
/// As avahi does, it prints a line per protocol a service's records came over (the families in
/// the event's ``InterfaceInfo``); a resolved line carries the first address (IPv4 before IPv6)
/// that came over its protocol, the host name escaped label by label, and TXT strings in reverse
/// wire order. A service found by unicast DNS has `n/a` for interface and protocol, one line,
/// and its first address (IPv4 before IPv6), as `avahi-browse -d DOMAIN -p` prints.
struct ParsableFormatter: EventFormatter {
    /// Print a known service type as avahi's database describes it ("Web Site"), as
    /// avahi-browse does without `-k`.
    var describingTypes = true

    func lines(for event: OutputEvent, at time: Date) -> [String] {
        switch event {
        case .found(let service, let interface):
            return protocols(interface).map { serviceFields("+", service, interface.name, $0).joined(separator: ";") }
        case .removed(let service, let interface):
            return protocols(interface).map { serviceFields("-", service, interface.name, $0).joined(separator: ";") }
        case .resolved(let resolved, let interface) where interface.isUnicastDNS:
            return [
                (serviceFields("=", resolved.service, interface.name, interface.name) + [
                    Self.escapedHostName(resolved.hostName), resolved.addresses.first ?? "", String(resolved.port),
                    Self.txtField(resolved.txtRecord),
                ]).joined(separator: ";")
            ]
        case .resolved(let resolved, let interface):
            return Self.protocolOrder.filter(interface.families.contains).compactMap { family in
                guard let address = Self.address(of: resolved, over: family) else { return nil }
                return
                    (serviceFields("=", resolved.service, interface.name, Self.protocolName(family)) + [
                        Self.escapedHostName(resolved.hostName), Self.withoutZone(address), String(resolved.port),
                        Self.txtField(resolved.txtRecord),
                    ]).joined(separator: ";")
            }
        case .resolutionFailed:
            return []
        case .type(let type, let domain):
            return ["\(type.rawValue);\(Self.withoutTrailingDot(domain))"]
        case .domainFound(let domain, _):
            return ["+;n/a;n/a;\(Self.withoutTrailingDot(domain))"]
        case .domainRemoved(let domain):
            return ["-;n/a;n/a;\(Self.withoutTrailingDot(domain))"]
        case .published(let published):
            return [
                [
                    "+", Self.escapedName(published.service.name), published.service.type.rawValue,
                    Self.withoutTrailingDot(published.service.domain),
                    Self.escapedHostName(published.hostName), String(published.port),
                ].joined(separator: ";")
            ]
        }
    }

    /// The order of a service's lines: avahi lists IPv6 before IPv4 when both arrive together.
    static let protocolOrder: [NetworkScope.AddressFamily] = [.ipv6, .ipv4]

    /// The protocol fields of a service's lines; `n/a` once for one found by unicast DNS.
    private func protocols(_ interface: InterfaceInfo) -> [String] {
        interface.isUnicastDNS
            ? [interface.name] : Self.protocolOrder.filter(interface.families.contains).map(Self.protocolName)
    }

    private static func protocolName(_ family: NetworkScope.AddressFamily) -> String {
        family == .ipv4 ? "IPv4" : "IPv6"
    }

    /// The address a resolved line over `family` shows: the first that came over it, as
    /// avahi's resolver takes the first address record of its protocol; nil while none has (no
    /// line yet). Without word of families, the first address, or none.
    static func address(of resolved: ResolvedService, over family: NetworkScope.AddressFamily) -> String? {
        resolved.addressesHeardOver.isEmpty
            ? resolved.addresses.first ?? "" : resolved.addressesHeardOver[family]?.first
    }

    private func serviceFields(_ mark: String, _ service: Service, _ interface: String, _ protocolName: String)
        -> [String]
    {
        let type = service.type.rawValue
        let shown = describingTypes ? ServiceTypeDescriptions.description(of: type) ?? type : type
        return [
            mark, interface, protocolName, Self.escapedName(service.name), shown,
            Self.withoutTrailingDot(service.domain),
        ]
    }

    /// avahi's label escaping: letters, digits, `-` and `_` as they are; `.` and `\` after a
    /// backslash; every other byte as `\DDD`.
    static func escapedName(_ name: String) -> String {
        var text = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "."), UInt8(ascii: "\\"):
                text += "\\" + String(Unicode.Scalar(byte))
            default:
                text += DomainName.decimalEscape(byte)
            }
        }
        return text
    }

    /// A host name as avahi prints it: each label escaped as ``escapedName(_:)`` does, no
    /// trailing dot (`Held\032Out\032\195\156.local`).
    static func escapedHostName(_ hostName: String) -> String {
        guard let name = try? DomainName(parsing: hostName) else { return withoutTrailingDot(hostName) }
        return name.labels.map { escapedName(String(decoding: $0, as: UTF8.self)) }.joined(separator: ".")
    }

    /// avahi's TXT field: ``quotedStrings(_:)`` in reverse wire order, as avahi's string list
    /// keeps them.
    static func txtField(_ txt: TXTRecord) -> String {
        quotedStrings(txtStrings(txt).reversed())
    }

    /// The TXT field for people: ``quotedStrings(_:)`` in wire order, as they were published.
    static func txtFieldInWireOrder(_ txt: TXTRecord) -> String {
        quotedStrings(txtStrings(txt))
    }

    /// Each TXT string in double quotes, `"` and `\` after a backslash, bytes outside printable
    /// ASCII as `\DDD`, separated by spaces.
    private static func quotedStrings(_ strings: some Sequence<ArraySlice<UInt8>>) -> String {
        strings.map { string in
            var text = "\""
            for byte in string {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): text += "\\" + String(Unicode.Scalar(byte))
                case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
                default: text += DomainName.decimalEscape(byte)
                }
            }
            return text + "\""
        }.joined(separator: " ")
    }

    /// The non-empty strings of the record's wire form.
    private static func txtStrings(_ txt: TXTRecord) -> [ArraySlice<UInt8>] {
        txt.txtData.strings.filter { !$0.isEmpty }
    }

    static func withoutTrailingDot(_ name: String) -> String {
        name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    /// avahi prints link-local IPv6 addresses without their zone.
    private static func withoutZone(_ address: String) -> String {
        address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
    }
}
