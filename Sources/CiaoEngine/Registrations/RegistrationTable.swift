import CiaoWire

/// The host name and the services the engine publishes (RFC 6762 §8), with who answers for the
/// host name on this host (§15) and the services found by every name they publish under. Every
/// change goes through this table's methods, which keep that index in step.
struct RegistrationTable {
    /// The host name's registration: always present, whether the name is claimed or not; changed
    /// through the subscript, as a service is.
    private(set) var host: Registration
    /// Whether the host name is published now, by us or by another responder on this host; it
    /// changes only through the host claim's transitions below.
    private(set) var hostClaim: HostClaim = .unneeded
    /// The host name last reported settled (``EngineEvent/hostRenamed(from:to:)``).
    private(set) var reportedHostName: DomainName
    private var byID: [RegistrationID: Registration] = [:]
    /// Registration IDs (services, other hosts' names) by every name in their
    /// ``Registration/publishedNames``, each list ascending.
    private var byName: [DomainName: [RegistrationID]] = [:]
    private var nextNumber = 1
    /// How many registrations name this host (``Registration/namesThisHost``).
    private var namingThisHost = 0
    /// The earliest ``Registration/nextDue`` among the services, while it is known: a change that
    /// may have moved it later makes it unknown until ``settleNextServiceDue()``.
    private var earliestServiceDue: Instant?
    private var earliestServiceDueIsKnown = true

    init(host: Registration) {
        self.host = host
        reportedHostName = host.name
    }

    // MARK: The host name

    /// True when the host's records are ours to publish (probing or not).
    var ownsHostName: Bool { hostClaim == .owned }

    /// True when a service may announce: the host name is ours and probed, or another responder on
    /// this host answers for it.
    var hostNameIsSettled: Bool {
        switch hostClaim {
        case .unneeded: false
        case .owned: !host.isProbing
        case .heldByAnother: true
        }
    }

    /// True when the host's goodbyes are owed: its name is ours and was announced (§10.1).
    var owesHostGoodbyes: Bool { ownsHostName && host.hasAnnounced }

    /// When the hold of another responder on the host name is to be confirmed or has expired.
    var hostClaimDeadline: Instant? {
        guard case .heldByAnother(let confirmAt, let expiresAt) = hostClaim else { return nil }
        return min(confirmAt, expiresAt)
    }

    /// Makes the host name ours, its claim started afresh: probing from `firstProbe`, or once an
    /// interface comes if nil (§8.1).
    mutating func claimHostName(probingFrom firstProbe: Instant?) {
        hostClaim = .owned
        host.restartClaim()
        if let firstProbe { host.startProbing(at: firstProbe) }
    }

    /// Leaves the host name to the responder on this host that answers for it, until
    /// `expiresAt`, asking again at `confirmAt` (§15).
    mutating func leaveHostName(confirmAt: Instant, expiresAt: Instant) {
        hostClaim = .heldByAnother(confirmAt: confirmAt, expiresAt: expiresAt)
    }

    /// Notes that the holder of the host name was asked again: its hold ends at its expiry unless
    /// an answer renews it.
    mutating func noteHostNameHolderAsked() {
        guard case .heldByAnother(_, let expiresAt) = hostClaim else { return }
        hostClaim = .heldByAnother(confirmAt: expiresAt, expiresAt: expiresAt)
    }

    /// Stops publishing the host name: no registration names this host.
    mutating func releaseHostName() {
        hostClaim = .unneeded
    }

    /// The rename of the host name since it was last reported, now taken as reported; nil when it
    /// has its reported name.
    mutating func takeHostRename() -> (from: DomainName, to: DomainName)? {
        guard host.name != reportedHostName else { return nil }
        defer { reportedHostName = host.name }
        return (reportedHostName, host.name)
    }

    // MARK: The services

    /// True while a registration names this host (``Registration/namesThisHost``): a service
    /// whose SRV record points here. Only then is the host name claimed (RFC 6762 §8.1); a service
    /// on another host, or another host's name, needs none of this host's records.
    var needsHostName: Bool { namingThisHost > 0 }

    /// The services, in no particular order.
    var services: Dictionary<RegistrationID, Registration>.Values { byID.values }

    /// When the first probe or announcement of a service is due, if one is. Kept while no change
    /// can have moved it, so that neither the engine's `nextDeadline` nor a received datagram looks
    /// at every service; while unknown, each call looks.
    var nextServiceDue: Instant? {
        earliestServiceDueIsKnown ? earliestServiceDue : byID.values.reduce(nil) { earlier($0, $1.nextDue) }
    }

    /// Finds ``nextServiceDue`` again if a change since may have moved it, and keeps it.
    mutating func settleNextServiceDue() {
        guard !earliestServiceDueIsKnown else { return }
        earliestServiceDue = nextServiceDue
        earliestServiceDueIsKnown = true
    }

    /// The IDs of the registrations for which `isIncluded` holds, ascending.
    func ids(where isIncluded: (Registration) -> Bool) -> [RegistrationID] {
        byID.compactMap { id, registration in isIncluded(registration) ? id : nil }.sorted()
    }

    /// The registration `owner` names; nil for a service that is gone. Setting a service to nil
    /// removes it; the host cannot be removed, so setting it to nil changes nothing.
    subscript(owner: RecordOwner) -> Registration? {
        get {
            switch owner {
            case .host: host
            case .registration(let id): byID[id]
            }
        }
        set {
            switch owner {
            case .host:
                if let newValue { host = newValue }
            case .registration(let id):
                if let newValue { replace(id, with: newValue) } else { remove(id) }
            }
        }
    }

    /// Adds a service or another host's name under the next unused ID.
    mutating func add(_ registration: Registration) -> RegistrationID {
        let id = RegistrationID(rawValue: nextNumber)
        nextNumber += 1
        byID[id] = registration
        noteDueChange(from: nil, to: registration.nextDue)
        noteNamingChange(from: nil, to: registration)
        // IDs only grow: appended, each list stays ascending.
        for name in registration.publishedNames { byName[name, default: []].append(id) }
        return id
    }

    /// Removes a service; returns it, or nil if it was not here.
    @discardableResult
    mutating func remove(_ id: RegistrationID) -> Registration? {
        guard let registration = byID.removeValue(forKey: id) else { return nil }
        noteDueChange(from: registration.nextDue, to: nil)
        noteNamingChange(from: registration, to: nil)
        removeFromIndex(id, from: registration.publishedNames)
        return registration
    }

    /// Applies `change` to every service in place.
    mutating func updateEach(_ change: (inout Registration) -> Void) {
        for index in byID.values.indices {
            let names = byID.values[index].publishedNames
            let due = byID.values[index].nextDue
            let namedThisHost = byID.values[index].namesThisHost
            change(&byID.values[index])
            noteDueChange(from: due, to: byID.values[index].nextDue)
            namingThisHost += (byID.values[index].namesThisHost ? 1 : 0) - (namedThisHost ? 1 : 0)
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
        return hostMatches + (byName[name] ?? []).map(RecordOwner.registration)
    }

    private mutating func replace(_ id: RegistrationID, with registration: Registration) {
        let replaced = byID.updateValue(registration, forKey: id)
        noteDueChange(from: replaced?.nextDue, to: registration.nextDue)
        noteNamingChange(from: replaced, to: registration)
        let names = replaced?.publishedNames ?? []
        guard registration.publishedNames != names else { return }
        removeFromIndex(id, from: names)
        addToIndex(id, under: registration.publishedNames)
    }

    /// Keeps ``nextServiceDue`` for a service whose next due time went from `old` to `new`: an
    /// earlier one may become the earliest; the earliest moving later makes it unknown.
    private mutating func noteDueChange(from old: Instant?, to new: Instant?) {
        guard earliestServiceDueIsKnown, old != new else { return }
        if old != nil && old == earliestServiceDue {
            earliestServiceDueIsKnown = false
        } else {
            earliestServiceDue = earlier(earliestServiceDue, new)
        }
    }

    /// Keeps ``needsHostName`` for a registration that went from `old` to `new` (nil: absent).
    private mutating func noteNamingChange(from old: Registration?, to new: Registration?) {
        namingThisHost += (new?.namesThisHost == true ? 1 : 0) - (old?.namesThisHost == true ? 1 : 0)
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
