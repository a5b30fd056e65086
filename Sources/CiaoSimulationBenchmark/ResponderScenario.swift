import CiaoEngine
import CiaoWire

/// The responder's own cost per query, without sockets or a kernel: one engine publishes
/// `services` services (at least one) on one interface and answers `queries` QM SRV queries for
/// them in turn, 2 ms apart in virtual time, or further apart for fewer than 551 services, so that
/// each name is asked again only after more than a second (as the wire benchmark's load does: a
/// responder multicasts a record at most once a second). The wire benchmark's figure adds the
/// system calls and the scheduler.
struct ResponderScenario {
    static let serviceType = try! DomainName(parsing: "_bulk._tcp.local.")

    struct Result {
        var responses = 0
        var wallTime: Duration = .zero
    }

    let services: Int
    let queries: Int

    func run() -> Result {
        var engine = MDNSEngine(configuration: .init(hostName: "responder"), seed: 1)
        var now = Instant.zero
        let interface = NetworkInterface(
            id: InterfaceID(2), name: "bench0",
            addresses: [
                InterfaceAddress(.v4(IPv4Address(198, 18, 0, 1)), prefixLength: 15),
                InterfaceAddress(.v6(IPv6Address("fe80::1")!), prefixLength: 64),
            ])
        engine.setInterface(interface, at: now)
        let names = (0..<services).map { try! Self.serviceType.prepending(label: Array("Bench \($0)".utf8)) }
        for name in names {
            let service = ServiceRegistration(
                instanceName: String(decoding: name.firstLabel!, as: UTF8.self), serviceType: Self.serviceType,
                port: 9000, txt: try! TXTData(strings: [Array("v=1".utf8)]), allowsRenaming: false)
            _ = engine.register(service, at: now)
        }
        // Probing and announcing; then a minute without queries, so no record was multicast
        // within the last second (§6) when the load starts.
        let settled = now + .seconds(60)
        while let deadline = engine.nextDeadline, deadline <= settled {
            now = max(now, deadline)
            engine.advance(to: now)
            _ = engine.takeDatagrams()
            _ = engine.takeEvents()
        }
        now = settled
        let datagrams = names.map { name in
            ReceivedDatagram(
                bytes: try! Message(header: MessageHeader(), questions: [Question(name: name, type: .srv)]).encoded(),
                source: SocketAddress(.v4(IPv4Address(198, 18, 0, 2)), port: 5353), interface: interface.id,
                isMulticast: true)
        }
        let interval = max(Duration.milliseconds(2), Duration.milliseconds(1100) / services)
        var result = Result()
        result.wallTime = ContinuousClock().measure {
            for index in 0..<queries {
                now = now + interval
                engine.receive(datagrams[index % datagrams.count], at: now)
                engine.advance(to: now)
                result.responses += engine.takeDatagrams().count
                _ = engine.takeEvents()
            }
        }
        return result
    }
}
