import CiaoEngine
import CiaoSimulation
import CiaoWire

extension SimulatedNetworkOf {
    /// What `host`'s stack reported, in order.
    public func events(of host: HostID) -> [Stack.Event] {
        events.filter { $0.host == host }.map(\.event)
    }

    /// What `host`'s stack reported, in order, with when.
    public func timedEvents(of host: HostID) -> [(time: Instant, event: Stack.Event)] {
        events.filter { $0.host == host }.map { ($0.time, $0.event) }
    }
}

extension SimulatedNetworkOf where Stack == MDNSEngine {
    /// The PTR targets `host`'s `query` has present now (added minus removed), from its events.
    public func browsed(_ query: QueryID, by host: HostID) -> Set<DomainName> {
        var present: Set<DomainName> = []
        for event in events(of: host) {
            switch event {
            case .added(query, let record, _):
                if case .ptr(let target) = record.data { present.insert(target) }
            case .removed(query, let record, _):
                if case .ptr(let target) = record.data { present.remove(target) }
            default: break
            }
        }
        return present
    }
}
