import CiaoWire

/// Finding our registrations by name: a query, a probe or a response names a few records, and
/// with a thousand services a scan of every registration per record costs more than the rest of
/// the answer.
extension MDNSEngine {
    /// Rebuilds ``registrationsByName`` if registrations changed since it was built.
    mutating func refreshRegistrationIndex() {
        guard registrationIndexIsStale else { return }
        var index: [DomainName: [RegistrationID]] = [:]
        for (id, registration) in registrations {
            for name in registration.publishedNames { index[name, default: []].append(id) }
        }
        for name in index.keys { index[name]!.sort() }
        registrationsByName = index
        registrationIndexIsStale = false
    }

    /// The host (as `nil`, while the name is ours) and the services that publish records under
    /// `name`, in registration order. Correct even while the index is stale (it then scans), fast
    /// once it is fresh.
    func registrationIDs(publishing name: DomainName) -> [RegistrationID?] {
        let hostMatches: [RegistrationID?] = ownsHostName && host.publishes(name) ? [nil] : []
        guard registrationIndexIsStale else {
            return hostMatches + (registrationsByName[name] ?? []).map { Optional($0) }
        }
        return hostMatches
            + registrations.keys.sorted().filter { registrations[$0]!.publishes(name) }
            .map { Optional($0) }
    }

    /// The host and the services publishing under any of `names`, each once, host first, then in
    /// registration order.
    func registrationIDs(publishingAnyOf names: Set<DomainName>) -> [RegistrationID?] {
        Set(names.flatMap { registrationIDs(publishing: $0) }).sorted { ($0?.rawValue ?? 0) < ($1?.rawValue ?? 0) }
    }

    /// Whether the host or a service publishes `record` on `interface` as it is, with any TTL; if
    /// `answering`, only one that may answer (not probing). A PTR is looked up through the name it
    /// points to, which one or two registrations publish, not through its own name, which every
    /// service of its type publishes.
    func publishes(_ record: ResourceRecord, on interface: NetworkInterface, answering: Bool) -> Bool {
        let name = if case .ptr(let target) = record.data { target } else { record.name }
        return registrationIDs(publishing: name).contains { id in
            guard let registration = id.map({ registrations[$0] }) ?? host, registration.appliesTo(interface.id),
                !(answering && isProbing(registration))
            else { return false }
            return registration.records(hostName: host.name, interface: interface).contains {
                $0.isSameRecord(as: record)
            }
        }
    }

    /// The registrations that may answer for `name`: those publishing under it and not probing.
    func answeringRegistrations(publishing name: DomainName) -> [Registration] {
        registrationIDs(publishing: name).compactMap { id in
            let registration = id.map { registrations[$0] } ?? host
            return registration.flatMap { isProbing($0) ? nil : $0 }
        }
    }
}
