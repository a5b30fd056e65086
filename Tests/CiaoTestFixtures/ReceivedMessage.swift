import CiaoEngine
import CiaoSimulation
import CiaoWire

/// A decoded datagram an observer host (one without a stack) received.
public struct ReceivedMessage {
    public var source: SocketAddress
    public var isMulticast: Bool
    public var message: Message
}

extension SimulatedNetworkOf {
    /// What observer `host` received so far, decoded and of `kind`, in order of arrival, but for
    /// the first `skipped` datagrams (a `received(by:).count` taken earlier, so that a loop decodes
    /// each datagram once); datagrams that do not decode are left out. Only observers keep what
    /// they receive.
    public func receivedMessages(_ kind: MessageKind = .all, by host: HostID, skipping skipped: Int = 0)
        -> [ReceivedMessage]
    {
        received(by: host).dropFirst(skipped).compactMap { datagram in
            guard let message = try? Message(decoding: datagram.bytes), kind.matches(message) else { return nil }
            return ReceivedMessage(source: datagram.source, isMulticast: datagram.isMulticast, message: message)
        }
    }
}
