import CiaoEngine
import CiaoWire

/// Hosts running ``MDNSEngine`` on simulated links, in virtual time.
public typealias SimulatedNetwork = SimulatedNetworkOf<MDNSEngine>

/// Many hosts running a ``SimulatedStack`` on simulated links, in virtual time.
///
/// Links deliver multicast to every other host on them and unicast to the owner of the address,
/// each copy independently lost, delayed or duplicated per the link's conditions; delays make
/// reordering. As the kernel does, a multicast also comes back to its sender at once, whose
/// engine must know it for its own (``DropReason/ownMulticast``). All randomness comes from one seed, so a seed fixes a run byte for byte.
public struct SimulatedNetworkOf<Stack: SimulatedStack> {
    public struct HostID: Hashable, Comparable, Sendable, CustomStringConvertible {
        public var index: Int
        public static func < (lhs: HostID, rhs: HostID) -> Bool { lhs.index < rhs.index }
        public var description: String { "host\(index)" }
    }

    public struct LinkID: Hashable, Sendable {
        public var index: Int
    }

    /// How a link treats each copy of a datagram.
    public struct Conditions: Sendable {
        public var loss: Double
        public var delay: ClosedRange<Duration>
        public var duplication: Double

        public init(
            loss: Double = 0, delay: ClosedRange<Duration> = .milliseconds(1)...(.milliseconds(1)),
            duplication: Double = 0
        ) {
            self.loss = loss
            self.delay = delay
            self.duplication = duplication
        }
    }

    /// A datagram as it crossed a link.
    public struct Transmission: Sendable {
        public var time: Instant
        public var sender: HostID
        public var link: LinkID
        public var datagram: OutgoingDatagram
    }

    /// An event from a host's stack, with when it happened.
    public struct TimedEvent {
        public var time: Instant
        public var host: HostID
        public var event: Stack.Event
    }

    struct Host {
        var stack: Stack?
        /// The stack's ``SimulatedStack/nextDeadline`` after it last ran.
        var deadline: Instant?
        /// Interface per link, and its addresses.
        var interfaces: [LinkID: NetworkInterface]
        var up: Set<LinkID>
        /// Datagrams received, for hosts without a stack (observers).
        var received: [ReceivedDatagram] = []
    }

    struct Delivery: Comparable {
        var time: Instant
        var sequence: Int
        var host: HostID
        var datagram: ReceivedDatagram
        static func < (lhs: Delivery, rhs: Delivery) -> Bool { (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence) }
        static func == (lhs: Delivery, rhs: Delivery) -> Bool { (lhs.time, lhs.sequence) == (rhs.time, rhs.sequence) }
    }

    public private(set) var now: Instant = .zero
    public private(set) var transmissions: [Transmission] = []
    public private(set) var events: [TimedEvent] = []
    /// Keep every transmission in ``transmissions`` (off for long runs, to bound memory).
    public var recordsTransmissions = true
    /// Keep every event in ``events`` (off for long runs, to bound memory).
    public var recordsEvents = true
    /// Called with every event as it happens, for long runs that keep their own tallies.
    public var eventObserver: ((TimedEvent) -> Void)?
    /// The address families hosts added from now on get.
    public var families: Set<IPFamily> = [.v4, .v6]
    public private(set) var transmissionCount = 0
    private var random: SplitMix64
    private var links: [Conditions] = []
    /// The links each link is bridged to (``bridge(_:_:)``).
    private var bridged: [LinkID: Set<LinkID>] = [:]
    private var hosts: [Host] = []
    private var deliveries = Heap<Delivery>()
    private var deadlines = Heap<Deadline>()
    private var sequence = 0

    struct Deadline: Comparable {
        var time: Instant
        var host: Int
        static func < (lhs: Deadline, rhs: Deadline) -> Bool { (lhs.time, lhs.host) < (rhs.time, rhs.host) }
    }

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    // MARK: Building

    public mutating func addLink(_ conditions: Conditions = Conditions()) -> LinkID {
        links.append(conditions)
        return LinkID(index: links.count - 1)
    }

    public mutating func setConditions(_ conditions: Conditions, on link: LinkID) {
        links[link.index] = conditions
    }

    /// Joins two links, as a switch would: what is sent on either is delivered on the other too
    /// (not on a third bridged to that one), each copy under its receiving link's conditions. A
    /// host with an interface on each then has two interfaces on one link (RFC 6762 §14); as on
    /// Linux, its IPv4 datagrams do not come back to it over the bridge, their source being one
    /// of its own addresses.
    public mutating func bridge(_ first: LinkID, _ second: LinkID) {
        precondition(first != second, "a link bridged to itself")
        bridged[first, default: []].insert(second)
        bridged[second, default: []].insert(first)
    }

    /// Adds a host whose stack `makeStack` builds from an engine whose host label is `hostLabel` (or an observer
    /// without one when nil), with one interface on each link, from 198.18.0.0/15 and
    /// fd00:198:18:L::H/64.
    ///
    /// With `sharingAddressesOf`, the new stack runs on that host beside its stack, as a second
    /// responder on one machine (RFC 6762 §15): same interfaces and addresses, each hearing the
    /// other's multicast, a unicast datagram to them going to the one added last, as Linux hands
    /// it to the socket that bound the port last.
    @discardableResult
    public mutating func addHost(
        named hostLabel: String?, links hostLinks: [LinkID], seed: UInt64? = nil,
        cacheCapacity: Int = 4096,
        unicastReplyFamilies: Set<IPFamily> = Set(IPFamily.allCases), knownAnswersPerFamily: Bool = false,
        sharingAddressesOf sibling: HostID? = nil, makeStack: (MDNSEngine) -> Stack
    ) -> HostID {
        let id = HostID(index: hosts.count)
        var interfaces: [LinkID: NetworkInterface] = [:]
        for link in hostLinks {
            interfaces[link] =
                sibling.flatMap { hosts[$0.index].interfaces[link] }
                ?? Self.interface(for: id, on: link, families: families)
        }
        let stack = hostLabel.map {
            makeStack(
                MDNSEngine(
                    configuration: .init(
                        hostLabel: $0, cacheCapacity: cacheCapacity, unicastReplyFamilies: unicastReplyFamilies,
                        knownAnswersPerFamily: knownAnswersPerFamily),
                    seed: seed ?? random.next()))
        }
        hosts.append(Host(stack: stack, interfaces: interfaces, up: Set(hostLinks)))
        if hosts[id.index].stack != nil {
            for link in hostLinks.sorted(by: { $0.index < $1.index }) {
                hosts[id.index].stack!.setInterface(interfaces[link]!, at: now)
            }
            collect(from: id)
        }
        return id
    }

    /// The interface a host has on a link.
    public static func interface(for host: HostID, on link: LinkID, families: Set<IPFamily> = [.v4, .v6])
        -> NetworkInterface
    {
        // 198.18.0.0/15 holds 4095 hosts on each of 32 links: offset link × 4096 + host + 1.
        let offset = (link.index % 32) << 12 | (host.index % 4095 + 1)
        let v4 = IPv4Address(198, 18 + UInt8(offset >> 16), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF))
        let v6 = IPv6Address(high: 0xFD00_0198_0018_0000 | UInt64(link.index), low: UInt64(host.index + 1))
        return NetworkInterface(
            id: InterfaceID(UInt32(link.index + 1)), name: "sim\(link.index)",
            addresses: [
                InterfaceAddress(.v4(v4), prefixLength: 15),
                InterfaceAddress(.v6(v6), prefixLength: 64),
            ].filter { families.contains($0.address.family) })
    }

    public func address(of host: HostID, on link: LinkID, family: IPFamily) -> IPAddress {
        hosts[host.index].interfaces[link]!.addresses.first { $0.address.family == family }!.address
    }

    // MARK: Driving stacks

    /// Runs `body` on a host's stack at the current time, then collects what it produced.
    public mutating func withStack<Result>(_ host: HostID, _ body: (inout Stack, Instant) -> Result) -> Result {
        let result = body(&hosts[host.index].stack!, now)
        collect(from: host)
        return result
    }

    public func stack(_ host: HostID) -> Stack { hosts[host.index].stack! }

    /// The engine a host's stack runs.
    public func engine(_ host: HostID) -> MDNSEngine { hosts[host.index].stack!.engine }

    /// Datagrams an observer host received.
    public func received(by host: HostID) -> [ReceivedDatagram] { hosts[host.index].received }

    /// Sends raw bytes from `host` (typically an observer) as if from `source`, multicast or to `target`.
    public mutating func inject(
        _ bytes: [UInt8], from host: HostID, on link: LinkID, source: SocketAddress,
        to target: HostID? = nil
    ) {
        for (receiver, index) in zip(hosts, hosts.indices) where index != host.index && receiver.interfaces[link] != nil
        {
            if let target, target.index != index { continue }
            schedule(
                ReceivedDatagram(
                    bytes: bytes, source: source, interface: receiver.interfaces[link]!.id,
                    isMulticast: target == nil), to: HostID(index: index), on: link)
        }
    }

    /// Takes a host's link down (its interface removed from the engine, nothing delivered) or up.
    public mutating func setLink(_ link: LinkID, of host: HostID, up: Bool) {
        guard let interface = hosts[host.index].interfaces[link] else { return }
        if up {
            hosts[host.index].up.insert(link)
            withStack(host) { stack, now in stack.setInterface(interface, at: now) }
        } else {
            withStack(host) { stack, now in stack.removeInterface(interface.id, at: now) }
            hosts[host.index].up.remove(link)
        }
    }

    /// Stops a host dead, as a crash would: it sends nothing more, no goodbyes included, and
    /// receives nothing.
    public mutating func crash(_ host: HostID) {
        hosts[host.index].up = []
    }

    /// Replaces a host's addresses on a link.
    public mutating func setAddresses(_ addresses: [InterfaceAddress], of host: HostID, on link: LinkID) {
        hosts[host.index].interfaces[link]!.addresses = addresses
        let interface = hosts[host.index].interfaces[link]!
        withStack(host) { stack, now in stack.setInterface(interface, at: now) }
    }

    /// Runs the network until virtual time `end`.
    public mutating func run(until end: Instant) {
        while true {
            let nextDelivery = deliveries.top?.time
            while let top = deadlines.top, hosts[top.host].deadline != top.time {
                deadlines.pop()  // stale
            }
            let nextDeadline = deadlines.top?.time
            guard let next = [nextDelivery, nextDeadline].compactMap({ $0 }).min(), next <= end else { break }
            now = next
            if let delivery = deliveries.top, delivery.time == next {
                deliveries.pop()
                deliver(delivery)
            } else if let deadline = deadlines.pop() {
                let host = HostID(index: deadline.host)
                withStack(host) { stack, now in stack.advance(to: now) }
                // advance(to:) runs everything due, so the deadline it leaves is later; one it
                // skipped would come back at this instant forever.
                precondition(
                    hosts[host.index].stack?.nextDeadline.map { $0 > now } ?? true,
                    "host \(host.index): advance(to: \(now)) left a deadline at or before it")
            }
        }
        now = max(now, end)
    }

    public mutating func run(for duration: Duration) {
        run(until: now + duration)
    }

    // MARK: Private

    private mutating func deliver(_ delivery: Delivery) {
        let host = delivery.host
        guard let link = hosts[host.index].interfaces.first(where: { $0.value.id == delivery.datagram.interface })?.key,
            hosts[host.index].up.contains(link)
        else { return }
        if hosts[host.index].stack == nil {
            hosts[host.index].received.append(delivery.datagram)
        } else {
            // A drop is the stack's own business here; the runtime counts them.
            _ = withStack(host) { stack, now in stack.receive(delivery.datagram, at: now) }
        }
    }

    private mutating func collect(from host: HostID) {
        guard var stack = hosts[host.index].stack else { return }
        for event in stack.takeEvents() {
            let timed = TimedEvent(time: now, host: host, event: event)
            if recordsEvents { events.append(timed) }
            eventObserver?(timed)
        }
        let datagrams = stack.takeDatagrams()
        stack.noteSent(at: now)
        hosts[host.index].stack = stack
        let deadline = stack.nextDeadline.map { max($0, now) }
        hosts[host.index].deadline = deadline
        if let deadline { deadlines.push(Deadline(time: deadline, host: host.index)) }
        for datagram in datagrams { transmit(datagram, from: host) }
    }

    private mutating func transmit(_ datagram: OutgoingDatagram, from sender: HostID) {
        guard
            let (link, interface) = hosts[sender.index].interfaces.first(where: { $0.value.id == datagram.interface }),
            hosts[sender.index].up.contains(link),
            let source = interface.addresses.first(where: { $0.address.family == datagram.family })?.address
        else { return }
        transmissionCount += 1
        if recordsTransmissions {
            transmissions.append(Transmission(time: now, sender: sender, link: link, datagram: datagram))
        }
        if case .multicast = datagram.destination {
            // Looped back, never lost or late: the kernel hands it over during the send.
            sequence += 1
            let looped = ReceivedDatagram(
                bytes: datagram.bytes, source: SocketAddress(source, port: mdnsPort), interface: interface.id,
                isMulticast: true)
            deliveries.push(Delivery(time: now, sequence: sequence, host: sender, datagram: looped))
        }
        // Over a bridge, the sender's interface on the other link hears it too, but over IPv6
        // alone: Linux drops an IPv4 datagram from outside whose source is one of its own.
        for receivingLink in [link] + (bridged[link] ?? []).sorted(by: { $0.index < $1.index }) {
            let senderHears = receivingLink != link && datagram.family == .v6
            // Engines sharing an address share its port too: Linux hands a unicast datagram to the
            // socket bound last, here the stack added last (RFC 6762 §15.1).
            var unicastReceiver: Int?
            if case .unicast(let target) = datagram.destination {
                unicastReceiver = hosts.indices.last {
                    ($0 != sender.index || senderHears) && hosts[$0].up.contains(receivingLink)
                        && hosts[$0].interfaces[receivingLink]?.owns(target.address) == true
                }
            }
            for index in hosts.indices where index != sender.index || senderHears {
                guard let receiverInterface = hosts[index].interfaces[receivingLink],
                    hosts[index].up.contains(receivingLink)
                else { continue }
                let isMulticast: Bool
                switch datagram.destination {
                case .multicast:
                    isMulticast = true
                case .unicast:
                    guard index == unicastReceiver else { continue }
                    isMulticast = false
                }
                let received = ReceivedDatagram(
                    bytes: datagram.bytes, source: SocketAddress(source, port: mdnsPort),
                    interface: receiverInterface.id, isMulticast: isMulticast)
                schedule(received, to: HostID(index: index), on: receivingLink)
            }
        }
    }

    private mutating func schedule(_ datagram: ReceivedDatagram, to host: HostID, on link: LinkID) {
        let conditions = links[link.index]
        let copies = Double.random(in: 0..<1, using: &random) < conditions.duplication ? 2 : 1
        for _ in 0..<copies {
            guard Double.random(in: 0..<1, using: &random) >= conditions.loss else { continue }
            let delay = Duration.nanoseconds(
                Int64.random(
                    in: conditions.delay.lowerBound.nanoseconds...conditions.delay.upperBound.nanoseconds,
                    using: &random))
            sequence += 1
            deliveries.push(Delivery(time: now + delay, sequence: sequence, host: host, datagram: datagram))
        }
    }
}

extension SimulatedNetworkOf where Stack == MDNSEngine {
    /// Adds a host running an engine whose host label is `hostLabel`, or an observer without one when nil (see
    /// ``addHost(named:links:seed:cacheCapacity:unicastReplyFamilies:knownAnswersPerFamily:sharingAddressesOf:makeStack:)``).
    @discardableResult
    public mutating func addHost(
        named hostLabel: String?, links hostLinks: [LinkID], seed: UInt64? = nil,
        cacheCapacity: Int = 4096,
        unicastReplyFamilies: Set<IPFamily> = Set(IPFamily.allCases), knownAnswersPerFamily: Bool = false,
        sharingAddressesOf sibling: HostID? = nil
    ) -> HostID {
        addHost(
            named: hostLabel, links: hostLinks, seed: seed, cacheCapacity: cacheCapacity,
            unicastReplyFamilies: unicastReplyFamilies, knownAnswersPerFamily: knownAnswersPerFamily,
            sharingAddressesOf: sibling, makeStack: { $0 })
    }
}
