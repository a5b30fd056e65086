import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something a subcommand reports, with what the printers need beyond the API's values.
enum OutputEvent: Equatable {
    case found(Service, InterfaceInfo)
    case removed(Service, InterfaceInfo)
    case resolved(ResolvedService, InterfaceInfo)
    case resolutionFailed(Service, InterfaceInfo, CiaoError)
    /// A service type found in `domain`.
    case type(ServiceType, domain: String = "local.")
    case published(PublishedService)
    /// A domain recommended for browsing or registering (RFC 6763 §11); `isDefault` for the
    /// one the network names its default.
    case domainFound(String, isDefault: Bool)
    case domainRemoved(String)
}

/// A local interface as the printers show it: its name and the families Ciao uses on it.
struct InterfaceInfo: Equatable {
    var name: String
    var families: [NetworkScope.AddressFamily]
    /// Found by unicast DNS (a domain other than `local.`): no interface or protocol of its own.
    var isUnicastDNS = false

    /// What a service found by unicast DNS came over, shown as avahi shows it: `n/a`.
    static let unicastDNS = InterfaceInfo(name: "n/a", families: [], isUnicastDNS: true)
}

/// How a subcommand prints.
enum OutputFormat: Equatable {
    case human(TerminalStyle)
    /// `avahi-browse -p` lines; known service types as avahi describes them unless `-k`.
    case parsable(describingTypes: Bool)
    case json

    func formatter() -> any EventFormatter {
        switch self {
        case .human(let style): HumanFormatter(style: style)
        case .parsable(let describingTypes): ParsableFormatter(describingTypes: describingTypes)
        case .json: JSONEventFormatter()
        }
    }
}

/// Turns events into output lines; `time` is the event's wall-clock time.
protocol EventFormatter {
    func lines(for event: OutputEvent, at time: Date) -> [String]
}
