import Dispatch
import Glibc
import Synchronization

/// A TCP socket descriptor that several threads and tasks share safely.
///
/// Exactly one thread *reads* (or accepts on) a socket: it calls ``receive(into:)`` or ``accept()``
/// without a lock, and it alone calls ``close()`` once it is done, so the descriptor number can
/// never be reused under its feet. Everyone else may ``send(_:)`` or ``shutdown()`` at any time:
/// those take the lock and do nothing once the socket is closed. `shutdown` wakes the reading
/// thread, which then sees end-of-file and closes.
///
/// It is `Sendable` without `@unchecked`: the descriptor is an immutable `Int32` and the only
/// mutable state, whether it is closed, lives in a `Mutex`.
final class Socket: Sendable {
    let descriptor: Int32
    private let isClosed = Mutex(false)

    init(adopting descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends all of `bytes` without blocking. Returns false when the socket is closed, the peer is
    /// gone, or the kernel's send buffer is full — a peer that has stopped reading is dropped
    /// rather than allowed to stall everyone else.
    func send(_ bytes: [UInt8]) -> Bool {
        isClosed.withLock { closed in
            guard !closed else { return false }
            return bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let sent = Glibc.send(
                        descriptor, buffer.baseAddress! + offset, buffer.count - offset,
                        Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                    if sent < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += sent
                }
                return true
            }
        }
    }

    /// Blocks until bytes arrive; returns how many (0 at end-of-file or after ``shutdown()``, -1 on
    /// error). For the reading thread only.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = Glibc.recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Blocks until a connection arrives; nil once the socket is shut down or fails.
    /// For the accepting thread only.
    func accept() -> Socket? {
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return Socket(adopting: client)
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO: continue
            default: return nil
            }
        }
    }

    /// Ends the connection in both directions and wakes the reading thread. Safe from anywhere.
    func shutdown() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Releases the descriptor. Only its reading thread, or whoever holds the socket before any
    /// thread reads it, may call this.
    func close() {
        isClosed.withLock { closed in
            if !closed {
                closed = true
                _ = Glibc.close(descriptor)
            }
        }
    }

    /// The local port the socket is bound to.
    var localPort: UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return 0 }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }
}

// MARK: - Opening sockets

extension Socket {
    /// Opens a TCP listener on `port` (0: an ephemeral port) on every address: one IPv6 socket
    /// that also accepts IPv4 (dual stack), or an IPv4 socket where IPv6 is unavailable.
    static func listen(port: UInt16) throws(SocketError) -> Socket {
        let stream = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var descriptor = Glibc.socket(AF_INET6, stream, 0)
        var status: Int32
        if descriptor >= 0 {
            var off: Int32 = 0
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()  // all zeros: in6addr_any
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            descriptor = Glibc.socket(AF_INET, stream, 0)
            guard descriptor >= 0 else { throw SocketError("socket", errno) }
            var address = sockaddr_in()  // all zeros: INADDR_ANY
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard status == 0, Glibc.listen(descriptor, 16) == 0 else {
            let error = SocketError("listen on port \(port)", errno)
            Glibc.close(descriptor)
            throw error
        }
        return Socket(adopting: descriptor)
    }

    /// Connects to the first of `addresses` (numeric, IPv6 link-local ones with their `%zone`)
    /// that answers on `port`, trying each for at most `timeout` milliseconds. The blocking work
    /// runs on a Dispatch queue, never on a Swift concurrency thread.
    static func connect(toAnyOf addresses: [String], port: UInt16, timeout: Int32 = 3000) async
        -> Result<Socket, SocketError>
    {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var failure = SocketError("connect: no address", 0)
                for address in addresses {
                    do throws(SocketError) {
                        continuation.resume(returning: .success(try connect(to: address, port: port, timeout: timeout)))
                        return
                    } catch {
                        failure = error
                    }
                }
                continuation.resume(returning: .failure(failure))
            }
        }
    }

    /// A blocking connect with a timeout: non-blocking `connect`, `poll` for writability, then
    /// back to blocking mode for the reading thread.
    private static func connect(to address: String, port: UInt16, timeout: Int32) throws(SocketError) -> Socket {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(address, String(port), &hints, &list)
        guard lookup == 0, let info = list?.pointee else {
            throw SocketError("\(address): \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(list) }
        let descriptor = Glibc.socket(
            info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0)
        guard descriptor >= 0 else { throw SocketError("socket", errno) }
        func fail(_ code: Int32) -> SocketError {
            Glibc.close(descriptor)
            return SocketError("connect to [\(address)]:\(port)", code)
        }
        if Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw fail(errno) }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, timeout)
            guard ready > 0 else { throw fail(ready == 0 ? ETIMEDOUT : errno) }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
            guard code == 0 else { throw fail(code) }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return Socket(adopting: descriptor)
    }
}

/// A failed socket operation: what was attempted and why.
struct SocketError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    init(_ operation: String, _ code: Int32) {
        description = code == 0 ? operation : "\(operation): \(String(cString: strerror(code)))"
    }
}
