import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads what the terminal sends on a dispatch read source and hands each read's bytes to
/// `deliver`, one read at a time: after a delivery it reads nothing more until
/// ``resumeReading()``, so input that never ends (a paste, or stdin from `/dev/zero`) waits in
/// the kernel instead of in memory. `closed` runs once at end of input or a read error (the
/// terminal went away). Reading goes on until ``cancel()``.
final class KeyboardReader: Sendable {
    private struct State {
        var isWaiting = false
        var isCancelled = false
    }

    // A dispatch source is safe to suspend, resume and cancel from any thread; the overlay does
    // not say so.
    private nonisolated(unsafe) let source: any DispatchSourceRead
    /// Suspending and resuming happen under this lock, so that the two stay balanced.
    private let state = Mutex(State())

    init(descriptor: Int32, deliver: @escaping @Sendable ([UInt8]) -> Void, closed: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        // The handler holds the reader until `cancel()`, which lets the handler go.
        source.setEventHandler { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                state.withLock { state in
                    guard !state.isCancelled else { return }
                    state.isWaiting = true
                    source.suspend()
                }
                deliver(Array(buffer.prefix(count)))
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                closed()
                cancel()
            }
        }
        source.resume()
    }

    /// Reads on, once the last delivery has been dealt with.
    func resumeReading() {
        state.withLock { state in
            guard state.isWaiting, !state.isCancelled else { return }
            state.isWaiting = false
            source.resume()
        }
    }

    func cancel() {
        state.withLock { state in
            guard !state.isCancelled else { return }
            state.isCancelled = true
            source.cancel()
            // A suspended source must not be released; resumed after the cancel, it delivers nothing.
            if state.isWaiting { source.resume() }
        }
    }
}
