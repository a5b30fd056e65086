#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// Why a transport operation failed, worded so that a user can act on it.
///
/// Send failures are per datagram: `isTransient` tells the runtime which ones are the network
/// changing under it (log quietly, count, carry on; the next interface scan catches up) rather than
/// something worth surfacing. mDNS tolerates loss (RFC 6762 §6, §8.3: everything is retransmitted),
/// so no send error should stop the runtime.
public enum TransportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A system call failed; `operation` says what was being done, such as
    /// "bind to UDP port 5353", and `errno` why.
    case system(operation: String, errno: Int32)
    /// A datagram for one address family was handed to a socket of the other.
    case familyMismatch(socket: IPFamily, destination: IPFamily)
    /// The socket or descriptor was already closed.
    case closed(operation: String)

    public var description: String {
        switch self {
        case .system(let operation, let errno):
            "\(operation) failed: \(Self.message(for: errno))"
        case .familyMismatch(let socket, let destination):
            "cannot send to an \(destination.name) address on an \(socket.name) socket"
        case .closed(let operation):
            "\(operation) failed: the socket is already closed"
        }
    }

    /// The error number of a failed system call, if this is one.
    public var errno: Int32? {
        if case .system(_, let errno) = self { return errno }
        return nil
    }

    /// True for failures that come from the network changing or being momentarily full: the send
    /// queue is full (EAGAIN, ENOBUFS), the interface went down or away (ENETDOWN, ENODEV,
    /// ENXIO), there is no route or the address is gone (ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL),
    /// or a peer's ICMP error was reported on the socket (ECONNREFUSED). The datagram is lost;
    /// the runtime should count it and carry on.
    public var isTransient: Bool {
        guard let errno else { return false }
        return Self.transientErrors.contains(errno)
    }

    static let transientErrors: Set<Int32> = [
        EAGAIN, EWOULDBLOCK, ENOBUFS, ENETDOWN, ENODEV, ENXIO, ENETUNREACH, EHOSTUNREACH,
        EADDRNOTAVAIL, ECONNREFUSED,
    ]

    /// strerror(3) text for `errno`, via the thread-safe strerror_r.
    static func message(for errno: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        // Glibc's Swift import is the XSI strerror_r, which fills `buffer` and returns 0.
        guard strerror_r(errno, &buffer, buffer.count) == 0 else { return "error \(errno)" }
        return SystemCall.string(fromNulTerminated: buffer)
    }

    /// `.system(operation:errno:)` with the calling thread's current errno, read before
    /// `operation` is built (building it may make system calls of its own).
    static func lastError(_ operation: @autoclosure () -> String) -> TransportError {
        let errno = Glibc.errno
        return .system(operation: operation(), errno: errno)
    }
}

extension IPFamily {
    /// "IPv4" or "IPv6", for messages.
    var name: String {
        switch self {
        case .v4: "IPv4"
        case .v6: "IPv6"
        }
    }
}
