import CiaoWire

/// The host name is claimed only to publish, and never taken from another responder on this host
/// (RFC 6762 §15); the reverse mapping of its addresses is published but never fought over (§4).
extension MDNSEngine {
    /// A name another responder holds is asked about again at this share of its records' TTL, as
    /// a cache refresh would (§5.2).
    static let heldHostNameConfirmation = 0.8
    /// The TTLs that time the confirmation of a held name, whatever the holder sent.
    static let heldHostNameTTLs: ClosedRange<UInt32> = 10...Registration.otherRecordTTL

    /// Starts claiming the host name (§8.1): probing, and a query asking whether a responder on
    /// this host already answers for it, whose answer comes well before probing ends.
    mutating func claimHostName(at now: Instant) {
        registrations.claimHostName(probingFrom: interfaces.isEmpty ? nil : firstProbeTime(at: now))
        ownRecordReports.noteEverythingChanged()
        leaveReverseNamesToThisHost()
        askWhoHoldsHostName()
    }

    /// Gives the host name up once no registration names this host, with goodbyes for its
    /// records if they were announced and `sendingGoodbyes` (a caller may send them with its own);
    /// aliases of this host's addresses map them again, announced from `now` (§4, §8.4).
    mutating func releaseHostNameIfUnneeded(sendingGoodbyes: Bool = true, at now: Instant) {
        guard !registrations.needsHostName, registrations.hostClaim != .unneeded else { return }
        if sendingGoodbyes && registrations.owesHostGoodbyes {
            sendGoodbyes(for: [registrations.host])
        }
        registrations.releaseHostName()
        ownRecordReports.noteEverythingChanged()
        for id in registrations.ids(where: { !$0.reverseNamesLeftToThisHost.isEmpty }) {
            guard var alias = registrations[.registration(id)], alias.takeBackReverseNamesFromThisHost() else {
                continue
            }
            if !alias.isProbing && !alias.isAnnouncing { alias.announceAgain(at: now) }
            registrations[.registration(id)] = alias
        }
    }

    /// Asks every link, by multicast so that a responder sharing our port hears it too, for the
    /// host name's addresses.
    mutating func askWhoHoldsHostName() {
        let questions = [RecordType.a, .aaaa].map { Question(name: registrations.host.name, type: $0) }
        for interface in interfaces.networkInterfaces {
            multicast(Message(questions: questions), on: interface, purpose: .query)
        }
    }

    /// Confirms a name another responder holds, and claims it once its records would have expired
    /// unconfirmed.
    mutating func advanceHostClaim(at now: Instant) {
        guard case .heldByAnother(let confirmAt, let expiresAt) = registrations.hostClaim else { return }
        if now >= expiresAt {
            claimHostName(at: now)
        } else if now >= confirmAt {
            askWhoHoldsHostName()
            registrations.noteHostNameHolderAsked()
        }
    }

    /// Learns from a response who answers for the host name. Address records of this host from
    /// another responder here make it the holder while our claim is still being probed, and renew
    /// its hold; its goodbyes, or the name answered with another host's address, make us claim the
    /// name ourselves, and probing settles any conflict (§8.1, §9).
    mutating func noteHostNameHolder(in message: Message, at now: Instant) {
        guard registrations.hostClaim != .unneeded else { return }
        var local: [ResourceRecord] = []
        var foreign = false
        for record in message.answers + message.additionals where record.name == registrations.host.name {
            if isThisHostAddressRecord(record) {
                local.append(record)
            } else if isForeignAddressRecord(record) && record.ttl > 0 {
                foreign = true
            }
        }
        guard foreign || !local.isEmpty else { return }
        if foreign {
            if case .heldByAnother = registrations.hostClaim { claimHostName(at: now) }
            return
        }
        guard let ttl = local.map(\.ttl).max(), ttl > 0 else {
            // The holder said goodbye: the name is free for us.
            if case .heldByAnother = registrations.hostClaim { claimHostName(at: now) }
            return
        }
        switch registrations.hostClaim {
        case .owned where !registrations.host.isProbing, .unneeded:
            // Both of us publish the same records (§15): nothing to settle.
            return
        case .owned, .heldByAnother:
            let lifetime = Duration.seconds(Int64(ttl.clamped(to: Self.heldHostNameTTLs)))
            if registrations.ownsHostName { ownRecordReports.noteEverythingChanged() }
            registrations.leaveHostName(
                confirmAt: now + lifetime.scaled(by: Self.heldHostNameConfirmation), expiresAt: now + lifetime)
            for id in reportHostNameIfRenamed() { registrations[.registration(id)]?.announceAgain(at: now) }
        }
    }

    /// True for an A or AAAA record carrying one of this host's addresses.
    func isThisHostAddressRecord(_ record: ResourceRecord) -> Bool {
        guard let address = record.data.address else { return false }
        return interfaces.owns(address)
    }

    /// True for an A or AAAA record carrying an address that is not this host's: the only
    /// records over which the host name conflicts (§9, §15).
    func isForeignAddressRecord(_ record: ResourceRecord) -> Bool {
        record.data.address != nil && !isThisHostAddressRecord(record)
    }

    /// Leaves out our reverse-mapping PTR, this host's or another's we publish, for every name
    /// that `records` map to another host name: yielded rather than defended, since a reverse
    /// mapping is worth no rename or conflict (§4).
    mutating func yieldContestedReverseNames(in records: [ResourceRecord]) {
        for record in records where record.type == .ptr && record.ttl > 0 && record.name.isReverseMappingName {
            for owner in owners(publishing: record.name) {
                guard let registration = registrations[owner], registration.publishesReverseMapping(record.name),
                    record.data != .ptr(registration.name)
                else { continue }
                if registrations[owner]?.yieldReverseName(record.name) == true {
                    ownRecordReports.noteEverythingChanged()
                }
            }
        }
    }

    /// Brings the host's reverse-mapping names in line with the addresses published now.
    mutating func refreshReverseNames() {
        let names = Set(interfaces.states.flatMap { $0.interface.publishedAddresses.map(\.address.reverseMappingName) })
        guard names != registrations.host.reverseNames else { return }
        registrations[.host]?.mapReverse(names)
        leaveReverseNamesToThisHost()
    }

    /// While this host's name is published, by us or by another responder here, another host's
    /// mapping of an address of this host (an alias) is left to this host's own (§4); while it
    /// is not, the alias maps the address, as nobody else here does.
    mutating func leaveReverseNamesToThisHost() {
        guard registrations.hostClaim != .unneeded else { return }
        for name in registrations.host.reverseNames {
            for owner in registrations.owners(publishing: name, includingHost: false)
            where registrations[owner]?.publishesReverseMapping(name) == true {
                _ = registrations[owner]?.leaveReverseNameToThisHost(name)
                ownRecordReports.noteEverythingChanged()
            }
        }
    }

    /// True when a registration already made maps `name` back to a host name, or does but for
    /// this host's own mapping: another host's name published later leaves that mapping alone (§4).
    func isReverseMappedByARegistration(_ name: DomainName) -> Bool {
        registrations.owners(publishing: name, includingHost: false).contains {
            registrations[$0]?.holdsReverseMapping(name) == true
        }
    }
}

extension UInt32 {
    fileprivate func clamped(to range: ClosedRange<UInt32>) -> UInt32 {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
