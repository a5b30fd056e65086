import Glibc
import Synchronization

/// The chat's output. Standard output carries the machine-friendly protocol a test reads
/// (`ready NAME PORT`, `joined NICK`, `left NICK`, `NICK: TEXT`); standard error carries diagnostics.
///
/// Each line goes out in one locked `write(2)` straight to the descriptor, so lines printed by
/// different threads never interleave and nothing waits in a stdio buffer when stdout is a pipe.
enum Console {
    private static let lock = Mutex(())

    /// Prints one protocol line on standard output.
    static func print(_ line: String) {
        write(line, to: STDOUT_FILENO)
    }

    /// Prints one diagnostic line, prefixed with `chat:`, on standard error.
    static func diagnose(_ line: String) {
        write("chat: " + line, to: STDERR_FILENO)
    }

    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return  // nowhere left to report it
                    }
                    offset += written
                }
            }
        }
    }
}
