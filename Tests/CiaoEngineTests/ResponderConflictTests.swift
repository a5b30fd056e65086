import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Conflicts: defence, renaming, re-probing and the probe rate limit (RFC 6762 §8.1, §8.2, §9).
@Suite struct ResponderConflictTests {
    /// An established owner of `X` defends it; a newcomer probing `X` becomes `X (2)`.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8, 9, 10])
    func newcomerProbingAnOwnedNameIsRenamed(seed: UInt64) throws {
        var (network, _, owner, newcomer) = SimulatedNetwork.alphaAndBeta(
            seed: seed, conditions: .init(delay: .milliseconds(1)...(.milliseconds(4))))
        let ownerID = network.register(Services.registration("X", port: 1), on: owner)
        let newcomerID = network.register(Services.registration("X", port: 2), on: newcomer)
        let x = Names.instance("X"), x2 = Names.instance("X (2)")

        #expect(network.engine(owner).name(of: ownerID) == x)
        #expect(network.engine(newcomer).name(of: newcomerID) == x2)
        #expect(network.events(of: owner) == [.registered(ownerID, name: x)])
        #expect(
            network.events(of: newcomer) == [.renamed(newcomerID, from: x, to: x2), .registered(newcomerID, name: x2)])
        // The newcomer never announced X.
        #expect(
            !network.sentMessages(by: newcomer).contains {
                $0.isResponse && $0.message.answers.contains { $0.name == x }
            })
    }

    /// A QU probe of `X` proposing another SRV record for it.
    static let rivalProbe = Messages.probe(
        [Messages.question(Names.instance("X"), .any, qu: true)],
        proposing: [
            ResourceRecord(
                name: Names.instance("X"), cacheFlush: true, ttl: 120,
                data: .srv(SRVData(port: 9, target: Names.name("rival.local."))))
        ])

    /// A QU probe for a name we own is answered by unicast to the prober, first, and by
    /// multicast after (§8.1): mDNSResponder takes a multicast defence alone for a possibly
    /// spurious conflict and waits a second more before it renames.
    @Test func aQUProbeIsDefendedByUnicastFirst() throws {
        var (network, link, owner, prober) = SimulatedNetwork.publisherAndObserver(seed: 8)
        network.register(Services.registration("X"), on: owner)
        network.run(for: .seconds(3))
        let source = SocketAddress(network.address(of: prober, on: link, family: .v4), port: mdnsPort)
        let start = network.now
        network.inject(Self.rivalProbe, from: prober, on: link)
        network.run(for: .milliseconds(50))
        let defences = network.sentMessages(by: owner, since: start).filter { $0.answers(Names.instance("X"), .srv) }
        let first = try #require(defences.first)
        #expect(first.destination == .unicast(source))
        #expect(defences.contains { $0.isMulticast })
    }

    /// A QU probe from one of our own addresses comes from another responder on this host, which
    /// a unicast to the port we share may not reach (§15.1): the defence is multicast alone.
    @Test func aQUProbeFromThisHostIsDefendedByMulticast() throws {
        var (network, link, owner, prober) = SimulatedNetwork.publisherAndObserver(seed: 8)
        network.register(Services.registration("X"), on: owner)
        network.run(for: .seconds(3))
        let start = network.now
        network.inject(
            Self.rivalProbe, from: prober, on: link, sourceAddress: network.address(of: owner, on: link, family: .v4))
        network.run(for: .milliseconds(50))
        let defences = network.sentMessages(by: owner, since: start).filter { $0.answers(Names.instance("X"), .srv) }
        #expect(!defences.isEmpty && defences.allSatisfy(\.isMulticast), "\(defences.map(\.destination))")
    }

    /// With renaming off the newcomer reports `.nameConflict`, stops probing and never announces.
    @Test func newcomerWithoutRenamingReportsNameConflict() throws {
        var (network, _, owner, newcomer) = SimulatedNetwork.alphaAndBeta(seed: 3)
        let ownerID = network.register(Services.registration("X"), on: owner)
        let newcomerID = network.register(Services.registration("X", port: 9, allowsRenaming: false), on: newcomer)
        let x = Names.instance("X")

        let conflict = try #require(
            network.timedEvents(of: newcomer).first { $0.event == .nameConflict(newcomerID, name: x) })
        #expect(network.events(of: newcomer) == [.nameConflict(newcomerID, name: x)])
        #expect(network.engine(newcomer).name(of: newcomerID) == nil)
        #expect(network.engine(owner).name(of: ownerID) == x)
        let newcomerSent = network.sentMessages(by: newcomer)
        #expect(!newcomerSent.contains { $0.isProbe && $0.asks(about: x) && $0.time > conflict.time })
        #expect(!newcomerSent.contains { $0.isResponse && $0.allRecords.contains { $0.name == x } })
        // Nothing is left behind: no more probes, ever.
        network.run(for: .seconds(10))
        #expect(
            !network.sentMessages(by: newcomer, family: nil, since: conflict.time + .milliseconds(1)).contains {
                $0.isProbe
            })
    }

    /// After establishment, another host answering with different SRV data for our name makes us
    /// probe again (§9); if nobody defends, we keep the name and announce it again.
    @Test func oneOffConflictAfterEstablishmentReprobesAndKeepsTheName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 5)
        let id = network.register(Services.registration("Web"), on: publisher)
        let web = Names.instance("Web")
        let conflictAt = network.now
        network.inject(Messages.response([Services.conflictingSRV(for: web)]), from: observer, on: link)
        network.run(for: .seconds(5))

        let sent = network.sentMessages(by: publisher, since: conflictAt)
        let probes = sent.filter { $0.isProbe && $0.asks(about: web) }
        #expect(probes.count == 3)
        let first = try #require(probes.first)
        #expect(first.time - conflictAt <= .milliseconds(251))
        #expect(sent.contains { $0.isResponse && $0.answers(web, .srv) && $0.time > probes.last!.time })
        #expect(network.engine(publisher).name(of: id) == web)
        #expect(!network.events(of: publisher).contains { if case .renamed = $0 { true } else { false } })
    }

    /// …and if the other host keeps defending the name while we re-probe, we rename (§9).
    @Test func defendedConflictAfterEstablishmentRenames() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 6)
        let id = network.register(Services.registration("Web"), on: publisher)
        let web = Names.instance("Web"), web2 = Names.instance("Web (2)")
        let conflictAt = network.now
        network.inject(Messages.response([Services.conflictingSRV(for: web)]), from: observer, on: link)
        // The observer now defends Web against every probe.
        network.defend(until: network.now + .seconds(5), by: observer, on: link) { $0 == web }

        #expect(network.engine(publisher).name(of: id) == web2)
        let events = network.timedEvents(of: publisher).filter { $0.time >= conflictAt }.map(\.event)
        #expect(events == [.renamed(id, from: web, to: web2), .registered(id, name: web2)])
        let sent = network.sentMessages(by: publisher, since: conflictAt)
        #expect(sent.contains { $0.isProbe && $0.asks(about: web) })
        #expect(sent.filter { $0.isProbe && $0.asks(about: web2) }.count == 3)
        #expect(sent.contains { $0.isResponse && $0.answers(web2, .srv) })
        #expect(!sent.contains { $0.isResponse && $0.answers(web, .srv) && $0.message.answers.contains { $0.ttl > 0 } })
    }

    /// Two hosts that established the same name while partitioned meet again: both see the
    /// conflict, re-probe, and exactly one keeps the name (§9). What brings them together is a
    /// browse that has been asking since before the partition healed: its next query is QM with
    /// no known answer, so both answer by multicast and hear each other.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
    func healedPartitionEndsWithOneOwner(seed: UInt64) throws {
        var (network, link, owners) = Self.partitionedOwnersOfWeb(seed: seed)
        let browser = network.addHost(named: "gamma", links: [link])
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(5))
        let web = Names.instance("Web")
        #expect(owners.names(in: network) == [web], "both took the name while apart")

        network.setConditions(.init(delay: .milliseconds(1)...(.milliseconds(3))), on: link)
        network.run(for: .seconds(10))

        let names = owners.names(in: network)
        #expect(names == [web, Names.instance("Web (2)")])
        #expect(network.browsed(query, by: browser).isSuperset(of: names))
    }

    /// The same partition met by a browse that starts after it healed: its first queries are QU
    /// (§5.4), so both owners answer it by unicast and neither hears the other (a limitation that
    /// asking QU brings, mDNSResponder's querier alike). The conflict then shows
    /// when the browser refreshes the SRV it resolved, at 80 % of its 120 s TTL (§5.2): the
    /// refresh lists no known answer, both owners multicast, and each ends with a name of its own
    /// (§9; both answer the refresh at once, each over both families, so the copy over the second
    /// family can reach the other while it probes again, and both may rename).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func healedPartitionMetByANewBrowseIsResolvedByTheSRVRefresh(seed: UInt64) throws {
        var (network, link, owners) = Self.partitionedOwnersOfWeb(seed: seed)
        network.run(for: .seconds(5))

        network.setConditions(.init(delay: .milliseconds(1)...(.milliseconds(3))), on: link)
        let healedAt = network.now
        let browser = network.addHost(named: "gamma", links: [link])
        network.withStack(browser) { engine, now in
            _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
            _ = engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
        }
        network.run(for: .seconds(90))
        #expect(
            owners.names(in: network) == [Names.instance("Web")], "unicast answers alone: no owner hears the other")
        network.run(until: healedAt + .seconds(120))
        #expect(owners.names(in: network).count == 2, "\(owners.names(in: network))")
    }

    /// Two registrations of "Web", on hosts alpha and beta, and the names they hold.
    struct Owners {
        var hosts: [(host: SimulatedNetwork.HostID, registration: RegistrationID)]

        func names(in network: SimulatedNetwork) -> Set<DomainName> {
            Set(hosts.compactMap { network.engine($0.host).name(of: $0.registration) })
        }
    }

    /// Alpha and beta each register "Web" on a link that drops every packet: a partition, in
    /// which each will take the name.
    static func partitionedOwnersOfWeb(seed: UInt64) -> (SimulatedNetwork, SimulatedNetwork.LinkID, Owners) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(.init(loss: 1))
        let hosts = ["alpha", "beta"].enumerated().map { index, name in
            let host = network.addHost(named: name, links: [link])
            let id = network.withStack(host) { engine, now in
                engine.register(Services.registration("Web", port: UInt16(index + 1)), at: now)
            }
            return (host, id)
        }
        return (network, link, Owners(hosts: hosts))
    }

    /// A host-name conflict at start-up renames the newcomer's host to `alpha-2`; its service's
    /// SRV points there (§9).
    @Test func hostNameConflictRenamesTheNewcomerHost() throws {
        var network = SimulatedNetwork(seed: 8)
        let link = network.addLink()
        let owner = network.addHost(named: "alpha", links: [link])
        network.register(Services.registration("Web"), on: owner)
        let newcomer = network.addHost(named: "alpha", links: [link])
        let printer = network.register(Services.registration("Printer"), on: newcomer)
        let alpha = Names.name("alpha.local."), alpha2 = Names.name("alpha-2.local.")

        #expect(network.engine(owner).hostName == alpha)
        #expect(network.engine(newcomer).hostName == alpha2)
        #expect(network.events(of: newcomer).contains(.hostRenamed(from: alpha, to: alpha2)))
        let announced = network.sentMessages(.responses, by: newcomer).flatMap(\.message.answers)
        let targets = announced.compactMap { record -> DomainName? in
            if case .srv(let srv) = record.data, record.name == Names.instance("Printer") { return srv.target }
            return nil
        }
        #expect(!targets.isEmpty && targets.allSatisfy { $0 == alpha2 })
        #expect(!announced.contains { $0.name == alpha && $0.ttl > 0 })
        #expect(network.engine(newcomer).name(of: printer) == Names.instance("Printer"))
    }

    /// A host-name conflict after establishment, defended by the other host, renames the host
    /// and announces the services' SRV records again with the new target (§9, §8.4).
    @Test func hostNameConflictAfterEstablishmentReannouncesSRV() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 9)
        network.register(Services.registration("Web"), on: publisher)
        let alpha = Names.name("alpha.local."), alpha2 = Names.name("alpha-2.local.")
        let conflictAt = network.now
        let impostor = ResourceRecord(name: alpha, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 200)))
        network.inject(Messages.response([impostor]), from: observer, on: link)
        network.defend(until: network.now + .seconds(6), by: observer, on: link, with: impostor) {
            $0 == alpha
        }

        #expect(network.engine(publisher).hostName == alpha2)
        #expect(network.events(of: publisher).contains(.hostRenamed(from: alpha, to: alpha2)))
        let sent = network.sentMessages(by: publisher, since: conflictAt)
        let renamedAt = try #require(
            network.timedEvents(of: publisher).first { $0.event == .hostRenamed(from: alpha, to: alpha2) }?.time)
        let srvAnnouncements = sent.filter { $0.time > renamedAt && $0.isResponse }.flatMap(\.message.answers).filter {
            if case .srv(let srv) = $0.data {
                return $0.name == Names.instance("Web") && srv.target == alpha2 && $0.cacheFlush
            }
            return false
        }
        #expect(srvAnnouncements.count >= 2)
        #expect(sent.contains { $0.isResponse && $0.answers(alpha2, .a) })
    }

    /// A misbehaving host that answers every probe with conflicting records: after 15 conflicts in
    /// 10 s the responder waits at least 5 s between attempts, for as long as the storm lasts (§8.1).
    @Test func conflictStormSlowsProbingDown() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 12)
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Storm"), at: now)
        }
        let start = network.now
        network.defend(until: start + .seconds(60), by: observer, on: link) {
            $0.isSubdomain(of: Names.serviceType)
        }
        let conflicts = network.timedEvents(of: publisher).compactMap { timed -> Instant? in
            if case .renamed(id, _, _) = timed.event { return timed.time }
            return nil
        }
        let attempts = network.sentMessages(.probes, by: publisher, since: start).map(\.time)
        // Fast at first: 15 conflicts well within 10 s.
        try #require(conflicts.count > 20, "\(conflicts.count) conflicts")
        #expect(conflicts[14] - conflicts[0] < .seconds(10))
        // From the 15th conflict on, every next probe comes at least 5 s later.
        for conflict in conflicts.dropFirst(14) {
            guard let next = attempts.first(where: { $0 > conflict }) else { continue }
            #expect(next - conflict >= .seconds(5), "probe \(next - conflict) after the conflict at \(conflict)")
        }
        #expect(conflicts.count < 15 + 60 / 5 + 1)
        #expect(network.engine(publisher).name(of: id) == Names.instance("Storm (\(conflicts.count + 1))"))
    }

    /// One conflicting answer that arrives over IPv4 and again over IPv6 is one conflict: the
    /// established name goes back to probing once, and with nobody defending keeps its name (§9).
    @Test func oneAnswerOverBothFamiliesReprobesOnceAndKeepsTheName() {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 21)
        let id = network.register(Services.registration("Web"), on: publisher)
        let web = Names.instance("Web")
        let start = network.now
        let answer = Messages.response([Services.conflictingSRV(for: web)])
        network.inject(answer, from: observer, on: link)
        network.inject(
            answer, from: observer, on: link, sourceAddress: network.address(of: observer, on: link, family: .v6))
        network.run(for: .seconds(5))
        #expect(network.engine(publisher).name(of: id) == web)
        #expect(!network.events(of: publisher).contains { if case .renamed = $0 { true } else { false } })
        #expect(
            network.sentMessages(by: publisher, since: start).filter { $0.isProbe && $0.asks(about: web) }.count == 3)
    }

    /// Only class IN conflicts (§9): a record of our name in another class changes nothing.
    @Test func aRecordOfAnotherClassIsNoConflict() {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 22)
        let id = network.register(Services.registration("Web"), on: publisher)
        let web = Names.instance("Web")
        var chaos = Services.conflictingSRV(for: web)
        chaos.rrClass = RecordClass(rawValue: 3)
        let start = network.now
        network.inject(Messages.response([chaos]), from: observer, on: link)
        network.run(for: .seconds(3))
        #expect(network.engine(publisher).name(of: id) == web)
        #expect(!network.sentMessages(by: publisher, since: start).contains { $0.isProbe })
    }

    /// A host name is reported renamed only once the new one is won: under a host that answers
    /// every host-name probe, no rename is reported and no service claims to be registered.
    @Test func aHostNameNeverWonIsNeverReported() {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 23)
        network.withStack(publisher) { engine, now in _ = engine.register(Services.registration("Web"), at: now) }
        let impostor = ResourceRecord(
            name: Names.name("alpha.local."), cacheFlush: true, ttl: 120,
            data: .a(IPv4Address(198, 18, 0, 200)))
        network.defend(until: network.now + .seconds(8), by: observer, on: link, with: impostor) {
            $0.description.hasPrefix("alpha")
        }
        let events = network.events(of: publisher)
        #expect(!events.contains { if case .hostRenamed = $0 { true } else { false } }, "\(events)")
        #expect(!events.contains { if case .registered = $0 { true } else { false } })
    }

    /// Two hosts start with the same host name, one publishing a service: its SRV record is
    /// announced only under the host name that host ends up owning.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func serviceIsAnnouncedOnlyOnceItsHostNameIsOwned(seed: UInt64) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let publisher = network.addHost(named: "twin", links: [link])
        _ = network.addHost(named: "twin", links: [link])
        network.withStack(publisher) { engine, now in _ = engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(10))
        let finalHost = network.engine(publisher).hostName
        let announcedTargets = network.sentMessages(by: publisher).flatMap { $0.message.answers }.compactMap {
            record -> DomainName? in
            if case .srv(let srv) = record.data, record.ttl > 0 { srv.target } else { nil }
        }
        #expect(!announcedTargets.isEmpty)
        #expect(announcedTargets.allSatisfy { $0 == finalHost })
    }
}
