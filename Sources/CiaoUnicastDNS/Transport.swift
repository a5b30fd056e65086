/// How a query goes to its server: UDP first, TCP when the UDP reply was truncated (RFC 7766 §5).
public enum Transport: Hashable, Sendable {
    case udp
    case tcp
}

/// One attempt of a query: the I/O layer opens a socket of its own for it (so each attempt leaves from a
/// fresh random source port) and closes it when the client lists it as finished.
public struct Attempt: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "attempt \(rawValue)" }
}

/// A query message the I/O layer is to send: over `transport` to `server`, from the socket of
/// `attempt`. Over TCP the bytes are the bare message; the socket adds the 2-byte length.
public struct Transmission: Hashable, Sendable {
    public var attempt: Attempt
    public var server: DNSServer
    public var transport: Transport
    public var message: [UInt8]
}
