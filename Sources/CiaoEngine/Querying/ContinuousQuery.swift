import CiaoWire

/// A question asked continuously on each interface: first after 20–120 ms, then at intervals that
/// double from one second up to an hour (RFC 6762 §5.2).
///
/// Its first query over each family asks for a unicast reply (QU, §5.4), as mDNSResponder asks
/// every new question: a querier with nothing cached wants its answers now, and responders may
/// send them by unicast at once rather than multicast them after the 20–120 ms delay of shared
/// answers (§6). Every later query is QM, so that answers reach every cache on the link again;
/// so is the first where another host's QM query stood in for it (§7.3), or where another
/// responder on this host shares the mDNS port (``MDNSEngine/unicastReplyFamilies``).
///
/// On an interface with both families the first query goes out over IPv4 alone, and over IPv6
/// `ipv6FirstQueryLag` later. The IPv6 query lists its known answers (§7.1) as any query does, but
/// for those that have just come over IPv6: a responder that answers each family apart
/// (avahi-daemon, Ciao) then answers once rather than once per family, and one that answers an
/// IPv4 query over both families (python-zeroconf, seen on the wire) is not sent back what it has
/// just sent. The second query, a full interval after the IPv6 one, asks over both families
/// together, as all later ones do.
struct ContinuousQuery {
    static let firstDelay: ClosedRange<Duration> = .milliseconds(20)...(.milliseconds(120))
    static let firstInterval: Duration = .seconds(1)
    static let maximumInterval: Duration = .seconds(3600)
    /// Longer than a responder's 20–120 ms delay for shared answers (§6), so that IPv4's answers
    /// are in when the IPv6 query lists its known answers. A responder holding its answer longer
    /// (400–500 ms after a truncated query, §7.2, or to aggregate, §6) answers over IPv6 too, as it
    /// would without the lag.
    static let ipv6FirstQueryLag: Duration = .milliseconds(150)
    /// Another host's query this soon after one counted as ours is that query's copy over the
    /// other family, or the first IPv6 query following its IPv4 one; this soon after our own, the
    /// two went out together.
    static let sameQueryWindow: Duration = .milliseconds(250)
    /// When another host's query stands in for ours, our next one waits a random margin past
    /// theirs (longer than `ipv6FirstQueryLag`, by which their second query may follow): theirs
    /// again comes first and stands in again, and hosts that all stood back do not ask at the
    /// same instants for ever after.
    static let standInMargin: ClosedRange<Duration> = .milliseconds(200)...(.milliseconds(300))

    /// The families a due send asks over.
    enum Send: Equatable {
        /// Every family the interface has.
        case allFamilies
        /// IPv4 alone: the first query on a dual-stack interface.
        case ipv4First
        /// IPv6 alone, `ipv6FirstQueryLag` after the first over IPv4.
        case ipv6AfterIPv4

        func families(of interface: NetworkInterface) -> [IPFamily] {
            switch self {
            case .allFamilies: interface.families
            case .ipv4First: [.v4]
            case .ipv6AfterIPv4: [.v6]
            }
        }
    }

    /// One interface's schedule: when the next query goes out, the interval after it, when the
    /// first goes out over IPv6 if that is still to come, and when the last was asked.
    struct InterfaceSchedule {
        var interface: InterfaceID
        var nextSend: Instant
        var interval: Duration
        var firstIPv6Send: Instant?
        var lastAsked: Instant?
        var lastAskedByUs = false

        /// The earliest instant something is due.
        var nextDue: Instant { min(nextSend, firstIPv6Send ?? nextSend) }
    }

    let name: DomainName
    let type: RecordType
    /// The interfaces asked on, or nil for all. An array, like `schedules`: a query covers one or
    /// a few interfaces, and a resolver of a thousand services keeps thousands of queries.
    let interfaces: [InterfaceID]?
    /// The schedule on each interface it is asked on.
    private(set) var schedules: [InterfaceSchedule] = []

    init(name: DomainName, type: RecordType, interfaces: Set<InterfaceID>?) {
        self.name = name
        self.type = type
        self.interfaces = interfaces?.sorted()
    }

    /// True once the question has been asked on `interface`, by us or by another host standing in.
    func hasBeenAsked(on interface: InterfaceID) -> Bool {
        schedules.first { $0.interface == interface }?.lastAsked != nil
    }

    func appliesTo(_ interface: InterfaceID) -> Bool {
        interfaces?.contains(interface) ?? true
    }

    func matches(_ record: ResourceRecord) -> Bool {
        record.name == name && (type == .any || record.type == type)
    }

    /// Whether `record` is an NSEC of the query's name that denies the query's type (RFC 6762
    /// §6.1, ``CiaoWire/ResourceRecord/denies(_:)``).
    func isDenied(by record: ResourceRecord) -> Bool {
        record.name == name && record.denies(type)
    }

    var question: Question { Question(name: name, type: type) }

    /// Starts the schedule on an interface with its first query at `first` (20–120 ms from now).
    mutating func schedule(on interface: InterfaceID, firstAt first: Instant) {
        guard appliesTo(interface) else { return }
        forget(interface)
        schedules.append(
            InterfaceSchedule(
                interface: interface, nextSend: first, interval: Self.firstInterval,
                firstIPv6Send: first + Self.ipv6FirstQueryLag))
    }

    /// What is due on `interface` now, given the families it has, with the schedule moved on as
    /// if it was sent; nil when nothing is (or only an IPv6 send, and the interface has no IPv6
    /// any more). The send after the IPv6 one waits a full interval from it, so that each
    /// family's group sees its first two queries at least a second apart (§5.2).
    mutating func takeDue(on interface: InterfaceID, families: [IPFamily], at now: Instant) -> Send? {
        guard let index = schedules.firstIndex(where: { $0.interface == interface }),
            schedules[index].nextDue <= now
        else { return nil }
        let schedule = schedules[index]
        var send: Send?
        if schedule.nextSend <= now {
            let ipv6Waits =
                families.contains(.v4) && families.contains(.v6)
                && schedule.firstIPv6Send.map { $0 > now } ?? false
            send = ipv6Waits ? .ipv4First : .allFamilies
            markSent(on: interface, at: now, byUs: true)
        } else if families.contains(.v6) {
            send = .ipv6AfterIPv4
            schedules[index].nextSend = max(schedule.nextSend, now + Self.firstInterval)
        }
        if send != .ipv4First {
            schedules[index].firstIPv6Send = nil
        }
        return send
    }

    /// Records that a query went out, ours or (`byUs` false) another host's standing in for it:
    /// the next one waits the current interval, and the interval doubles.
    private mutating func markSent(on interface: InterfaceID, at now: Instant, byUs: Bool) {
        guard let index = schedules.firstIndex(where: { $0.interface == interface }) else { return }
        schedules[index].nextSend = now + schedules[index].interval
        schedules[index].interval = min(schedules[index].interval * 2, Self.maximumInterval)
        schedules[index].lastAsked = now
        schedules[index].lastAskedByUs = byUs
    }

    /// Records that another host asked the same over `family`, as if we had (§7.3), our next
    /// query then waiting `margin` (from `standInMargin`) past theirs. Within `sameQueryWindow`
    /// of one counted as ours it is that query's other copy and changes nothing; within it of our
    /// own, both went out together, and ours moves by the margin so that they stop coinciding.
    /// Over IPv6 our own first IPv6 query is no longer needed; over IPv4 it now follows theirs.
    mutating func noteAskedByAnother(
        on interface: InterfaceID, over family: IPFamily, at now: Instant, margin: Duration
    ) {
        guard let index = schedules.firstIndex(where: { $0.interface == interface }) else { return }
        let schedule = schedules[index]
        if schedule.lastAsked.map({ now - $0 >= Self.sameQueryWindow }) ?? true {
            markSent(on: interface, at: now, byUs: false)
            schedules[index].nextSend = schedules[index].nextSend + margin
        } else if schedule.lastAskedByUs {
            schedules[index].nextSend = schedule.nextSend + margin
            schedules[index].lastAskedByUs = false
        }
        guard let pending = schedules[index].firstIPv6Send else { return }
        schedules[index].firstIPv6Send = family == .v6 ? nil : max(pending, now + Self.ipv6FirstQueryLag)
    }

    mutating func forget(_ interface: InterfaceID) {
        schedules.removeAll { $0.interface == interface }
    }
}
