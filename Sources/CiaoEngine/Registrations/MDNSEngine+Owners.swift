import CiaoWire

/// Which of our registrations publish a name or a record: the questions, probes and responses
/// received name a few records, found through the registration table's index by name.
extension MDNSEngine {
    /// The host (while the name is ours) and the registrations (services, other hosts' names)
    /// that publish records under `name`, in ``RecordOwner`` order.
    func owners(publishing name: DomainName) -> [RecordOwner] {
        registrations.owners(publishing: name, includingHost: registrations.ownsHostName)
    }

    /// The owners publishing under any of `names`, each once, in ``RecordOwner`` order.
    func owners(publishingAnyOf names: Set<DomainName>) -> [RecordOwner] {
        Set(names.flatMap { owners(publishing: $0) }).sorted()
    }

    /// Whether the host or a service publishes `record` on `interface` as it is, with any TTL; if
    /// `answering`, only one that may answer (not probing). A PTR is looked up through the name it
    /// points to, which one or two registrations publish, not through its own name, which every
    /// service of its type publishes.
    func publishes(_ record: ResourceRecord, on interface: NetworkInterface, answering: Bool) -> Bool {
        let name = if case .ptr(let target) = record.data { target } else { record.name }
        return owners(publishing: name).contains { owner in
            guard let registration = registrations[owner], registration.appliesTo(interface.id),
                !(answering && registration.isProbing)
            else { return false }
            return registration.records(hostName: registrations.host.name, interface: interface).contains {
                $0.isSameRecord(as: record)
            }
        }
    }

    /// The registrations that may answer for `name`: those publishing under it and not probing.
    func answeringRegistrations(publishing name: DomainName) -> [Registration] {
        owners(publishing: name).compactMap { owner in
            registrations[owner].flatMap { $0.isProbing ? nil : $0 }
        }
    }
}
