#if canImport(Glibc)
import Glibc
#endif

/// poll(2) over a few descriptors: the runtime's one blocking point.
public struct Poller {
    private var descriptors: [pollfd] = []

    public init() {}

    /// Waits until any of `fileDescriptors` is readable, any of `writable` is writable, or
    /// `timeout` passes (nil waits without limit), and returns the ready ones in the order given
    /// (`fileDescriptors` first); empty on timeout.
    ///
    /// Errors and hang-ups (POLLERR, POLLHUP) count as readable, so the owner reads and finds out.
    /// EINTR is retried with the time that is left. The timeout is rounded up to whole
    /// milliseconds, so the wait never ends before it. Negative descriptors are ignored, as poll(2)
    /// does; a descriptor that is not open throws EBADF.
    public mutating func wait(
        fileDescriptors: [Int32], writable: [Int32] = [], timeout: Duration?
    ) throws(TransportError) -> [Int32] {
        descriptors.removeAll(keepingCapacity: true)
        for fd in fileDescriptors {
            descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        }
        for fd in writable {
            descriptors.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
        }
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: max($0, .zero)) }
        while true {
            let milliseconds = deadline.map { Self.milliseconds(rounding: clock.now.duration(to: $0)) } ?? -1
            let count = descriptors.withUnsafeMutableBufferPointer {
                poll($0.baseAddress, nfds_t($0.count), milliseconds)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .lastError("wait for network events (poll)")
            }
            var readable: [Int32] = []
            for descriptor in descriptors where descriptor.revents != 0 {
                if descriptor.revents & Int16(POLLNVAL) != 0 {
                    throw .system(operation: "wait for descriptor \(descriptor.fd) (poll)", errno: EBADF)
                }
                readable.append(descriptor.fd)
            }
            return readable
        }
    }

    /// A poll(2) timeout: `duration` in milliseconds rounded up, between 0 and Int32.max.
    static func milliseconds(rounding duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue + (attoseconds + perMillisecond - 1) / perMillisecond
        return Int32(clamping: total)
    }
}
