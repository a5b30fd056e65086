import Ciao

/// Manual pages in roff (man(7) macros) for `ciao` and each subcommand, made from what `--help`
/// prints: ``CommandLineTool/usage`` and each ``CommandSpec``. Nothing comes from the clock or the
/// host, so the pages are the same bytes on every run; the `.TH` line carries the version, no date.
///
/// The pages are kept in `docs/man` and checked to be current by `GeneratedFilesTests`;
/// `Scripts/generate-cli-docs.sh` writes them anew.
enum ManPage {
    /// The manual named in the centre of each page's header.
    static let manual = "Ciao Manual"

    /// The subcommands in the order `ciao --help` lists them, then any it does not list, by name.
    static var commandNames: [String] {
        let listed = TopLevelUsage.commandLines.map(\.name).filter { CommandLineTool.commands[$0] != nil }
        return listed + CommandLineTool.commands.keys.filter { !listed.contains($0) }.sorted()
    }

    /// The page's file name: `ciao.1`, or `ciao-NAME.1` for a subcommand.
    static func fileName(for command: String?) -> String {
        command.map { "ciao-\($0).1" } ?? "ciao.1"
    }

    /// `ciao(1)`: the commands, the version, exit status and environment.
    static func topLevel() -> String {
        var page = Roff()
        page.header(title: "ciao")
        page.section("NAME")
        page.line("ciao \\- " + Roff.escape(withoutFinalPeriod(TopLevelUsage.description)))
        page.section("SYNOPSIS")
        page.line("\(Roff.bold("ciao")) \(Roff.italic("command")) [\(Roff.italic("arguments"))]")
        page.macro("br")
        page.line("\(Roff.bold("ciao")) \(Roff.italic("command")) \(Roff.bold("--help"))")
        page.macro("br")
        page.line("\(Roff.bold("ciao")) \(Roff.bold("--help")) | \(Roff.bold("--version"))")

        page.section("DESCRIPTION")
        page.paragraph(TopLevelUsage.description)
        page.paragraph(
            "Each command has its own page, ciao-COMMAND(1), and prints its arguments and options with --help "
                + "(or -h). Options may come before, between or after the arguments; short flags combine (-rtp); "
                + "-- ends the options.")

        page.section("COMMANDS")
        for name in commandNames {
            let listed = TopLevelUsage.commandLines.first { $0.name == name }
            let spec = CommandLineTool.commands[name]!.spec
            let synopsis = listed?.synopsis ?? spec.synopsisWords.joined(separator: " ")
            page.macro("TP")
            page.line(
                ([Roff.bold(name)] + synopsis.split(separator: " ").map { Roff.placeholderWord(String($0)) })
                    .joined(separator: " "))
            page.line(
                Roff.escape(sentence(listed?.summary ?? spec.summary)) + " See \(Roff.reference("ciao-\(name)")).")
        }

        page.section("OPTIONS")
        page.macro("TP")
        page.line("\(Roff.bold("-h")), \(Roff.bold("--help")), \(Roff.bold("help"))")
        page.text("Print the list of commands.")
        page.macro("TP")
        page.line("\(Roff.bold("-V")), \(Roff.bold("--version"))")
        page.text("Print the version, as \"ciao \(CiaoVersion.current)\".")

        page.section("VERSION")
        page.paragraph(
            "This page describes ciao \(CiaoVersion.current). Versions follow semantic versioning "
                + "(https://semver.org); \"-dev\" marks what has come since the last release.")

        page.section("EXIT STATUS")
        page.exitStatus(TopLevelUsage.exitStatus)

        page.section("ENVIRONMENT")
        page.macro("TP")
        page.line(Roff.bold("NO_COLOR"))
        page.text(
            "When set and not empty, output for people is not coloured. "
                + "Without it, colour is used only when standard output is a terminal.")
        page.macro("TP")
        page.line(Roff.bold("CIAO_LOG"))
        page.text(
            "debug, info, warning or error: logs the multicast DNS diagnostics of that level and above on "
                + "standard error, one line each, as -v does at the debug level (without the counters at the end). "
                + "Another value is reported on standard error and otherwise ignored.")

        page.section("SEE ALSO")
        page.references(commandNames.map { "ciao-\($0)" })
        return page.output
    }

    /// `ciao-NAME(1)`: synopsis, description, arguments, options and the `details` paragraphs,
    /// a paragraph led by a label such as "Output:" or "Exit status:" as a section of its own.
    static func page(for spec: CommandSpec) -> String {
        var page = Roff()
        page.header(title: "ciao-\(spec.name)")
        page.section("NAME")
        page.line(Roff.escape("ciao-\(spec.name)") + " \\- " + Roff.escape(nameLine(spec.summary)))
        page.section("SYNOPSIS")
        page.line(
            ([Roff.bold("ciao \(spec.name)")] + spec.synopsisWords.map(Roff.placeholderWord)).joined(separator: " "))

        let paragraphs = Details.paragraphs(spec.details)
        page.section("DESCRIPTION")
        page.paragraph(spec.summary)
        for paragraph in paragraphs where paragraph.label == nil { page.emit(paragraph) }

        if !spec.positionals.isEmpty {
            page.section("ARGUMENTS")
            for positional in spec.positionals {
                page.macro("TP")
                page.line(Roff.italic(positional.name) + (positional.isVariadic ? "..." : ""))
                page.text(ManPage.sentence(positional.help))
            }
        }
        page.section("OPTIONS")
        for option in spec.options {
            page.macro("TP")
            page.line(
                option.names.map(Roff.bold).joined(separator: ", ") + (option.value.map { " " + Roff.italic($0) } ?? "")
            )
            page.text(ManPage.sentence(option.help))
        }
        page.macro("TP")
        page.line("\(Roff.bold("-h")), \(Roff.bold("--help"))")
        page.text("Print these arguments and options, and exit.")

        var labels: [String] = []
        for paragraph in paragraphs {
            if let label = paragraph.label, !labels.contains(label), label.lowercased() != "exit status" {
                labels.append(label)
            }
        }
        for label in labels {
            page.section(label.uppercased())
            for paragraph in paragraphs where paragraph.label == label { page.emit(paragraph) }
        }
        let exitStatus = paragraphs.filter { $0.label?.lowercased() == "exit status" }
        if !exitStatus.isEmpty {
            page.section("EXIT STATUS")
            for paragraph in exitStatus { page.exitStatus(paragraph.text) }
        }

        page.section("SEE ALSO")
        page.references(["ciao"])
        return page.output
    }

    /// The summary as a NAME line: lower case first (unless an acronym leads), no final period.
    private static func nameLine(_ summary: String) -> String {
        let text = withoutFinalPeriod(summary)
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true else {
            return text
        }
        return first.lowercased() + text.dropFirst()
    }

    private static func withoutFinalPeriod(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// `text` with a capital first letter and a final period.
    static func sentence(_ text: String) -> String {
        let capital = text.prefix(1).uppercased() + text.dropFirst()
        return capital.hasSuffix(".") || capital.hasSuffix(".)") ? capital : capital + "."
    }
}

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

/// The `details` text of a ``CommandSpec`` in paragraphs.
enum Details {
    struct Paragraph {
        /// "Output" for a paragraph that starts "Output: ...".
        var label: String?
        /// The text after the label, lines joined; or, when `isPreformatted`, the lines as they are.
        var text: String
        /// A paragraph with indented lines (an example) is kept line for line.
        var isPreformatted = false
    }

    static func paragraphs(_ details: String) -> [Paragraph] {
        var blocks: [[String]] = [[]]
        for line in details.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmed.isEmpty {
                if !blocks[blocks.count - 1].isEmpty { blocks.append([]) }
            } else {
                blocks[blocks.count - 1].append(String(line))
            }
        }
        return blocks.filter { !$0.isEmpty }.map { lines in
            if lines.contains(where: { $0.first?.isWhitespace == true }) {
                return Paragraph(label: nil, text: lines.joined(separator: "\n"), isPreformatted: true)
            }
            let text = lines.map(\.trimmed).joined(separator: " ")
            if let colon = text.firstRange(of: ": "), isLabel(text[..<colon.lowerBound]) {
                return Paragraph(
                    label: String(text[..<colon.lowerBound]), text: ManPage.sentence(text[colon.upperBound...].trimmed))
            }
            return Paragraph(label: nil, text: text)
        }
    }

    /// One to three words of letters, the first capitalised: "Output", "Exit status".
    private static func isLabel(_ text: Substring) -> Bool {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        return (1...3).contains(words.count) && text.first?.isUppercase == true
            && words.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isLetter) }
    }
}

/// A man(7) page being written, line by line, with the text escaped for roff.
struct Roff {
    private var lines: [String] = [
        ".\\\" Generated from the ciao command's own --help specification; do not edit.",
        ".\\\" Regenerate with Scripts/generate-cli-docs.sh.",
    ]

    var output: String { lines.joined(separator: "\n") + "\n" }

    /// `.TH CIAO-BROWSE 1 "" "ciao VERSION" "Ciao Manual"`: no date, so that the page is the
    /// same on every run.
    mutating func header(title: String) {
        macro(
            "TH",
            [
                Self.escape(title.uppercased()), "1", "\"\"", "\"\(Self.escape("ciao \(CiaoVersion.current)"))\"",
                "\"\(Self.escape(ManPage.manual))\"",
            ].joined(separator: " "))
        // No hyphenation, ragged right: option names and page references stay whole.
        macro("nh")
        macro("ad", "l")
    }

    mutating func section(_ name: String) { macro("SH", name.contains(" ") ? "\"\(name)\"" : name) }

    mutating func macro(_ name: String, _ arguments: String = "") {
        lines.append(arguments.isEmpty ? ".\(name)" : ".\(name) \(arguments)")
    }

    /// A line already in roff (escaped, with font changes), protected from reading as a request.
    mutating func line(_ roff: String) {
        lines.append(roff.hasPrefix(".") || roff.hasPrefix("'") ? "\\&" + roff : roff)
    }

    /// Plain text, escaped, one output line per line of `text`.
    mutating func text(_ text: String) {
        for part in text.split(separator: "\n", omittingEmptySubsequences: false) { line(Self.escape(String(part))) }
    }

    mutating func paragraph(_ text: String) {
        macro("PP")
        self.text(text)
    }

    mutating func emit(_ paragraph: Details.Paragraph) {
        if paragraph.isPreformatted {
            macro("PP")
            macro("nf")
            text(paragraph.text)
            macro("fi")
        } else {
            self.paragraph(paragraph.text)
        }
    }

    /// "0 success; 1 failure; 2 bad arguments." as a list of statuses, when it reads so.
    mutating func exitStatus(_ text: String) {
        let body = text.hasSuffix(".") ? String(text.dropLast()) : text
        let items = body.split(separator: "; ").map { item -> (String, String)? in
            let parts = item.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].allSatisfy(\.isNumber) else { return nil }
            return (String(parts[0]), String(parts[1]))
        }
        guard items.allSatisfy({ $0 != nil }) else {
            paragraph(text)
            return
        }
        for case (let status, let meaning)? in items {
            macro("TP")
            line(Self.bold(status))
            self.text(ManPage.sentence(meaning))
        }
    }

    /// `ciao-browse(1), ciao-publish(1)`.
    mutating func references(_ pages: [String]) {
        for (index, page) in pages.enumerated() {
            line(Self.reference(page) + (index == pages.count - 1 ? "" : ","))
        }
    }

    /// Backslashes as `\e`, hyphens as `\-` (a hyphen-minus, as options and names need).
    static func escape(_ text: String) -> String {
        text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    }

    static func bold(_ text: String) -> String { "\\fB\(escape(text))\\fR" }

    static func italic(_ text: String) -> String { "\\fI\(escape(text))\\fR" }

    static func reference(_ page: String) -> String { "\(bold(page))(1)" }

    /// A synopsis word: a placeholder such as `TYPE...` or `[TXT]` in italics around its
    /// brackets and dots, `[options]` in italics, anything else (`--all`, `|`) bold.
    static func placeholderWord(_ word: String) -> String {
        var core = Substring(word)
        var prefix = "", suffix = ""
        if core.hasPrefix("[") {
            prefix = "["
            core = core.dropFirst()
        }
        if core.hasSuffix("]") {
            suffix = "]"
            core = core.dropLast()
        }
        if core.hasSuffix("...") {
            suffix = "..." + suffix
            core = core.dropLast(3)
        }
        let isPlaceholder =
            core == "options"
            || (!core.isEmpty && core.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "-" || $0 == "_" })
        if core == "|" { return "|" }
        return prefix + (isPlaceholder ? italic(String(core)) : bold(String(core))) + suffix
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
