#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// A UDP socket for one unicast DNS query attempt (RFC 1035 §4.2.1): bound by the kernel to a fresh
/// random ephemeral port and connected to the server, so only the server's datagrams arrive and
/// an ICMP unreachable shows as ECONNREFUSED. Non-blocking; closed on deinit.
public final class DNSDatagramSocket {
    /// The largest reply read; an EDNS(0) payload of 1232 bytes fits with room to spare, and a
    /// longer datagram is read truncated and then rejected by the decoder's checks.
    public static let maximumDatagramSize = 4096

    public let server: SocketAddress
    public private(set) var fileDescriptor: Int32

    /// Opens the socket and connects it to `server`.
    public init(connectingTo server: SocketAddress) throws(TransportError) {
        self.server = server
        let family = server.address.family == .v4 ? AF_INET : AF_INET6
        let operation = "open a UDP socket to the DNS server \(server)"
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .lastError(operation) }
        let connected = POSIXSocketAddress(server.address, port: server.port).withSockaddr { connect(fd, $0, $1) }
        guard connected == 0 else {
            let error = TransportError.lastError(operation)
            SystemCall.close(fd)
            throw error
        }
        fileDescriptor = fd
    }

    /// Sends one query message.
    public func send(_ message: [UInt8]) throws(TransportError) {
        guard fileDescriptor >= 0 else { throw .closed(operation: "send to the DNS server \(server)") }
        let sent = SystemCall.retryingInterrupts {
            message.withUnsafeBytes { Glibc.send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        guard sent == message.count else { throw .lastError("send to the DNS server \(server)") }
    }

    /// The next waiting datagram and where it came from, or nil when none is waiting.
    /// - Throws: ``TransportError`` for a failed read, such as ECONNREFUSED after an ICMP
    ///   port unreachable from the server.
    public func receive() throws(TransportError) -> (bytes: [UInt8], source: SocketAddress)? {
        guard fileDescriptor >= 0 else { throw .closed(operation: "receive from the DNS server \(server)") }
        var buffer = [UInt8](repeating: 0, count: Self.maximumDatagramSize)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = SystemCall.retryingInterrupts {
            buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                    }
                }
            }
        }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw .lastError("receive from the DNS server \(server)")
        }
        guard let source = withUnsafePointer(to: &storage, { SocketAddress($0) }) else { return nil }
        return (Array(buffer.prefix(count)), source)
    }

    /// Closes the socket; later calls fail with ``TransportError/closed(operation:)``.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        SystemCall.close(fileDescriptor)
        fileDescriptor = -1
    }

    deinit { close() }
}
