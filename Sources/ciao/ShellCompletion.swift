/// Completion scripts for bash and zsh, made from the same ``CommandSpec`` values as `--help`:
/// the subcommands first, then each one's options; `--interface` / `-i` complete the names in
/// /sys/class/net, a `FILE` argument completes file names, other values nothing. Nothing comes from
/// the clock or the host, so the scripts are the same bytes on every run.
///
/// The scripts are kept in `completions/` and checked to be current by `GeneratedFilesTests`;
/// `Scripts/generate-cli-docs.sh` writes them anew.
enum ShellCompletion {
    /// What a word after an option or in an argument's place completes to.
    enum Completion {
        case nothing, interfaces, files
    }

    static func completion(for option: CommandSpec.Option) -> Completion {
        option.key == "--interface" ? .interfaces : .nothing
    }

    static func completion(for positional: CommandSpec.Positional) -> Completion {
        positional.name == "FILE" ? .files : .nothing
    }

    /// The subcommands in the order `ciao --help` lists them, with its summaries.
    private static var commands: [(name: String, spec: CommandSpec, summary: String)] {
        ManPage.commandNames.map { name in
            let spec = CommandLineTool.commands[name]!.spec
            let summary = TopLevelUsage.commandLines.first { $0.name == name }?.summary ?? spec.summary
            return (name, spec, summary)
        }
    }

    private static let header = """
        Generated from the ciao command's own --help specification; do not edit.
        Regenerate with Scripts/generate-cli-docs.sh.
        """

    // MARK: bash

    /// `completions/ciao.bash`: `complete -F _ciao ciao`.
    static func bash() -> String {
        var lines = ["# bash completion for ciao(1)."]
        lines += header.split(separator: "\n").map { "# \($0)" }
        lines += [
            "# Use: source this file (from ~/.bashrc), or copy it to ~/.local/share/bash-completion/completions/ciao.",
            "",
            "_ciao_interfaces() {",
            "    local names=(/sys/class/net/*)",
            "    [[ -e ${names[0]} ]] || return 0",
            "    printf '%s\\n' \"${names[@]##*/}\"",
            "}",
            "",
            "_ciao() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev= i",
            "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    # bash splits --name=VALUE at the \"=\" (COMP_WORDBREAKS).",
            "    if [[ $cur == = ]]; then",
            "        cur=",
            "    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )); then",
            "        prev=${COMP_WORDS[COMP_CWORD-2]}",
            "    fi",
            "    if (( COMP_CWORD == 1 )); then",
            "        if [[ $cur == -* ]]; then",
            "            mapfile -t COMPREPLY < <(compgen -W '-h --help -V --version' -- \"$cur\")",
            "        else",
            "            mapfile -t COMPREPLY < <(compgen -W \(quoted((commands.map(\.name) + ["help"]).joined(separator: " "))) -- \"$cur\")",
            "        fi",
            "        return 0",
            "    fi",
            "    # The options; those taking a value; those taking an interface name; whether arguments are files.",
            "    local options= values= interfaces= files=",
            "    case ${COMP_WORDS[1]} in",
        ]
        for (name, spec, _) in commands {
            let options = spec.options.flatMap(\.names) + ["-h", "--help"]
            let values = spec.options.filter { $0.value != nil }.flatMap(\.names)
            let interfaces = spec.options.filter { completion(for: $0) == .interfaces }.flatMap(\.names)
            let files = spec.positionals.contains { completion(for: $0) == .files }
            lines.append("        \(name))")
            lines.append("            options=\(quoted(options.joined(separator: " ")))")
            if !values.isEmpty { lines.append("            values=\(quoted(values.joined(separator: " ")))") }
            if !interfaces.isEmpty {
                lines.append("            interfaces=\(quoted(interfaces.joined(separator: " ")))")
            }
            if files { lines.append("            files=1") }
            lines.append("            ;;")
        }
        lines += [
            "        *) return 0 ;;",
            "    esac",
            "    if [[ -n $prev && \" $interfaces \" == *\" $prev \"* ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \"$(_ciao_interfaces)\" -- \"$cur\")",
            "        return 0",
            "    elif [[ -n $prev && \" $values \" == *\" $prev \"* ]]; then",
            "        COMPREPLY=()",
            "        return 0",
            "    fi",
            "    local ended=",
            "    for (( i = 2; i < COMP_CWORD; i++ )); do [[ ${COMP_WORDS[i]} == -- ]] && ended=1; done",
            "    if [[ -z $ended && $cur == -* ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")",
            "    elif [[ -n $files ]]; then",
            "        compopt -o filenames 2>/dev/null",
            "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")",
            "    else",
            "        COMPREPLY=()",
            "    fi",
            "    return 0",
            "}",
            "",
            "complete -F _ciao ciao",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in single quotes for a shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    // MARK: zsh

    /// `completions/_ciao`: `#compdef ciao`, `_arguments` per subcommand.
    static func zsh() -> String {
        var lines = ["#compdef ciao", "# zsh completion for ciao(1)."]
        lines += header.split(separator: "\n").map { "# \($0)" }
        lines += [
            "# Use: put this file, named _ciao, in a directory on $fpath before compinit runs.",
            "",
            "_ciao_interfaces() {",
            "    local -a expl names",
            "    names=(/sys/class/net/*(N:t))",
            "    _wanted interfaces expl 'network interface' compadd -a names",
            "}",
        ]
        for (name, spec, _) in commands {
            lines += ["", "_ciao_\(functionName(name))() {", "    _arguments -s -S \\"]
            var specs = spec.options.map(optionSpec)
            specs.append("'(- *)'{-h,--help}'[print the arguments and options]'")
            specs += spec.positionals.map(positionalSpec)
            lines += specs.enumerated().map { index, text in
                "        " + text + (index == specs.count - 1 ? "" : " \\")
            }
            lines.append("}")
        }
        lines += [
            "",
            "_ciao() {",
            "    local curcontext=$curcontext state state_descr line ret=1",
            "    typeset -A opt_args",
            "    _arguments -C \\",
            "        '(- *)'{-h,--help}'[print the list of commands]' \\",
            "        '(- *)'{-V,--version}'[print the version]' \\",
            "        '1: :->command' \\",
            "        '*:: :->argument' && ret=0",
            "    case $state in",
            "        command)",
            "            local -a commands",
            "            commands=(",
        ]
        for (name, summary) in commands.map({ ($0.name, $0.summary) }) + [("help", "print the list of commands")] {
            lines.append("                " + quoted(describeEscape(name) + ":" + summary))
        }
        lines += [
            "            )",
            "            _describe -t commands 'ciao command' commands && ret=0",
            "            ;;",
            "        argument)",
            "            curcontext=${curcontext%:*:*}:ciao-$words[1]:",
            "            case $words[1] in",
        ]
        for (name, _, _) in commands {
            lines.append("                \(name)) _ciao_\(functionName(name)) && ret=0 ;;")
        }
        lines += [
            "            esac",
            "            ;;",
            "    esac",
            "    return ret",
            "}",
            "",
            "_ciao \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `resolve-host` as `resolve_host`.
    private static func functionName(_ command: String) -> String {
        command.replacing("-", with: "_")
    }

    /// One option's `_arguments` specification(s): `'(-a --all)'{-a,--all}'[help]'`, with
    /// `*` for a repeatable option and `=[help]:VALUE:action` for one taking a value.
    private static func optionSpec(_ option: CommandSpec.Option) -> String {
        let names = option.names.map { name in
            option.value != nil && name.hasPrefix("--") ? name + "=" : name
        }
        let exclusion =
            option.repeatable || option.names.count == 1 ? "" : "(" + option.names.joined(separator: " ") + ")"
        let star = option.repeatable ? "*" : ""
        var rest = "[" + descriptionEscape(option.help) + "]"
        if let value = option.value {
            rest += ":" + messageEscape(value) + ":" + action(completion(for: option))
        }
        guard names.count > 1 else { return quoted(exclusion + star + names[0] + rest) }
        return (exclusion.isEmpty && star.isEmpty ? "" : quoted(exclusion + star)) + "{" + names.joined(separator: ",")
            + "}"
            + quoted(rest)
    }

    /// `':TYPE - help: '`, `'::…'` when optional, `'*:…'` when it takes the rest.
    private static func positionalSpec(_ positional: CommandSpec.Positional) -> String {
        let lead = positional.isVariadic ? "*:" : positional.isOptional ? "::" : ":"
        return quoted(
            lead + messageEscape("\(positional.name) - \(positional.help)") + ":" + action(completion(for: positional)))
    }

    private static func action(_ completion: Completion) -> String {
        switch completion {
        case .nothing: " "
        case .interfaces: "_ciao_interfaces"
        case .files: "_files"
        }
    }

    /// Text for inside `[...]` of an `_arguments` specification.
    static func descriptionEscape(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("[", with: "\\[").replacing("]", with: "\\]")
    }

    /// Text for the message between colons of an `_arguments` specification: zsh unquotes `\:`
    /// there, shows any other backslash as it is, and expands `%` as in a prompt.
    static func messageEscape(_ text: String) -> String {
        text.replacing(":", with: "\\:").replacing("%", with: "%%")
    }

    /// A `_describe` name, before its colon.
    private static func describeEscape(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing(":", with: "\\:")
    }
}
