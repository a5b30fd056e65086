#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether output goes to a terminal, and whether it may be coloured (https://no-color.org).
struct TerminalStyle: Equatable {
    var isTerminal: Bool
    var usesColor: Bool

    static let plain = TerminalStyle(isTerminal: false, usesColor: false)

    static func current() -> TerminalStyle {
        let terminal = isatty(STDOUT_FILENO) == 1
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return TerminalStyle(isTerminal: terminal, usesColor: terminal && !noColor)
    }

    enum Color: String {
        case green = "32"
        case red = "31"
        case blue = "34"
        case dim = "2"
        case bold = "1"
    }

    func paint(_ text: String, _ color: Color) -> String {
        usesColor ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}
