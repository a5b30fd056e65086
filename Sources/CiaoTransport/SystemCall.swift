#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// Thin helpers over the system calls, in the manner of swift-system: one call, its errno turned
/// into a typed error, EINTR retried where a retry is the right answer.
enum SystemCall {
    /// Runs `body` again while it fails with EINTR; returns its final result.
    static func retryingInterrupts<Result: FixedWidthInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// setsockopt(2) with a value of any trivial type (an int, a struct ip_mreqn, ...).
    /// Returns 0 on success, otherwise the errno.
    static func setOption<Value>(
        _ fileDescriptor: Int32, _ level: Int32, _ name: Int32, _ value: Value
    ) -> Int32 {
        let result = withUnsafeBytes(of: value) {
            setsockopt(fileDescriptor, level, name, $0.baseAddress, socklen_t($0.count))
        }
        return result == 0 ? 0 : errno
    }

    /// setsockopt(2) that throws `TransportError.system(operation:errno:)` on failure.
    static func setOption<Value>(
        _ fileDescriptor: Int32, _ level: Int32, _ name: Int32, _ value: Value, operation: @autoclosure () -> String
    ) throws(TransportError) {
        let error = setOption(fileDescriptor, level, name, value)
        if error != 0 { throw .system(operation: operation(), errno: error) }
    }

    /// close(2), once. EINTR is not retried: on Linux the descriptor is released regardless.
    static func close(_ fileDescriptor: Int32) {
        _ = Glibc.close(fileDescriptor)
    }
}

extension SystemCall {
    /// "eth0 (index 2)", or "interface index 2" when the index no longer names an interface.
    static func interfaceDescription(_ interface: InterfaceID) -> String {
        guard let name = InterfaceScanner.name(ofIndex: interface.index) else {
            return "interface index \(interface.index)"
        }
        return "\(name) (index \(interface.index))"
    }

    /// The UTF-8 text in a C buffer, up to its first NUL.
    static func string(fromNulTerminated buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
