/// What a backend reports about something a ``BackendToken`` started: the value the driver hands
/// out, which the runtime passes to that token's callback.
enum BackendUpdate: Hashable, Sendable {
    case publication(BackendToken, PublicationUpdate)
    /// One batch of a browse's changes, in order.
    case browse(BackendToken, [BrowseUpdate])
    case resolved(BackendToken, ResolvedService)
    /// A service type found by type enumeration, once.
    case serviceType(BackendToken, ServiceType)
    /// One batch of a lookup's record changes, in order.
    case records(BackendToken, [RecordEvent])

    /// The token of what the update is about.
    var token: BackendToken {
        switch self {
        case .publication(let token, _), .browse(let token, _), .resolved(let token, _), .serviceType(let token, _),
            .records(let token, _):
            token
        }
    }
}
