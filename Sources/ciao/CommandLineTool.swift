#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Top-level dispatch of the `ciao` command to its subcommands.
enum CommandLineTool {
    static let usage = """
        usage: ciao <command> [arguments]

        Commands:
          decode [FILE]   print the DNS messages in a capture, hex dump or raw file, like dig

        Run "ciao <command> --help" for a command's options.
        Exit status: 0 success; 1 failure; 2 bad arguments.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else { return usageError("missing command", usage: usage) }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "-h", "--help", "help":
            print(usage)
            return 0
        case "decode":
            if rest.contains("--help") || rest.contains("-h") {
                print(DecodeCommand.usage)
                return 0
            }
            return DecodeCommand.run(rest)
        default:
            return usageError("unknown command \"\(command)\"", usage: usage)
        }
    }

    /// Prints `message` and the usage to standard error; returns exit status 2.
    static func usageError(_ message: String, usage: String) -> Int32 {
        printError(message)
        writeToStandardError(usage + "\n")
        return 2
    }

    static func printError(_ message: String) {
        writeToStandardError("ciao: \(message)\n")
    }

    private static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
