/// Why a full-screen command cannot run.
enum TerminalError: Error, Equatable, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe, a file, no tty under ssh without -t).
    case notATerminal

    var description: String {
        switch self {
        case .notATerminal:
            "explore needs a terminal on standard input and output (use ssh -t, or run it in tmux)"
        }
    }
}
