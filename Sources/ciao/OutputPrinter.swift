import Foundation

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
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
