#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CiaoWire
import Synchronization

/// Where the runtime's diagnostics go: the application's handler, the standard-error writer that
/// `CIAO_LOG` asks for, or nowhere. Asking whether a level is wanted is one atomic load, so that
/// with diagnostics off the runtime builds none.
final class DiagnosticHub: Sendable {
    static let shared = DiagnosticHub(environmentLevel: getenv("CIAO_LOG").map { String(cString: $0) })

    private struct Sink {
        var level: CiaoDiagnostic.Level
        var handler: @Sendable (CiaoDiagnostic) -> Void
    }

    private let sink = Mutex<Sink?>(nil)
    /// The raw value of the sink's level, or `Int.max` when there is no sink.
    private let lowestWanted = Atomic<Int>(.max)

    /// With `environmentLevel` (`CIAO_LOG`'s value) naming a level, diagnostics of that level and
    /// above go to standard error; any other value is said there once and otherwise ignored.
    init(environmentLevel: String?) {
        guard let text = environmentLevel, !text.isEmpty else { return }
        guard let level = CiaoDiagnostic.Level.allCases.first(where: { $0.description == text.lowercased() }) else {
            Self.writeToStandardError("ciao: CIAO_LOG=\(text) is not a level: use debug, info, warning or error\n")
            return
        }
        setHandler(level: level) { Self.writeToStandardError(Self.line(for: $0)) }
    }

    func setHandler(level: CiaoDiagnostic.Level, _ handler: (@Sendable (CiaoDiagnostic) -> Void)?) {
        sink.withLock { sink in
            sink = handler.map { Sink(level: level, handler: $0) }
            lowestWanted.store(handler == nil ? .max : level.rawValue, ordering: .relaxed)
        }
    }

    /// True when some diagnostics are wanted.
    var isOn: Bool { lowestWanted.load(ordering: .relaxed) != .max }

    func wants(_ level: CiaoDiagnostic.Level) -> Bool {
        lowestWanted.load(ordering: .relaxed) <= level.rawValue
    }

    /// Hands a diagnostic to the handler if its level is wanted; `message` is built only then.
    func emit(
        _ level: CiaoDiagnostic.Level, _ category: CiaoDiagnostic.Category, interface: String? = nil,
        _ message: @autoclosure () -> String
    ) {
        guard wants(level), let sink = sink.withLock({ $0 }), level >= sink.level else { return }
        sink.handler(
            CiaoDiagnostic(time: Date(), level: level, category: category, interface: interface, message: message()))
    }

    /// `ciao[PID] HH:MM:SS.mmm LEVEL CATEGORY [INTERFACE]: MESSAGE`, the time in UTC, control
    /// characters a peer's names may carry escaped.
    static func line(for diagnostic: CiaoDiagnostic) -> String {
        let milliseconds = Int((diagnostic.time.timeIntervalSince1970 * 1000).rounded(.down))
        let day = milliseconds % 86_400_000
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let clock =
            "\(padded(day / 3_600_000, 2)):\(padded(day / 60_000 % 60, 2)):\(padded(day / 1000 % 60, 2))"
            + ".\(padded(day % 1000, 3))"
        return "ciao[\(getpid())] \(clock) \(String(describing: diagnostic).escapingControlCharacters)\n"
    }

    private static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
