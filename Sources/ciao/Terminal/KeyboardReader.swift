import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads what the terminal sends, as it comes, on a dispatch read source and hands each read's
/// bytes to `deliver`; `closed` runs once at end of input or a read error (the terminal went away).
final class KeyboardReader: @unchecked Sendable {
    // A dispatch source is safe to cancel from any thread; the overlay does not say so.
    private let source: any DispatchSourceRead

    init(descriptor: Int32, deliver: @escaping @Sendable ([UInt8]) -> Void, closed: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        let source = self.source
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                deliver(Array(buffer.prefix(count)))
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                closed()
                source.cancel()
            }
        }
        source.resume()
    }

    func cancel() {
        source.cancel()
    }
}
