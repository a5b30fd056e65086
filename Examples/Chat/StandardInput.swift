import Foundation

/// The lines typed on standard input, read by a dedicated thread (reading blocks).
enum StandardInput {
    /// Each line without its line end; the stream finishes at end-of-file.
    static func lines() -> AsyncStream<String> {
        let (lines, sink) = AsyncStream<String>.makeStream()
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) {
                sink.yield(line)
            }
            sink.finish()
        }
        return lines
    }
}
