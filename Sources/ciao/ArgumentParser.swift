/// A subcommand's arguments, declared once: the parser reads them and the help text is made
/// from them, so the two cannot disagree.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// Every spelling, such as `["-r", "--resolve"]`; the last is the canonical key.
        var names: [String]
        /// The value's placeholder, such as `NAME`; nil for a flag.
        var value: String?
        var help: String
        var repeatable = false

        var key: String { names.last! }
    }

    struct Positional: Sendable {
        var name: String
        var help: String
        var isOptional = false
        /// Takes every remaining argument.
        var isVariadic = false
    }

    var name: String
    var summary: String
    var options: [Option]
    var positionals: [Positional]
    /// Extra paragraphs after the options: formats, examples, exit status.
    var details: String

    /// What follows `ciao NAME` in the usage line: `[options]` and the positionals.
    var synopsisWords: [String] {
        let words = positionals.map { positional -> String in
            let word = positional.isVariadic ? "\(positional.name)..." : positional.name
            return positional.isOptional || positional.isVariadic ? "[\(word)]" : word
        }
        return (options.isEmpty ? [] : ["[options]"]) + words
    }

    /// The usage line: `usage: ciao NAME [options] ARGUMENT...`.
    var synopsis: String {
        (["usage: ciao \(name)"] + synopsisWords).joined(separator: " ")
    }

    /// The help text: the usage line, the summary, the arguments and options, the details.
    var usage: String {
        var text = synopsis + "\n\n\(summary)\n"
        if !positionals.isEmpty {
            text += "\nArguments:\n" + Self.table(positionals.map { ($0.name, $0.help) })
        }
        if !options.isEmpty {
            text +=
                "\nOptions:\n"
                + Self.table(
                    options.map { option in
                        (option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? ""), option.help)
                    })
        }
        return text + (details.isEmpty ? "" : "\n" + details + "\n")
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let width = min(rows.map(\.0.count).max() ?? 0, 28)
        return rows.map { left, right in
            let padding = String(repeating: " ", count: max(width - left.count, 0))
            return "  \(left)\(padding)  \(right)\n"
        }.joined()
    }

    /// Reads `arguments`: options anywhere (`--name value`, `--name=value`, `-x value`), short
    /// flags combined as avahi-utils takes them (`-rtp`, the last one may take a value), `--`
    /// ending options, and the positionals in order.
    func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var remaining = arguments[...]
        var words: [String] = []
        while let argument = remaining.popFirst() {
            if argument == "--" {
                words += remaining
                break
            }
            if let flags = combinedShortOptions(argument) {
                remaining = flags[...] + remaining
                continue
            }
            let (spelling, inlineValue) = Self.split(argument)
            // `-4` is an option where one is declared, otherwise a negative number.
            let declared = options.contains { $0.names.contains(spelling) }
            guard argument.hasPrefix("-"), argument != "-", declared || !Self.isNegativeNumber(argument) else {
                words.append(argument)
                continue
            }
            guard let option = options.first(where: { $0.names.contains(spelling) }) else {
                throw ArgumentError("unknown option \(spelling)")
            }
            if let placeholder = option.value {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw ArgumentError("\(spelling) needs a value (\(placeholder))")
                }
                guard option.repeatable || parsed.values[option.key] == nil else {
                    throw ArgumentError("\(spelling) given more than once")
                }
                parsed.values[option.key, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw ArgumentError("\(spelling) takes no value") }
                parsed.flags.insert(option.key)
            }
        }
        for positional in positionals {
            if positional.isVariadic {
                parsed.positionals[positional.name] = words
                words = []
            } else if let word = words.first {
                parsed.positionals[positional.name] = [word]
                words.removeFirst()
            } else if !positional.isOptional {
                throw ArgumentError("missing \(positional.name)")
            }
        }
        guard words.isEmpty else { throw ArgumentError("unexpected argument \"\(words[0])\"") }
        return parsed
    }

    /// `-rtp` as `-r`, `-t`, `-p`, when it is no option of its own and each letter is a declared
    /// short option, only the last taking a value; nil otherwise.
    private func combinedShortOptions(_ argument: String) -> [String]? {
        guard argument.count > 2, argument.hasPrefix("-"), !argument.hasPrefix("--"),
            !options.contains(where: { $0.names.contains(argument) })
        else { return nil }
        let flags = argument.dropFirst().map { "-\($0)" }
        for (index, flag) in flags.enumerated() {
            guard let option = options.first(where: { $0.names.contains(flag) }) else { return nil }
            if option.value != nil && index != flags.count - 1 { return nil }
        }
        return flags
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func isNegativeNumber(_ argument: String) -> Bool {
        argument.count > 1 && argument.dropFirst().allSatisfy(\.isNumber)
    }
}

/// What ``CommandSpec/parse(_:)`` read.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String: [String]] = [:]

    func has(_ key: String) -> Bool { flags.contains(key) }

    func value(_ key: String) -> String? { values[key]?.last }

    func all(_ key: String) -> [String] { values[key] ?? [] }

    func positional(_ name: String) -> String? { positionals[name]?.first }

    func variadic(_ name: String) -> [String] { positionals[name] ?? [] }
}

/// A command line that does not fit its command: printed with the usage line, exit status 2.
struct ArgumentError: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
