/// What a ``DiscoverySession`` reports, in order: `started` first, `stopped` last; for each
/// service `found` before any `resolved` or `resolutionFailed`, and nothing after its `removed`.
public enum DiscoveryEvent: Equatable, Hashable, Sendable {
    case started
    case found(Service)
    case removed(Service)
    /// Host, port, addresses and TXT of a found service; reported again when any of them change.
    case resolved(ResolvedService)
    case resolutionFailed(Service, CiaoError)
    case stopped
}
