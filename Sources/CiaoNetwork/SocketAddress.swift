/// An address and UDP port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: IPAddress
    public var port: UInt16

    public init(_ address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public var description: String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }
}

/// The mDNS port (RFC 6762 §3).
public let mdnsPort: UInt16 = 5353
