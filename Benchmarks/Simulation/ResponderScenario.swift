import CiaoEngine
import CiaoWire

/// The responder's own cost per query, without sockets or a kernel: one engine publishes
/// `services` services (at least one) on one interface and answers `queries` queries. The wire
/// benchmark's figures add the system calls and the scheduler.
///
/// - ``Question/instanceSRV``: QM SRV queries for the instances in turn, 2 ms apart in virtual
///   time, or further apart for fewer than 551 services, so that each name is asked again only
///   after more than a second (as the wire benchmark's (f) load does: a responder multicasts a
///   record at most once a second).
/// - ``Question/browseQU``: a new browser's first query, a QU PTR query for the service type,
///   1.1 s apart; each is answered by unicast with all the services (RFC 6762 §5.4), as a fresh
///   browser of the wire benchmark's (d) is, while the announcements are less than a quarter of
///   the PTR's TTL old (1125 s: up to about 960 queries); later ones are multicast.
struct ResponderScenario {
    static let serviceType = try! DomainName(parsing: "_bulk._tcp.local.")

    enum Question: String {
        case instanceSRV = "srv"
        case browseQU = "browse"

        /// What the command line reports the queries as.
        var label: String { self == .instanceSRV ? "SRV" : "QU PTR" }

        /// How many queries a run answers unless told.
        var defaultQueries: Int { self == .instanceSRV ? 200_000 : 200 }

        /// True when `responses` datagrams answered every one of `queries`: one datagram per SRV
        /// query, several for a browse's answer.
        func answeredEvery(_ queries: Int, with responses: Int) -> Bool {
            self == .instanceSRV ? responses == queries : responses >= queries
        }
    }

    struct Result {
        var responses = 0
        var wallTime: Duration = .zero
    }

    let services: Int
    let queries: Int
    var question = Question.instanceSRV

    func run() -> Result {
        var engine = MDNSEngine(configuration: .init(hostLabel: "responder"), seed: 1)
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
        let questions =
            switch question {
            case .instanceSRV: names.map { CiaoWire.Question(name: $0, type: .srv) }
            case .browseQU: [CiaoWire.Question(name: Self.serviceType, type: .ptr, unicastResponse: true)]
            }
        let datagrams = questions.map { question in
            ReceivedDatagram(
                bytes: try! Message(header: MessageHeader(), questions: [question]).encoded(),
                source: SocketAddress(.v4(IPv4Address(198, 18, 0, 2)), port: 5353), interface: interface.id,
                isMulticast: true)
        }
        let interval =
            switch question {
            case .instanceSRV: max(Duration.milliseconds(2), Duration.milliseconds(1100) / services)
            case .browseQU: Duration.milliseconds(1100)
            }
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
