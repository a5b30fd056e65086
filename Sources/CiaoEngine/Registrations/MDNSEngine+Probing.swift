import CiaoWire

/// The responder's ownership of names: probing, announcing, conflicts and goodbyes
/// (RFC 6762 §8, §9, §10.1).
extension MDNSEngine {
    static let firstProbeDelay: ClosedRange<Duration> = .zero...(.milliseconds(250))
    /// After this many conflicts within ``conflictWindow``, wait ``conflictBackoff`` between probes (§8.1).
    static let conflictLimit = 15
    static let conflictWindow: Duration = .seconds(10)
    static let conflictBackoff: Duration = .seconds(5)

    /// When a new probe sequence starts: 0–250 ms from now, shared with any registration that has
    /// not sent its first probe yet, so registrations made together probe together (§8.1).
    mutating func firstProbeTime(at now: Instant) -> Instant {
        if registrations.ownsHostName, let first = registrations.host.firstProbe, first >= now { return first }
        if let first = registrations.services.lazy.compactMap(\.firstProbe).first(where: { $0 >= now }) {
            return first
        }
        return now + random.duration(in: Self.firstProbeDelay)
    }

    /// Probes every name again, as on a new interface (§8.1).
    mutating func restartProbing(at now: Instant) {
        let start = firstProbeTime(at: now)
        if registrations.ownsHostName { registrations[.host]?.startProbing(at: start) }
        registrations.updateEach { $0.startProbing(at: start) }
    }

    /// Sends the probes and announcements due at `now`, aggregated per interface and family.
    mutating func advanceRegistrations(at now: Instant) {
        registrations.settleNextServiceDue()
        guard let earliest = deadline(of: .registrations), earliest <= now else { return }
        defer { registrations.settleNextServiceDue() }
        var probing: [Registration] = []
        var announcing: [Registration] = []
        var hostNameSettled = false
        var newlyRegistered: [RegistrationID] = []
        // Only names with a probe or announcement due: established ones (most of them, with many
        // services) are neither copied nor written back.
        let due = registrations.ids { $0.isDue(at: now) }.map(RecordOwner.registration)
        let owners = (registrations.ownsHostName && registrations.host.isDue(at: now) ? [RecordOwner.host] : []) + due
        for owner in owners {
            guard var registration = registrations[owner] else { continue }
            switch registration.state {
            case .probing(let sent, let next) where next <= now:
                if !interfaces.contains(where: registration.appliesTo) {
                    // Nowhere to probe: the name is not ours until probes have gone out (§8.1).
                    registration.waitForInterface()
                } else if sent < Registration.probeCount {
                    probing.append(registration)
                    registration.probeSent(nextAt: now + Registration.probeInterval)
                } else if !isTargetSettled(of: registration) {
                    // A service's SRV record names a host: announce it only once that host's name
                    // is ours too, when we publish it, so that no one resolves it to a name we may
                    // still lose.
                    registration.holdProbing(until: now + Registration.probeInterval)
                } else {
                    // Three probes without conflict: the name is ours (§8.3).
                    registration.won(at: now)
                    if let id = owner.registrationID, !registration.hasReportedRegistered {
                        registration.reportRegistered()
                        newlyRegistered.append(id)
                    }
                    if owner == .host { hostNameSettled = true }
                }
            default:
                break
            }
            if registration.isAnnouncing && registration.isDue(at: now) {
                // As it is announced: the last announcement forgets which types it carries.
                announcing.append(registration)
                registration.announcementSent(at: now)
            }
            registrations[owner] = registration
        }
        if hostNameSettled {
            // Their SRV records name the new host name: announced again with it (§8.4).
            for id in reportHostNameIfRenamed() {
                guard var registration = registrations[.registration(id)] else { continue }
                registration.announceAgain(sent: 1, at: now + .seconds(1))
                registrations[.registration(id)] = registration
                announcing.append(registration)
            }
        }
        for id in newlyRegistered {
            guard let registration = registrations[.registration(id)] else { continue }
            ownRecordReports.noteChanged(registration.publishedNames)
            events.append(.registered(id, name: registration.name))
        }
        // By id, taking only each interface's description: a copy of its whole state would make
        // the last-multicast table copy itself when the announcements below update it.
        for interface in interfaces.networkInterfaces {
            let probes = probing.filter { $0.appliesTo(interface.id) }
            if !probes.isEmpty {
                // Each probe carries the proposal in Authority and asks about each name proposed
                // (the host's reverse names too) and another host's reverse names, for a unicast
                // reply (§8.1) over the families where one reaches us (§15.1).
                let proposals = probes.map {
                    (
                        records: $0.probeRecords(hostName: registrations.host.name, interface: interface),
                        reverseNames: $0.reverseNamesAskedAboutWhileProbing
                    )
                }
                let proposed = proposals.flatMap(\.records)
                var asked: Set<DomainName> = []
                let names = proposals.flatMap { records, reverseNames in records.map(\.name) + reverseNames }
                    .filter { asked.insert($0).inserted }
                for family in interface.families {
                    let unicastResponse = unicastReplyFamilies.contains(family)
                    var message = Message(
                        questions: names.map { Question(name: $0, type: .any, unicastResponse: unicastResponse) },
                        authorities: proposed)
                    message.header.id = 0
                    send(message, on: interface.id, to: .multicast(family), purpose: .probe)
                }
            }
            let announcements = announcing.filter { $0.appliesTo(interface.id) }
            if !announcements.isEmpty {
                let records = UniqueRecords(
                    announcements.flatMap { registration in
                        registration.records(hostName: registrations.host.name, interface: interface).filter {
                            registration.announcedTypes?.contains($0.type) ?? true
                        }
                    }
                ).records
                // An announcement leaves out what an answer multicast within the last second: it
                // is fresh in every cache, and going again would break the once-a-second rule (§6).
                for family in interface.families {
                    let due = records.filter {
                        !wasMulticast($0, on: interface.id, family: family, within: Self.multicastInterval, at: now)
                    }
                    send(
                        Message(header: .response(), answers: due), on: interface.id, to: .multicast(family),
                        purpose: .announcement)
                    noteMulticast(due, on: interface.id, family: family, at: now)
                }
            }
        }
    }

    /// Goodbyes for the records of withdrawn registrations, in as few packets as fit, keeping the
    /// shared records (a type's PTR under `_services._dns-sd._udp`, subtype PTRs) that registrations
    /// still published use too.
    mutating func sendGoodbyes(for withdrawn: [Registration]) {
        guard !withdrawn.isEmpty else { return }
        for interface in interfaces.networkInterfaces {
            let id = interface.id
            var considered = UniqueRecords()
            var goodbyes: [ResourceRecord] = []
            for registration in withdrawn where registration.appliesTo(id) {
                for record in registration.records(hostName: registrations.host.name, interface: interface)
                where considered.insert(record) {
                    // Only PTRs are shared between registrations.
                    if !record.cacheFlush && publishes(record, on: interface, answering: false) { continue }
                    goodbyes.append(record)
                }
            }
            multicastGoodbyes(for: goodbyes, on: interface)
        }
    }

    /// Multicasts goodbyes for `records` on `interface` (§10.1) and takes them out of the answers
    /// waiting there: sent after the goodbye, they would bring the records back into every cache.
    mutating func multicastGoodbyes(for records: [ResourceRecord], on interface: NetworkInterface) {
        guard !records.isEmpty else { return }
        multicast(Message(header: .response(), answers: records.map(\.goodbye)), on: interface, purpose: .goodbye)
        let keys = Set(records.map(RecordKey.init))
        interfaces[interface.id]?.responses.takeAnswers { keys.contains(RecordKey($0)) }
    }

    // MARK: Conflicts

    /// Checks a response for records that conflict with names we own or are probing (§8.1, §9).
    mutating func detectConflicts(
        in message: Message, from source: SocketAddress, on interface: NetworkInterface, at now: Instant
    ) {
        yieldContestedReverseNames(in: message.answers + message.additionals)
        let names = Set((message.answers + message.additionals).map(\.name))
        for owner in owners(publishingAnyOf: names) {
            guard let registration = registrations[owner], names.contains(registration.name)
            else { continue }
            let ours = Set(
                registration.records(hostName: registrations.host.name, interface: interface).map(RecordKey.init))
            let ourTypes = Set(ours.map(\.data.type))
            let conflicting = (message.answers + message.additionals).contains { record in
                // §9: a conflict is a record of our name and class IN with other data; the other
                // family's copy of the answer that sent us back to probing is the same answer.
                guard record.name == registration.name, record.rrClass == .internet, record.ttl > 0,
                    !ours.contains(RecordKey(record)), !registration.isReprobing(after: record)
                else { return false }
                // The host name conflicts only over addresses, and never with another responder
                // on this host publishing this host's own (§15).
                if owner == .host { return isForeignAddressRecord(record) }
                // While probing any record with our name is a conflict; afterwards, only a
                // different answer for one of our unique types (§9).
                return registration.isProbing
                    || (ourTypes.contains(record.type) && record.type != .ptr && record.type != .nsec)
            }
            guard conflicting else { continue }
            let whileProbing = registration.isProbing
            diagnose(.conflict(name: registration.name, from: source, on: interface.id, whileProbing: whileProbing))
            if registration.isProbing {
                rename(owner, at: now)
            } else {
                // §9: reset to probing; a real owner will defend and we rename then.
                let records = (message.answers + message.additionals).filter { $0.name == registration.name }
                var reprobing = registration
                reprobing.reprobe(
                    after: Set(records.map(RecordKey.init)), at: now + random.duration(in: Self.firstProbeDelay))
                registrations[owner] = reprobing
            }
        }
    }

    /// Simultaneous probe tie-breaking (§8.2) and defence of established names against probes.
    mutating func handleProbe(
        _ message: Message, from source: SocketAddress, on interface: NetworkInterface, at now: Instant
    ) {
        let family = source.address.family
        yieldContestedReverseNames(in: message.authorities)
        let names = Set(message.authorities.map(\.name))
        for owner in owners(publishingAnyOf: names) {
            guard let registration = registrations[owner] else { continue }
            // Another responder on this host proposing this host's own addresses for the host
            // name is no rival: both may publish them (§15).
            let theirs = message.authorities.filter {
                $0.name == registration.name && $0.rrClass == .internet
                    && (owner != .host || isForeignAddressRecord($0))
            }
            guard !theirs.isEmpty else { continue }
            let ours = registration.probeRecords(hostName: registrations.host.name, interface: interface).filter {
                $0.name == registration.name
            }
            switch registration.state {
            case .probing, .waitingForInterface:
                // The lexicographically later set wins; on a loss, wait a second and probe again.
                if Self.compareProbeRecords(ours, theirs) < 0 {
                    diagnose(.lostProbeTieBreak(name: registration.name, from: source, on: interface.id))
                    registrations[owner]?.startProbing(at: now + .seconds(1))
                }
            case .announcing, .established:
                guard Set(ours.map(RecordKey.init)) != Set(theirs.map(RecordKey.init)) else { continue }
                // A QU probe asks for the defence by unicast, at once (§8.1): mDNSResponder takes
                // a multicast one for a possibly spurious conflict and waits a second before it
                // probes again, a unicast one for the real thing.
                let asksUnicast = message.questions.contains { $0.name == registration.name && $0.unicastResponse }
                defend(ours, on: interface.id, family: family, unicastTo: asksUnicast ? source : nil, at: now)
            }
        }
    }

    /// Orders two probe record sets as RFC 6762 §8.2 does: sorted by class, type and raw RDATA,
    /// then compared record by record; a set that runs out first is the lesser.
    static func compareProbeRecords(_ ours: [ResourceRecord], _ theirs: [ResourceRecord]) -> Int {
        func sortKey(_ record: ResourceRecord) -> [UInt8] {
            let fixed = [
                UInt8(record.rrClass.rawValue >> 8), UInt8(record.rrClass.rawValue & 0xFF),
                UInt8(record.type.rawValue >> 8), UInt8(record.type.rawValue & 0xFF),
            ]
            return fixed + record.data.uncompressedBytes
        }
        let left = ours.map(sortKey).sorted { $0.lexicographicallyPrecedes($1) }
        let right = theirs.map(sortKey).sorted { $0.lexicographicallyPrecedes($1) }
        for (a, b) in zip(left, right) where a != b {
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// Renames after a conflict and probes again, slowing down after repeated conflicts (§8.1, §9).
    private mutating func rename(_ owner: RecordOwner, at now: Instant) {
        guard var registration = registrations[owner] else { return }
        let oldName = registration.name
        if owner != .host { ownRecordReports.noteChanged(registration.publishedNames) }
        if let id = owner.registrationID, !registration.allowsRenaming {
            registrations.remove(id)
            events.append(.nameConflict(id, name: oldName))
            releaseHostNameIfUnneeded(at: now)
            return
        }
        // §8.1: after 15 conflicts in 10 s, wait 5 s before *each* further attempt — for as long
        // as conflicts keep coming (a 10-second window alone would allow a burst every 10 s).
        registration.noteConflict(at: now, window: Self.conflictWindow, limit: Self.conflictLimit)
        var label =
            owner == .host
            ? InstanceNamer.nextHostLabel(after: registration.label)
            : InstanceNamer.nextInstanceName(after: registration.label)
        // This host's name passes over the names of other hosts it publishes for (proxies), whose
        // clash its own probes would never show, and those its services on other hosts point to.
        while owner == .host, let name = try? DomainName(labels: [label, "local"]),
            registrations.services.contains(where: { $0.otherHost == name })
        {
            label = InstanceNamer.nextHostLabel(after: label)
        }
        let delay =
            registration.isThrottled ? Self.conflictBackoff : random.duration(in: Self.firstProbeDelay)
        registration.rename(to: label, probingAt: now + delay)
        registrations[owner] = registration
        if let id = owner.registrationID {
            events.append(.renamed(id, from: oldName, to: registration.name))
        } else {
            ownRecordReports.noteEverythingChanged()
            // Another responder on this host may hold the new name already. The rename is
            // reported, and the services announced again, once the new name is settled.
            askWhoHoldsHostName()
        }
    }

    /// Whether the host `registration`'s SRV record names is settled: this host's name once ours,
    /// another host's name we publish for it (a proxy) once probed, and a host that answers for
    /// itself at once. True for what is not a service.
    private func isTargetSettled(of registration: Registration) -> Bool {
        guard let service = registration.service else { return true }
        guard let target = service.hostName else { return registrations.hostNameIsSettled }
        return !owners(publishing: target).contains { owner in
            guard let otherHost = registrations[owner], case .otherHost = otherHost.kind else { return false }
            return otherHost.name == target && otherHost.isProbing
        }
    }

    /// Reports a host name settled under another name than last reported; returns the established
    /// services whose SRV records name this host, and so now the new name, to be announced again
    /// (§8.4).
    mutating func reportHostNameIfRenamed() -> [RegistrationID] {
        guard let rename = registrations.takeHostRename() else { return [] }
        events.append(.hostRenamed(from: rename.from, to: rename.to))
        return registrations.ids { $0.state == .established && $0.namesThisHost }
    }
}
