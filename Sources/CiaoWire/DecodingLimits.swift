/// What a decoded message may be: its size and whether OPCODEs other than 0 are accepted. The
/// defaults are multicast DNS's (RFC 6762 §17, §18.3); unicast DNS over TCP carries up to 65535
/// bytes (RFC 1035 §4.2.2), and its client checks the OPCODE of a response itself.
public struct DecodingLimits: Hashable, Sendable {
    /// The largest message accepted, in bytes.
    public var maximumSize: Int
    /// Whether a message with an OPCODE other than 0 (a query) is decoded rather than rejected.
    public var acceptsAnyOpcode: Bool

    public init(maximumSize: Int = Message.maximumSize, acceptsAnyOpcode: Bool = false) {
        self.maximumSize = maximumSize
        self.acceptsAnyOpcode = acceptsAnyOpcode
    }

    /// Multicast DNS: at most 9000 bytes, OPCODE 0 only.
    public static let multicast = DecodingLimits()

    /// Unicast DNS: up to 65535 bytes (a TCP message's 2-byte length), any OPCODE.
    public static let unicast = DecodingLimits(maximumSize: 65535, acceptsAnyOpcode: true)
}
