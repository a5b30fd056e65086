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
            "debug, info, warning or error: logs Ciao's diagnostics (multicast and unicast DNS) of that level and above on "
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

extension StringProtocol {
    /// The text without leading and trailing whitespace.
    var trimmed: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
