#if canImport(Glibc)
import Glibc
#endif

/// Standard output or standard error, written with write(2) and no buffering, so each event line
/// reaches the suite as soon as it happens.
struct StandardStream: Sendable {
    static let output = StandardStream(descriptor: STDOUT_FILENO)
    static let error = StandardStream(descriptor: STDERR_FILENO)

    let descriptor: Int32

    /// Writes all of `bytes`, retrying after interruptions and partial writes; gives up on other errors.
    func write(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return }
            written += result
        }
    }

    func write(_ text: String) {
        write(Array(text.utf8))
    }
}
