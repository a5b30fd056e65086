import CiaoWire

/// Which messages a look at a host's traffic keeps.
public enum MessageKind: Sendable {
    /// Every message.
    case all
    /// Queries (QR clear), probes included.
    case queries
    /// Probes: queries with records in their authority section (RFC 6762 §8.1).
    case probes
    /// Responses (QR set).
    case responses

    /// True when `message` is of this kind.
    public func matches(_ message: Message) -> Bool {
        switch self {
        case .all: true
        case .queries: !message.header.isResponse
        case .probes: !message.header.isResponse && !message.authorities.isEmpty
        case .responses: message.header.isResponse
        }
    }
}
