import Ciao

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
