#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing the mDNS runtime did or met, for an application's log: an interface joined, a probe,
/// a conflict, a query sent, an answer received and from whom, a packet dropped and why.
/// Delivered to the handler given to ``CiaoDiagnostics/setHandler(level:_:)``.
public struct CiaoDiagnostic: Sendable, CustomStringConvertible {
    /// How much a diagnostic matters, from the per-packet `debug` to `error`.
    public enum Level: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
        /// Every packet sent, received or dropped.
        case debug
        /// Interfaces, probes, announcements, goodbyes, conflicts and renames.
        case info
        /// Something that loses traffic: a failed group join, a failed send, kernel drops.
        case warning
        /// Something that stops the runtime from working: a failed poll or interface scan.
        case error

        /// Orders levels from `debug` to `error`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name, as `CIAO_LOG` takes it: `debug`, `info`, `warning` or `error`.
        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// What part of the runtime a diagnostic is about.
    public enum Category: String, Sendable, CaseIterable {
        /// Interfaces and their mDNS group memberships.
        case interface
        /// Publishing: probes, announcements, goodbyes, conflicts and renames (RFC 6762 §8–§10).
        case publication
        /// Queries sent and received (RFC 6762 §5–§7).
        case query
        /// Responses sent and received (RFC 6762 §6).
        case response
        /// Datagrams dropped, and why.
        case packet
        /// The sockets and the runtime's thread: sends, receives, kernel drops, poll.
        case socket
    }

    /// The wall-clock time it happened.
    public var time: Date
    /// How much it matters.
    public var level: Level
    /// What part of the runtime it is about.
    public var category: Category
    /// The interface's name, such as `eth0`, when it concerns one.
    public var interface: String?
    /// What happened, in one line.
    public var message: String

    /// A diagnostic with these fields; the runtime makes them.
    public init(time: Date, level: Level, category: Category, interface: String?, message: String) {
        self.time = time
        self.level = level
        self.category = category
        self.interface = interface
        self.message = message
    }

    /// `LEVEL CATEGORY [INTERFACE] MESSAGE`, without the time.
    public var description: String {
        "\(level) \(category.rawValue)" + (interface.map { " \($0)" } ?? "") + ": \(message)"
    }
}
