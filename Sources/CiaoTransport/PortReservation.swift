#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim
import CiaoNetwork

/// An ephemeral TCP or UDP port held for a published service that has no server of its own
/// (listener mode): the socket is bound, on IPv6 and IPv4 where possible, but never accepts, so
/// the port stays ours and connection attempts are refused. Closed on deinit.
public final class PortReservation: Sendable {
    public enum TransportProtocol: Sendable {
        case tcp, udp
    }

    /// The port the kernel chose.
    public let port: UInt16
    private let fileDescriptor: Int32

    public init(_ transportProtocol: TransportProtocol) throws(TransportError) {
        let type = transportProtocol == .tcp ? SOCK_STREAM : SOCK_DGRAM
        let operation = "reserve an ephemeral \(transportProtocol == .tcp ? "TCP" : "UDP") port"
        // Dual-stack where IPv6 exists; plain IPv4 where it does not.
        var family = AF_INET6
        var fd = socket(family, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 {
            family = AF_INET
            fd = socket(family, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        guard fd >= 0 else { throw .lastError(operation) }
        if family == AF_INET6 { _ = SystemCall.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, Int32(0)) }
        let address = POSIXSocketAddress.wildcard(family == AF_INET6 ? .v6 : .v4, port: 0)
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let error = TransportError.lastError(operation)
            SystemCall.close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, let local = withUnsafePointer(to: &storage, { SocketAddress($0) }) else {
            let error = TransportError.lastError(operation)
            SystemCall.close(fd)
            throw error
        }
        fileDescriptor = fd
        port = local.port
    }

    deinit {
        SystemCall.close(fileDescriptor)
    }
}
