#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line: `[SECONDS-PER-CASE] [CASE-NAME-FILTER] [--dump DIR]`, in any order.
struct Options {
    var secondsPerCase = 1.0
    var filter: String?
    /// Where `--dump` writes the packets; `nil` to run the benchmark.
    var dumpDirectory: String?

    static let usage = "usage: CiaoCodecBenchmark [SECONDS-PER-CASE] [CASE-NAME-FILTER] [--dump DIR]\n"

    /// Parses `arguments` (without the program name), or prints the usage and exits with status 2.
    init(_ arguments: [String]) {
        var positional: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--dump":
                guard let directory = remaining.popFirst() else { Options.fail() }
                dumpDirectory = directory
            case "-h", "--help":
                print(Options.usage, terminator: "")
                exit(0)
            default:
                positional.append(argument)
            }
        }
        guard positional.count <= 2 else { Options.fail() }
        if let seconds = positional.first {
            guard let value = Double(seconds), value > 0 else { Options.fail() }
            secondsPerCase = value
        }
        filter = positional.dropFirst().first
    }

    private static func fail() -> Never {
        printError(usage)
        exit(2)
    }
}

/// Writes `text` to standard error.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
