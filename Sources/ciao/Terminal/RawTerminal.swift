#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A terminal taken over for a full-screen program: raw mode (no echo, no line editing, no
/// signals from keys, termios(3)), the alternate screen, a hidden cursor and SGR mouse
/// reporting; ``restore()`` puts back exactly the settings found and the screen underneath.
/// Restoring is idempotent and also runs at `exit(3)`, so no way out leaves the terminal raw.
final class RawTerminal: Sendable {
    /// The descriptor the terminal is read from and drawn on.
    let descriptor: Int32
    private let original: termios
    private let isActive = Mutex(false)

    /// What `enter` writes: alternate screen (xterm 1049), cursor hidden, mouse buttons and
    /// wheel in SGR encoding (1000, 1006).
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1006h"
    /// What `restore` writes: the reverse of ``enterSequence``, with attributes reset.
    static let leaveSequence = "\u{1B}[0m\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"

    /// The terminal restored at exit, if any.
    private static let restoredAtExit = Mutex<RawTerminal?>(nil)

    /// Takes over the terminal on `descriptor`.
    ///
    /// - Throws: ``TerminalError/notATerminal`` when `descriptor` is not a terminal.
    init(descriptor: Int32) throws(TerminalError) {
        var settings = termios()
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &settings) == 0 else { throw .notATerminal }
        self.descriptor = descriptor
        original = settings
    }

    /// Enters raw mode and the alternate screen.
    func enter() {
        let entered = isActive.withLock { active in
            guard !active else { return false }
            var raw = original
            raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            raw.c_oflag &= ~tcflag_t(OPOST)
            raw.c_cflag |= tcflag_t(CS8)
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(descriptor, TCSAFLUSH, &raw)
            active = true
            return true
        }
        guard entered else { return }
        write(Self.enterSequence)
        let isFirst = Self.restoredAtExit.withLock { terminal in
            defer { terminal = self }
            return terminal == nil
        }
        if isFirst { atexit { RawTerminal.restoredAtExit.withLock { $0 }?.restore() } }
    }

    /// Leaves the alternate screen and puts back the settings found; does nothing when not entered.
    func restore() {
        let wasActive = isActive.withLock { active in
            defer { active = false }
            return active
        }
        guard wasActive else { return }
        write(Self.leaveSequence)
        var settings = original
        tcsetattr(descriptor, TCSAFLUSH, &settings)
    }

    /// The size in columns and rows (TIOCGWINSZ); 80×24 when the terminal does not say.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Writes all of `text`.
    func write(_ text: String) {
        CommandLineTool.write(text, to: descriptor)
    }
}
