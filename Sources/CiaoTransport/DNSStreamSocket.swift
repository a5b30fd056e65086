#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// A TCP connection to a DNS server for one query (RFC 7766), each message framed by its 2-byte
/// length (RFC 1035 §4.2.2). Non-blocking: the connect completes, and the query goes out, when
/// poll(2) reports the socket writable (``writeQueued()``); ``receive()`` collects the reply as it
/// arrives, at most 65535 bytes. Closed on deinit.
public final class DNSStreamSocket {
    public let server: SocketAddress
    public private(set) var fileDescriptor: Int32
    private var outgoing: [UInt8] = []
    private var incoming: [UInt8] = []

    /// Starts connecting to `server`.
    public init(connectingTo server: SocketAddress) throws(TransportError) {
        self.server = server
        let family = server.address.family == .v4 ? AF_INET : AF_INET6
        let operation = "connect over TCP to the DNS server \(server)"
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .lastError(operation) }
        let connected = POSIXSocketAddress(server.address, port: server.port).withSockaddr { connect(fd, $0, $1) }
        guard connected == 0 || errno == EINPROGRESS else {
            let error = TransportError.lastError(operation)
            SystemCall.close(fd)
            throw error
        }
        fileDescriptor = fd
    }

    /// True while part of a queued message is still to be written: poll for POLLOUT.
    public var wantsToWrite: Bool { !outgoing.isEmpty }

    /// Queues `message` with its length in front and writes what the socket takes now.
    public func send(_ message: [UInt8]) throws(TransportError) {
        guard message.count <= 0xFFFF else {
            throw .system(operation: "send to the DNS server \(server)", errno: EMSGSIZE)
        }
        outgoing += [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        try writeQueued()
    }

    /// Writes what is queued, as far as the socket takes it; a connection still being set up
    /// takes nothing yet.
    public func writeQueued() throws(TransportError) {
        let operation = "send over TCP to the DNS server \(server)"
        guard fileDescriptor >= 0 else { throw .closed(operation: operation) }
        while !outgoing.isEmpty {
            let sent = SystemCall.retryingInterrupts {
                outgoing.withUnsafeBytes { Glibc.send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN { return }
                throw .lastError(operation)
            }
            outgoing.removeFirst(sent)
        }
    }

    /// Reads what has arrived; the reply once all of it has, otherwise nil.
    /// - Throws: ``TransportError`` when the read fails or the server closes the connection
    ///   before the whole reply came.
    public func receive() throws(TransportError) -> [UInt8]? {
        let operation = "receive over TCP from the DNS server \(server)"
        guard fileDescriptor >= 0 else { throw .closed(operation: operation) }
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            if let message = Self.message(in: incoming) { return message }
            let count = SystemCall.retryingInterrupts {
                buffer.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
                throw .lastError(operation)
            }
            guard count > 0 else { throw .system(operation: operation, errno: ECONNRESET) }
            // At most one whole frame is kept: a length and 65535 bytes.
            incoming += buffer.prefix(min(count, 2 + 0xFFFF - incoming.count))
        }
    }

    /// The first whole frame's message in `bytes`, if all of it is there.
    static func message(in bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length else { return nil }
        return Array(bytes[2..<(2 + length)])
    }

    /// Closes the connection; later calls fail with ``TransportError/closed(operation:)``.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        SystemCall.close(fileDescriptor)
        fileDescriptor = -1
    }

    deinit { close() }
}
