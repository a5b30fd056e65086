import CiaoNetwork

/// One datagram read from a `MulticastSocket`, with the header fields the kernel reported.
public struct ReceivedPacket: Sendable {
    /// What the engine consumes: bytes, source, receiving interface and whether it was multicast.
    public var datagram: ReceivedDatagram
    /// The IP header's destination: the mDNS group, or one of our unicast addresses.
    public var destination: IPAddress
    /// The IPv4 TTL or IPv6 hop limit the datagram arrived with, when the kernel reported it.
    /// RFC 6762 §11: mDNS senders use 255, so a smaller value means it crossed a router.
    public var ttl: Int?

    public init(datagram: ReceivedDatagram, destination: IPAddress, ttl: Int?) {
        self.datagram = datagram
        self.destination = destination
        self.ttl = ttl
    }
}
