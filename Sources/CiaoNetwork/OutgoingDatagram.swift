/// A datagram for the transport to send on one interface.
public struct OutgoingDatagram: Hashable, Sendable {
    public enum Destination: Hashable, Sendable {
        /// The mDNS group of that family, 224.0.0.251 or ff02::fb, port 5353.
        case multicast(IPFamily)
        case unicast(SocketAddress)
    }

    /// Why the engine sends a datagram, for logs.
    public enum Purpose: Hashable, Sendable {
        /// Probing for a name (RFC 6762 §8.1).
        case probe
        /// Announcing records, first or after a change (§8.3, §8.4).
        case announcement
        /// Answering a query, or defending a name (§6).
        case answer
        /// Withdrawing records with TTL 0 (§10.1).
        case goodbye
        /// Asking a question (§5).
        case query
    }

    public var bytes: [UInt8]
    public var interface: InterfaceID
    public var destination: Destination
    public var purpose: Purpose

    public init(bytes: [UInt8], interface: InterfaceID, destination: Destination, purpose: Purpose = .answer) {
        self.bytes = bytes
        self.interface = interface
        self.destination = destination
        self.purpose = purpose
    }

    public var family: IPFamily {
        switch destination {
        case .multicast(let family): family
        case .unicast(let address): address.address.family
        }
    }
}
