/// Who publishes a set of records: this host's name (its addresses and their reverse mappings)
/// or an entry of the registration table, a service or another host's name (RFC 6762 §8). The
/// host orders first, then the entries by registration.
enum RecordOwner: Hashable, Comparable {
    case host
    case registration(RegistrationID)

    /// The registration's ID; nil for the host.
    var registrationID: RegistrationID? {
        if case .registration(let id) = self { return id }
        return nil
    }

    static func < (lhs: RecordOwner, rhs: RecordOwner) -> Bool {
        switch (lhs, rhs) {
        case (.host, .host), (.registration, .host): false
        case (.host, .registration): true
        case (.registration(let left), .registration(let right)): left < right
        }
    }
}
