#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim

/// An eventfd(2) that another thread signals to wake the thread blocked in `Poller.wait`.
///
/// `Sendable`: the descriptor never changes after init, and eventfd reads and writes are atomic,
/// so any thread may call `signal()`. The descriptor closes when the last reference goes.
public final class Wakeup: Sendable {
    /// The eventfd, for poll(2).
    public let fileDescriptor: Int32

    public init() throws(TransportError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw .lastError("create an eventfd") }
        fileDescriptor = fd
    }

    deinit {
        SystemCall.close(fileDescriptor)
    }

    /// Makes the descriptor readable. Signals coalesce until `drain()`.
    public func signal() {
        var one: UInt64 = 1
        // EAGAIN only when the counter would overflow, which leaves it readable anyway.
        _ = SystemCall.retryingInterrupts { write(fileDescriptor, &one, MemoryLayout<UInt64>.size) }
    }

    /// Resets the counter; returns true when there had been a signal since the last drain.
    @discardableResult
    public func drain() -> Bool {
        var count: UInt64 = 0
        let result = SystemCall.retryingInterrupts { read(fileDescriptor, &count, MemoryLayout<UInt64>.size) }
        return result == MemoryLayout<UInt64>.size && count > 0
    }
}
