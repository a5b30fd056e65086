/// A datagram the transport received, with what the engine needs to judge it (RFC 6762 §6, §11).
public struct ReceivedDatagram: Sendable {
    public var bytes: [UInt8]
    public var source: SocketAddress
    public var interface: InterfaceID
    /// True when it was sent to the mDNS multicast group rather than to one of our addresses.
    public var isMulticast: Bool

    public init(bytes: [UInt8], source: SocketAddress, interface: InterfaceID, isMulticast: Bool) {
        self.bytes = bytes
        self.source = source
        self.interface = interface
        self.isMulticast = isMulticast
    }
}
