#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Ciao
import CiaoWire

/// Top-level dispatch of the `ciao` command to its subcommands.
enum CommandLineTool {
    static let usage = """
        usage: ciao <command> [arguments]

        Bonjour / Zeroconf service discovery (multicast DNS and DNS-SD) from the shell.

        Commands:
          browse TYPE... | --all         list services as they come and go (-r resolves them)
          publish NAME TYPE PORT [TXT]   publish a service until interrupted
          resolve NAME TYPE              print a service's host, port, addresses and TXT
          types                          list the service types on the network
          domains                        list the domains recommended for browsing (-R: registering)
          resolve-host NAME...           print the addresses of hosts
          resolve-address ADDRESS...     print the host name each address maps back to
          query NAME TYPE                print records of any type, once or as they change (-c)
          decode [FILE]                  print the DNS messages in a capture, hex dump or raw file
          explore                        browse and publish interactively, full screen

        Run "ciao <command> --help" for a command's options, "ciao --version" for the version.
        Exit status: 0 success; 1 failure; 2 bad arguments.
        """

    /// The subcommands, by name: their spec (for --help) and how to run them.
    static let commands: [String: (spec: CommandSpec, run: @Sendable ([String]) async -> Int32)] = [
        "browse": (BrowseCommand.spec, BrowseCommand.run),
        "publish": (PublishCommand.spec, PublishCommand.run),
        "resolve": (ResolveCommand.spec, ResolveCommand.run),
        "types": (TypesCommand.spec, TypesCommand.run),
        "domains": (DomainsCommand.spec, DomainsCommand.run),
        "resolve-host": (ResolveHostCommand.spec, ResolveHostCommand.run),
        "resolve-address": (ResolveAddressCommand.spec, ResolveAddressCommand.run),
        "query": (QueryCommand.spec, QueryCommand.run),
        "decode": (DecodeCommand.spec, { DecodeCommand.run($0) }),
        "explore": (ExploreCommand.spec, ExploreCommand.run),
    ]

    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else {
            printError("missing command")
            writeToStandardError(usage + "\n")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if ["-h", "--help", "help"].contains(name) {
            print(usage)
            return 0
        }
        if ["-V", "--version"].contains(name) {
            print("ciao \(CiaoVersion.current)")
            return 0
        }
        guard let command = commands[name] else {
            printError("unknown command \"\(name)\"; run \"ciao --help\" for the commands")
            return 2
        }
        // After `--` everything is an argument, even `--help`.
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(command.spec.usage)
            return 0
        }
        let status = await command.run(rest)
        await Verbose.printStatistics()
        return status
    }

    /// True for what the library rejects in the arguments themselves (a 64-byte name, a bad
    /// subtype, an empty name): a usage error, exit 2, whichever layer finds it.
    static func isArgumentError(_ error: any Error) -> Bool {
        switch error as? CiaoError {
        case .invalidConfiguration, .invalidServiceType, .invalidTXTRecord: true
        default: false
        }
    }

    /// Prints ``usageErrorText(_:spec:)`` to standard error; returns exit status 2.
    static func usageError(_ message: String, spec: CommandSpec) -> Int32 {
        writeToStandardError(usageErrorText(message, spec: spec))
        return 2
    }

    /// `message`, the command's usage line and where its help is, as `swift` and `git` say it:
    /// the whole help would push the message off the screen.
    static func usageErrorText(_ message: String, spec: CommandSpec) -> String {
        errorLine(message) + "\(spec.synopsis)\nRun \"ciao \(spec.name) --help\" for more.\n"
    }

    static func printError(_ message: String) {
        writeToStandardError(errorLine(message))
    }

    /// `ciao: MESSAGE` and a newline, as every error is said; control characters in the message
    /// (a peer's names may carry them) escaped, so that it stays one line and moves no cursor.
    static func errorLine(_ message: String) -> String {
        "ciao: \(message.escapingControlCharacters)\n"
    }

    private static func writeToStandardError(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes all of `text` to the descriptor with write(2), unbuffered.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
