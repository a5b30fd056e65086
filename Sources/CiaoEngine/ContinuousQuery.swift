import CiaoWire

/// A question asked continuously on each interface: first after 20–120 ms, then at intervals that
/// double from one second up to an hour (RFC 6762 §5.2).
struct ContinuousQuery {
    static let firstDelay: ClosedRange<Duration> = .milliseconds(20)...(.milliseconds(120))
    static let firstInterval: Duration = .seconds(1)
    static let maximumInterval: Duration = .seconds(3600)

    /// One interface's schedule: when the next query goes out, and the interval after it.
    struct InterfaceSchedule {
        var interface: InterfaceID
        var nextSend: Instant
        var interval: Duration
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
        schedules.append(InterfaceSchedule(interface: interface, nextSend: first, interval: Self.firstInterval))
    }

    func isDue(on interface: InterfaceID, at now: Instant) -> Bool {
        schedules.contains { $0.interface == interface && $0.nextSend <= now }
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
