/// Who publishes a set of records: the host name (its addresses and their reverse mappings) or
/// one registered service (RFC 6762 §8). The host orders first, then services by registration.
enum RecordOwner: Hashable, Comparable {
    case host
    case service(RegistrationID)

    /// The service's ID; nil for the host.
    var serviceID: RegistrationID? {
        if case .service(let id) = self { return id }
        return nil
    }

    static func < (lhs: RecordOwner, rhs: RecordOwner) -> Bool {
        switch (lhs, rhs) {
        case (.host, .host), (.service, .host): false
        case (.host, .service): true
        case (.service(let left), .service(let right)): left < right
        }
    }
}
