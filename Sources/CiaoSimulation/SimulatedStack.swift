import CiaoEngine

/// What a simulated host runs: ``MDNSEngine`` alone, or a driver that owns one. The same calls
/// production makes, so a simulation runs exactly what ships.
public protocol SimulatedStack {
    /// What the stack reports to its user.
    associatedtype Event
    /// The engine the stack runs, for tests to look into (its cache, its names).
    var engine: MDNSEngine { get }
    /// When ``advance(to:)`` is due next.
    var nextDeadline: Instant? { get }
    mutating func setInterface(_ interface: NetworkInterface, at now: Instant)
    mutating func removeInterface(_ id: InterfaceID, at now: Instant)
    /// Handles one received datagram; returns why it was ignored, if it was.
    mutating func receive(_ datagram: ReceivedDatagram, at now: Instant) -> DropReason?
    mutating func advance(to now: Instant)
    /// The events since the last call, in order.
    mutating func takeEvents() -> [Event]
    mutating func takeDatagrams() -> [OutgoingDatagram]
    /// Says that the datagrams last taken left at `now`, as the runtime does after sending them.
    mutating func noteSent(at now: Instant)
}

extension MDNSEngine: SimulatedStack {
    public var engine: MDNSEngine { self }
}
