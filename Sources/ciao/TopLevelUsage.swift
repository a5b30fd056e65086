/// What ``CommandLineTool/usage`` says, read back: its description line, its command list and
/// its exit status line.
enum TopLevelUsage {
    struct CommandLine {
        var name: String
        var synopsis: String
        var summary: String
    }

    private static var lines: [String] {
        CommandLineTool.usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first paragraph after the `usage:` line.
    static var description: String {
        let body = lines.drop { !$0.hasPrefix("usage:") }.dropFirst().drop { $0.trimmed.isEmpty }
        return body.prefix { !$0.trimmed.isEmpty }.map(\.trimmed).joined(separator: " ")
    }

    /// The lines under `Commands:`, each `NAME SYNOPSIS  SUMMARY`.
    static var commandLines: [CommandLine] {
        lines.drop { $0.trimmed != "Commands:" }.dropFirst().prefix { !$0.trimmed.isEmpty }.compactMap { line in
            let text = line.trimmed
            guard let gap = text.firstRange(of: "  ") else { return nil }
            let left = text[..<gap.lowerBound]
            let words = left.split(separator: " ", maxSplits: 1).map(String.init)
            return CommandLine(
                name: words[0], synopsis: words.count > 1 ? words[1] : "", summary: text[gap.upperBound...].trimmed)
        }
    }

    /// What follows `Exit status:`.
    static var exitStatus: String {
        let line =
            lines.first { $0.trimmed.hasPrefix("Exit status:") }
            ?? "Exit status: 0 success; 1 failure; 2 bad arguments."
        return line.trimmed.dropFirst("Exit status:".count).trimmed
    }
}
