#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a command's events to standard output as they happen, and on a terminal keeps one
/// progress line below them (rewritten in place, cleared before each new event).
final class OutputPrinter {
    private let formatter: any EventFormatter
    private let showsProgress: Bool
    private var progressVisible = false

    init(format: OutputFormat) {
        formatter = format.formatter()
        if case .human(let style) = format { showsProgress = style.isTerminal } else { showsProgress = false }
    }

    func print(_ event: OutputEvent) {
        let lines = formatter.lines(for: event, at: Date())
        guard !lines.isEmpty else { return }
        write(clearedProgress() + lines.map { $0 + "\n" }.joined())
    }

    /// Shows `text` as the progress line on a terminal, or removes it when nil.
    func progress(_ text: String?) {
        guard showsProgress else { return }
        let cleared = clearedProgress()
        guard let text else {
            write(cleared)
            return
        }
        progressVisible = true
        write(cleared + text)
    }

    private func clearedProgress() -> String {
        guard progressVisible else { return "" }
        progressVisible = false
        return "\r\u{1B}[K"
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
