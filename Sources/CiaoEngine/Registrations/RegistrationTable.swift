import CiaoWire

/// The host name and the services the engine publishes (RFC 6762 §8), with the services found by
/// every name they publish under. Every change goes through this table's methods, which keep that
/// index in step.
struct RegistrationTable {
    /// The host name's registration: always present, whether the name is claimed or not.
    var host: Registration
    private var byID: [RegistrationID: Registration] = [:]
    /// Service IDs by every name in their ``Registration/publishedNames``, each list ascending.
    private var byName: [DomainName: [RegistrationID]] = [:]
    private var nextNumber = 1

    init(host: Registration) {
        self.host = host
    }

    /// True when no service is registered.
    var isEmpty: Bool { byID.isEmpty }

    /// The services, in no particular order.
    var services: Dictionary<RegistrationID, Registration>.Values { byID.values }

    /// The IDs of the services for which `isIncluded` holds, ascending.
    func ids(where isIncluded: (Registration) -> Bool) -> [RegistrationID] {
        byID.compactMap { id, registration in isIncluded(registration) ? id : nil }.sorted()
    }

    /// The registration `owner` names; nil for a service that is gone. Setting a service to nil
    /// removes it; the host cannot be removed, so setting it to nil changes nothing.
    subscript(owner: RecordOwner) -> Registration? {
        get {
            switch owner {
            case .host: host
            case .service(let id): byID[id]
            }
        }
        set {
            switch owner {
            case .host:
                if let newValue { host = newValue }
            case .service(let id):
                if let newValue { replace(id, with: newValue) } else { remove(id) }
            }
        }
    }

    /// Adds a service under the next unused ID.
    mutating func add(_ registration: Registration) -> RegistrationID {
        let id = RegistrationID(rawValue: nextNumber)
        nextNumber += 1
        byID[id] = registration
        // IDs only grow: appended, each list stays ascending.
        for name in registration.publishedNames { byName[name, default: []].append(id) }
        return id
    }

    /// Removes a service; returns it, or nil if it was not here.
    @discardableResult
    mutating func remove(_ id: RegistrationID) -> Registration? {
        guard let registration = byID.removeValue(forKey: id) else { return nil }
        removeFromIndex(id, from: registration.publishedNames)
        return registration
    }

    /// Applies `change` to every service in place.
    mutating func updateEach(_ change: (inout Registration) -> Void) {
        for index in byID.values.indices {
            let names = byID.values[index].publishedNames
            change(&byID.values[index])
            let renamed = byID.values[index].publishedNames
            guard renamed != names else { continue }
            let id = byID.keys[index]
            removeFromIndex(id, from: names)
            addToIndex(id, under: renamed)
        }
    }

    /// The host, if `includingHost`, and the services that publish records under `name`, in
    /// ``RecordOwner`` order.
    func owners(publishing name: DomainName, includingHost: Bool) -> [RecordOwner] {
        let hostMatches: [RecordOwner] = includingHost && host.publishes(name) ? [.host] : []
        return hostMatches + (byName[name] ?? []).map(RecordOwner.service)
    }

    private mutating func replace(_ id: RegistrationID, with registration: Registration) {
        let names = byID.updateValue(registration, forKey: id)?.publishedNames ?? []
        guard registration.publishedNames != names else { return }
        removeFromIndex(id, from: names)
        addToIndex(id, under: registration.publishedNames)
    }

    private mutating func addToIndex(_ id: RegistrationID, under names: Set<DomainName>) {
        for name in names {
            var ids = byName[name, default: []]
            ids.insert(id, at: ids.firstIndex { $0 > id } ?? ids.endIndex)
            byName[name] = ids
        }
    }

    private mutating func removeFromIndex(_ id: RegistrationID, from names: Set<DomainName>) {
        for name in names {
            byName[name]?.removeAll { $0 == id }
            if byName[name]?.isEmpty == true { byName[name] = nil }
        }
    }
}
