import CiaoWire

/// A question asked continuously on each interface: first after 20–120 ms, then at intervals that
/// double from one second up to an hour (RFC 6762 §5.2).
struct ContinuousQuery {
    static let firstDelay: ClosedRange<Duration> = .milliseconds(20)...(.milliseconds(120))
    static let firstInterval: Duration = .seconds(1)
    static let maximumInterval: Duration = .seconds(3600)

    var name: DomainName
    var type: RecordType
    var interfaces: Set<InterfaceID>?
    /// When the next query goes out on each interface.
    private(set) var nextSends: [InterfaceID: Instant] = [:]
    /// The interval after the next query, per interface.
    private var intervals: [InterfaceID: Duration] = [:]

    init(name: DomainName, type: RecordType, interfaces: Set<InterfaceID>?) {
        self.name = name
        self.type = type
        self.interfaces = interfaces
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
        nextSends[interface] = first
        intervals[interface] = Self.firstInterval
    }

    func isDue(on interface: InterfaceID, at now: Instant) -> Bool {
        nextSends[interface].map { $0 <= now } ?? false
    }

    /// Records that a query went out (or that another host asked the same, RFC 6762 §7.3): the next
    /// one waits the current interval, and the interval doubles.
    mutating func markSent(on interface: InterfaceID, at now: Instant) {
        guard let interval = intervals[interface] else { return }
        nextSends[interface] = now + interval
        intervals[interface] = min(interval * 2, Self.maximumInterval)
    }

    mutating func forget(_ interface: InterfaceID) {
        nextSends[interface] = nil
        intervals[interface] = nil
    }
}
