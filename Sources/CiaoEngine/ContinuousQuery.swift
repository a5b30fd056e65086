import CiaoWire

/// A question asked continuously on each interface: first after 20–120 ms, then at intervals that
/// double from one second up to an hour (RFC 6762 §5.2).
///
/// On an interface with both families the first query goes out over IPv4 alone, and over IPv6
/// `ipv6FirstQueryLag` later, listing as known answers (§7.1) what came over IPv4 alone: a
/// responder that answers each family apart (avahi-daemon, Ciao) then answers once, not once per
/// family, and one that answers over both at once is not sent what it just sent. The later
/// queries ask over both families together.
struct ContinuousQuery {
    static let firstDelay: ClosedRange<Duration> = .milliseconds(20)...(.milliseconds(120))
    static let firstInterval: Duration = .seconds(1)
    static let maximumInterval: Duration = .seconds(3600)
    /// Longer than a responder's 20–120 ms delay for shared answers (§6), so that IPv4's answers
    /// are in when the IPv6 query lists its known answers.
    static let ipv6FirstQueryLag: Duration = .milliseconds(150)

    /// One interface's schedule: when the next query goes out, the interval after it, and when
    /// the first goes out over IPv6 if that is still to come.
    struct InterfaceSchedule {
        var interface: InterfaceID
        var nextSend: Instant
        var interval: Duration
        var firstIPv6Send: Instant?

        /// The earliest instant something is due.
        var nextDue: Instant { min(nextSend, firstIPv6Send ?? nextSend) }
    }

    var name: DomainName
    var type: RecordType
    /// The interfaces asked on, or nil for all. An array, like `schedules`: a query covers one or
    /// a few interfaces, and a resolver of a thousand services keeps thousands of queries.
    var interfaces: [InterfaceID]?
    /// The schedule on each interface it is asked on.
    private(set) var schedules: [InterfaceSchedule] = []

    init(name: DomainName, type: RecordType, interfaces: Set<InterfaceID>?) {
        self.name = name
        self.type = type
        self.interfaces = interfaces?.sorted()
    }

    func appliesTo(_ interface: InterfaceID) -> Bool {
        interfaces?.contains(interface) ?? true
    }

    func matches(_ record: ResourceRecord) -> Bool {
        record.name == name && (type == .any || record.type == type)
    }

    var question: Question { Question(name: name, type: type) }

    /// Starts the schedule on an interface with its first query at `first` (20–120 ms from now).
    mutating func schedule(on interface: InterfaceID, firstAt first: Instant) {
        guard appliesTo(interface) else { return }
        forget(interface)
        schedules.append(InterfaceSchedule(
            interface: interface, nextSend: first, interval: Self.firstInterval,
            firstIPv6Send: first + Self.ipv6FirstQueryLag))
    }

    /// The families to ask over on `interface` now, given the families it has, and the schedule
    /// moved on as if asked; empty when nothing is due.
    mutating func takeDue(on interface: InterfaceID, families: [IPFamily], at now: Instant) -> [IPFamily] {
        guard let index = schedules.firstIndex(where: { $0.interface == interface }) else { return [] }
        let schedule = schedules[index]
        let dualStack = families.contains(.v4) && families.contains(.v6)
        var asked: [IPFamily] = []
        if schedule.nextSend <= now {
            let ipv6Waits = dualStack && schedule.firstIPv6Send.map { $0 > now } ?? false
            asked = ipv6Waits ? [.v4] : families
            markSent(on: interface, at: now)
        } else if dualStack, let firstIPv6Send = schedule.firstIPv6Send, firstIPv6Send <= now {
            asked = [.v6]
        }
        if !dualStack || asked.contains(.v6) {
            schedules[index].firstIPv6Send = nil
        }
        return asked
    }

    /// Records that a query went out (or that another host asked the same, RFC 6762 §7.3): the next
    /// one waits the current interval, and the interval doubles.
    mutating func markSent(on interface: InterfaceID, at now: Instant) {
        guard let index = schedules.firstIndex(where: { $0.interface == interface }) else { return }
        schedules[index].nextSend = now + schedules[index].interval
        schedules[index].interval = min(schedules[index].interval * 2, Self.maximumInterval)
    }

    mutating func forget(_ interface: InterfaceID) {
        schedules.removeAll { $0.interface == interface }
    }
}
