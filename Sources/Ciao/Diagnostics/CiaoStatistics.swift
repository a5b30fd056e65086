/// Counters of the mDNS runtime since it started: per interface and family, and per socket.
/// Taken with ``CiaoDiagnostics/statistics()``.
public struct CiaoStatistics: Hashable, Sendable {
    /// What one interface carried over one family.
    public struct InterfaceCounters: Hashable, Sendable {
        /// The interface's name, such as `eth0`.
        public var interface: String
        /// The family the counted datagrams went over.
        public var family: NetworkScope.AddressFamily
        /// Datagrams read from the socket, our own multicast looped back by the kernel included.
        public var packetsReceived: UInt64 = 0
        /// The bytes of those datagrams, UDP payload only.
        public var bytesReceived: UInt64 = 0
        /// Datagrams the kernel accepted for sending.
        public var packetsSent: UInt64 = 0
        /// The bytes of those datagrams, UDP payload only.
        public var bytesSent: UInt64 = 0
        /// Datagrams the kernel refused to send.
        public var sendFailures: UInt64 = 0
        /// Our own multicast, looped back so that other responders on this host hear it, and ignored.
        public var ownPacketsIgnored: UInt64 = 0
        /// Datagrams that are not DNS messages.
        public var undecodable: UInt64 = 0
        /// Unicast datagrams from sources off the link (RFC 6762 §11).
        public var offLink: UInt64 = 0
        /// Other datagrams ignored: responses with an error code or from a port other than 5353.
        public var otherDropped: UInt64 = 0

        /// Counters at zero for `interface` over `family`.
        public init(interface: String, family: NetworkScope.AddressFamily) {
            self.interface = interface
            self.family = family
        }
    }

    /// What one of the runtime's two sockets (one per family) met.
    public struct SocketCounters: Hashable, Sendable {
        /// The socket's family.
        public var family: NetworkScope.AddressFamily
        /// Datagrams the kernel dropped because the socket's receive queue was full (SO_RXQ_OVFL).
        public var kernelDrops: UInt64
        /// Datagrams larger than the 9000 bytes mDNS allows, read truncated and dropped.
        public var truncated: UInt64
        /// Reads that failed.
        public var receiveFailures: UInt64

        /// Counters of the socket of `family`.
        public init(family: NetworkScope.AddressFamily, kernelDrops: UInt64, truncated: UInt64, receiveFailures: UInt64)
        {
            self.family = family
            self.kernelDrops = kernelDrops
            self.truncated = truncated
            self.receiveFailures = receiveFailures
        }
    }

    /// Per interface and family, in interface order, IPv4 before IPv6; interfaces since gone included.
    public var interfaces: [InterfaceCounters]
    /// Per socket, IPv4 before IPv6.
    public var sockets: [SocketCounters]

    /// Statistics made of these counters.
    public init(interfaces: [InterfaceCounters], sockets: [SocketCounters]) {
        self.interfaces = interfaces
        self.sockets = sockets
    }
}
