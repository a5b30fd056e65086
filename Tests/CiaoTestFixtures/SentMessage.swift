import CiaoEngine
import CiaoSimulation
import CiaoWire

/// A decoded datagram a simulated host sent: when, where to, over which family and how large.
public struct SentMessage {
    public var time: Instant
    public var destination: OutgoingDatagram.Destination
    public var family: IPFamily
    /// The datagram's size in bytes.
    public var size: Int
    public var message: Message

    public var isMulticast: Bool {
        if case .multicast = destination { return true }
        return false
    }

    public var isProbe: Bool { MessageKind.probes.matches(message) }
    public var isResponse: Bool { message.header.isResponse }

    /// Answers, authorities and additionals.
    public var allRecords: [ResourceRecord] { message.answers + message.authorities + message.additionals }

    /// True when a question of this message asks about `name`.
    public func asks(about name: DomainName) -> Bool { message.questions.contains { $0.name == name } }

    /// True when an answer (not an additional) has this name and type.
    public func answers(_ name: DomainName, _ type: RecordType) -> Bool {
        message.answers.contains { $0.name == name && $0.type == type }
    }
}

extension SimulatedNetworkOf {
    /// What `host` sent from `since` on, decoded and of `kind`, in order; over IPv4 alone unless
    /// `family` says otherwise (nil: both). mDNS runs per family, so a simulated host sends most
    /// things on each; one family counts each once. Datagrams that do not decode are left out.
    public func sentMessages(
        _ kind: MessageKind = .all, by host: HostID, family: IPFamily? = .v4, since: Instant = .zero
    ) -> [SentMessage] {
        transmissions.compactMap { transmission in
            let datagram = transmission.datagram
            guard transmission.sender == host, transmission.time >= since,
                family.map({ $0 == datagram.family }) ?? true,
                let message = try? Message(decoding: datagram.bytes), kind.matches(message)
            else { return nil }
            return SentMessage(
                time: transmission.time, destination: datagram.destination, family: datagram.family,
                size: datagram.bytes.count, message: message)
        }
    }
}
