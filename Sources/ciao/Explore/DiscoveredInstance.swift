import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A service instance as the browse view shows it: found on one interface, resolved or not, and
/// marked gone rather than dropped when it leaves (RFC 6762 §10.1).
struct DiscoveredInstance: Equatable {
    var service: Service
    var interfaceName: String
    var resolved: ResolvedService?
    /// Why resolving failed, if it did.
    var failure: String?
    /// When an event last came for it.
    var lastSeen: Date
    /// When it went away; nil while it is on the network.
    var removedAt: Date?

    var isGone: Bool { removedAt != nil }
}
