/// What a ``DiscoverySession`` reports, in order: `started` first, `stopped` last; for each
/// service `found` before any `resolved` or `resolutionFailed`, and nothing after its `removed`.
public enum DiscoveryEvent: Equatable, Hashable, Sendable {
    /// The browse has begun; always the first event.
    case started
    /// A service instance appeared: a PTR record for it arrived (RFC 6763 §4.1). Its
    /// `interfaceIndex` is the interface it was seen on; on several interfaces it is found once
    /// on each.
    case found(Service)
    /// A found service went away: it said goodbye, its PTR record expired, or its interface went
    /// away (RFC 6762 §10). Nothing more is reported for it unless it is found again.
    case removed(Service)
    /// Host, port, addresses and TXT of a found service; reported again when any of them change.
    case resolved(ResolvedService)
    /// The automatic resolution of a found service failed: no answer within the resolution
    /// timeout (`timedOut`, or ``CiaoError/noUsableInterface``). It is not retried.
    case resolutionFailed(Service, CiaoError)
    /// ``DiscoverySession/stop()`` ended the session; the last event, after which
    /// ``DiscoverySession/events`` finishes.
    case stopped
}
