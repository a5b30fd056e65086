/// The engine's timers: what ``MDNSEngine/advance(to:)`` runs, in this order, and each one's
/// next deadline. Records expire before queries go out, so that a query waiting for its cached
/// answer to expire asks in the same pass.
enum EngineTimer: CaseIterable {
    /// Confirming or taking a host name another responder holds (RFC 6762 §15).
    case hostClaim
    /// Probes and announcements (§8.1, §8.3).
    case registrations
    /// Aggregated answers and held truncated queries (§6, §7.2).
    case responses
    /// Expired, cache-flushed and POOFed records (§10).
    case cacheExpiry
    /// Continuous queries and cache refreshes (§5.2).
    case queries
    /// Forgetting old multicast times; it runs with whatever else is due and sets no deadline.
    case multicastSweep
}

extension MDNSEngine {
    /// When `timer` is next due; nil when it has nothing to do.
    func deadline(of timer: EngineTimer) -> Instant? {
        switch timer {
        case .hostClaim:
            registrations.hostClaimDeadline
        case .registrations:
            earlier(registrations.ownsHostName ? registrations.host.nextDue : nil, registrations.nextServiceDue)
        case .responses:
            interfaces.states.reduce(nil) { earlier($0, $1.responses.nextDue) }
        case .cacheExpiry:
            interfaces.states.reduce(nil) { earlier($0, $1.cache.nextExpiry) }
        case .queries:
            interfaces.states.reduce(queries.nextDue) { earlier($0, $1.cache.nextRefresh) }
        case .multicastSweep:
            nil
        }
    }

    /// Runs what `timer` has due at `now`.
    mutating func fire(_ timer: EngineTimer, at now: Instant) {
        switch timer {
        case .hostClaim: advanceHostClaim(at: now)
        case .registrations: advanceRegistrations(at: now)
        case .responses: sendDueResponses(at: now)
        case .cacheExpiry: expireCachedRecords(at: now)
        case .queries: sendDueQueries(at: now)
        case .multicastSweep: interfaces.forgetOldMulticasts(at: now)
        }
    }
}

/// The earlier of two deadlines, either of which may be none.
package func earlier(_ a: Instant?, _ b: Instant?) -> Instant? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}
