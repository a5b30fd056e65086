import CiaoEngine
import CiaoSimulation
import CiaoWire

/// A decoded datagram a host sent, with where it went.
struct SentMessage {
    var time: Instant
    var destination: OutgoingDatagram.Destination
    var message: Message

    var isMulticast: Bool {
        if case .multicast = destination { return true }
        return false
    }

    var isProbe: Bool { !message.header.isResponse && !message.authorities.isEmpty }
    var isResponse: Bool { message.header.isResponse }

    /// Answers, authorities and additionals.
    var allRecords: [ResourceRecord] { message.answers + message.authorities + message.additionals }

    /// True when a question of this (probe) message asks about `name`.
    func asks(about name: DomainName) -> Bool { message.questions.contains { $0.name == name } }

    /// True when an answer (not an additional) has this name and type.
    func answers(_ name: DomainName, _ type: RecordType) -> Bool {
        message.answers.contains { $0.name == name && $0.type == type }
    }
}

/// Responder test fixtures on top of ``Support``.
enum Responder {
    static let servicesName = try! DomainName(parsing: "_services._dns-sd._udp.local.")

    static func name(_ text: String) -> DomainName { try! DomainName(parsing: text) }

    static func txt(_ strings: [String]) -> TXTData { try! TXTData(strings: strings.map { Array($0.utf8) }) }

    /// A tiny network: one lossless link with a fixed 1 ms delay, one publisher `alpha` and an
    /// observer host without an engine, run until the host name is established.
    static func publisherAndObserver(
        seed: UInt64, hostName: String = "alpha", conditions: SimulatedNetwork.Conditions = .init()
    ) -> (
        network: SimulatedNetwork, link: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        observer: SimulatedNetwork.HostID
    ) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(conditions)
        let publisher = network.addHost(named: hostName, links: [link])
        let observer = network.addHost(named: nil, links: [link])
        network.run(for: .seconds(2))
        return (network, link, publisher, observer)
    }

    /// Registers `service` on `host` and runs until it is announced (probes and all announcements).
    @discardableResult
    static func register(
        _ service: ServiceRegistration, on host: SimulatedNetwork.HostID, in network: inout SimulatedNetwork
    ) -> RegistrationID {
        let id = network.withStack(host) { engine, now in engine.register(service, at: now) }
        network.run(for: .seconds(5))
        return id
    }

    /// A query message.
    static func query(
        _ questions: [Question], knownAnswers: [ResourceRecord] = [], id: UInt16 = 0, truncated: Bool = false
    ) -> Message {
        var message = Message(questions: questions, answers: knownAnswers)
        message.header.id = id
        message.header.isTruncated = truncated
        return message
    }

    static func question(_ name: DomainName, _ type: RecordType, qu: Bool = false) -> Question {
        Question(name: name, type: type, unicastResponse: qu)
    }

    /// The PTR record a publisher of `instance` (of ``Support/serviceType``) publishes.
    static func ptr(to instance: DomainName, ttl: UInt32 = 4500) -> ResourceRecord {
        ResourceRecord(name: Support.serviceType, ttl: ttl, data: .ptr(instance))
    }
}

extension SimulatedNetwork {
    /// Decoded messages `host` sent from `since` on, on IPv4 by default (mDNS runs per family, and
    /// the simulated hosts send everything on both).
    func sent(by host: HostID, family: IPFamily? = .v4, since: Instant = .zero) -> [SentMessage] {
        transmissions.compactMap { transmission in
            guard transmission.sender == host, transmission.time >= since,
                family.map({ $0 == transmission.datagram.family }) ?? true,
                let message = try? Message(decoding: transmission.datagram.bytes)
            else { return nil }
            return SentMessage(
                time: transmission.time, destination: transmission.datagram.destination, message: message)
        }
    }

    /// Sends `message` from an observer host: multicast, or unicast to `target`, from its own IPv4
    /// address (or `sourceAddress`) and `port`.
    mutating func inject(
        _ message: Message, from observer: HostID, on link: LinkID, port: UInt16 = mdnsPort,
        sourceAddress: IPAddress? = nil, to target: HostID? = nil
    ) {
        let address = sourceAddress ?? self.address(of: observer, on: link, family: .v4)
        inject(try! message.encoded(), from: observer, on: link, source: SocketAddress(address, port: port), to: target)
    }

    /// Events of one host with their times.
    func timedEvents(of host: HostID) -> [(time: Instant, event: EngineEvent)] {
        events.filter { $0.host == host }.map { ($0.time, $0.event) }
    }
}
