import CiaoEngine
import CiaoSimulation
import CiaoWire

extension SimulatedNetworkOf {
    /// Sends `message` from `host` (typically an observer) on `link`: multicast, or unicast to
    /// `target`; from its own address of `family` (or `sourceAddress`) and `port`.
    public mutating func inject(
        _ message: Message, from host: HostID, on link: LinkID, family: IPFamily = .v4, port: UInt16 = mdnsPort,
        sourceAddress: IPAddress? = nil, to target: HostID? = nil
    ) {
        inject(
            try! message.encoded(), from: host, on: link, family: family, port: port, sourceAddress: sourceAddress,
            to: target)
    }

    /// Sends raw `bytes` as the overload above sends a message: for datagrams that are not a
    /// ``Message`` as its encoder writes one.
    public mutating func inject(
        _ bytes: [UInt8], from host: HostID, on link: LinkID, family: IPFamily = .v4, port: UInt16 = mdnsPort,
        sourceAddress: IPAddress? = nil, to target: HostID? = nil
    ) {
        let address = sourceAddress ?? self.address(of: host, on: link, family: family)
        inject(bytes, from: host, on: link, source: SocketAddress(address, port: port), to: target)
    }
}

extension SimulatedNetworkOf {
    /// Multicasts a query for `name` and `type` from `asker` on `link`, runs a second, and returns
    /// the first response `responder` sent meanwhile; nil when it sent none.
    public mutating func firstResponse(
        of responder: HostID, toQueryFor name: DomainName, _ type: RecordType, from asker: HostID, on link: LinkID
    ) -> SentMessage? {
        let asked = now
        inject(Messages.query([Messages.question(name, type)]), from: asker, on: link)
        run(for: .seconds(1))
        return sentMessages(.responses, by: responder, since: asked).first
    }
}
