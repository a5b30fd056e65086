import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Probing and announcing (RFC 6762 §8.1–§8.3), checked on the packets the simulated hosts send.
@Suite struct ResponderProbingTests {
    /// Two hosts register the same instance name at the same moment, on 1000 seeds: each time
    /// exactly one keeps it and the other ends up `Name (2)` (§8.2 tie-break, §9 rename).
    @Test(.long) func simultaneousRegistrationEndsWithOneOwnerOverManySeeds() {
        let shared = Names.instance("Shared")
        let renamed = Names.instance("Shared (2)")
        var failures: [String] = []
        for seed in UInt64(0)..<1000 {
            var network = SimulatedNetwork(seed: seed)
            network.recordsTransmissions = false
            let link = network.addLink(.init(delay: .microseconds(100)...(.milliseconds(5))))
            let alpha = network.addHost(named: "alpha", links: [link])
            let beta = network.addHost(named: "beta", links: [link])
            // Half the seeds register while the host names are still probing, half once established.
            if seed % 2 == 1 { network.run(for: .seconds(2)) }
            let a = network.withStack(alpha) { engine, now in
                engine.register(Services.registration("Shared", port: 1), at: now)
            }
            let b = network.withStack(beta) { engine, now in
                engine.register(Services.registration("Shared", port: 2), at: now)
            }
            // Decided within ~2.5 s: the loser defers 1 s, hears the winner, renames and probes again.
            network.run(for: .milliseconds(3500))
            let names = [network.engine(alpha).name(of: a), network.engine(beta).name(of: b)]
            let registered = network.events.compactMap { timed -> DomainName? in
                if case .registered(_, let name) = timed.event { return name }
                return nil
            }
            let renames = network.events.filter {
                if case .renamed = $0.event { return true }
                return false
            }
            let hostRenames = network.events.filter {
                if case .hostRenamed = $0.event { return true }
                return false
            }
            if Set(names.compactMap { $0 }) != [shared, renamed] || registered.count != 2
                || Set(registered) != [shared, renamed] || renames.count != 1 || !hostRenames.isEmpty
            {
                failures.append("seed \(seed): names \(names), registered \(registered), renames \(renames.count)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, e.g. \(failures.prefix(5))")
    }

    /// First probe 0–250 ms after registering, three probes 250 ms apart asking ANY (the first as
    /// QU) with the proposed records in Authority; then announcements at least 1 s apart with the
    /// cache-flush bit on unique records only (§8.1, §8.3).
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func probesThenAnnouncementsFollowTheSchedule(seed: UInt64) throws {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: seed)
        let registeredAt = network.now
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(6))
        let instance = Names.instance("Web")
        let sent = network.sentMessages(by: publisher, since: registeredAt)

        let probes = sent.filter { $0.isProbe && $0.asks(about: instance) }
        try #require(probes.count == 3, "probes at \(probes.map(\.time))")
        let firstDelay = probes[0].time - registeredAt
        #expect(firstDelay >= .zero && firstDelay <= .milliseconds(250))
        #expect(probes[1].time - probes[0].time == .milliseconds(250))
        #expect(probes[2].time - probes[1].time == .milliseconds(250))
        for probe in probes {
            #expect(probe.isMulticast)
            let questions = probe.message.questions.filter { $0.name == instance }
            #expect(questions.count == 1 && questions.allSatisfy { $0.type == .any })
            let proposed = probe.message.authorities.filter { $0.name == instance }
            #expect(Set(proposed.map(\.type)) == [.srv, .txt])
            #expect(probe.message.answers.isEmpty)
        }
        #expect(probes[0].message.questions.first { $0.name == instance }?.unicastResponse == true)

        let announcements = sent.filter { $0.isResponse && $0.isMulticast && $0.answers(instance, .srv) }
        try #require(announcements.count >= 2)
        #expect(announcements[0].time > probes[2].time)
        #expect(announcements[0].time - probes[2].time == .milliseconds(250))
        for (earlier, later) in zip(announcements, announcements.dropFirst()) {
            #expect(later.time - earlier.time >= .seconds(1))
        }
        for announcement in announcements.prefix(2) {
            let answers = announcement.message.answers
            #expect(Set(answers.map(\.type)).isSuperset(of: [.srv, .txt, .ptr]))
            for record in answers {
                // Shared: the PTRs of the service type and the type enumeration; the host's
                // reverse-mapping PTRs are unique (RFC 6762 §4).
                let shared = record.type == .ptr && record.name.description.hasSuffix(".local.")
                #expect(record.cacheFlush == !shared, "\(record)")
            }
        }
        // Nothing for the instance is announced before the probes are done.
        #expect(
            !sent.contains {
                $0.isResponse && $0.allRecords.contains { $0.name == instance } && $0.time < probes[2].time
            })
        #expect(
            network.timedEvents(of: publisher).contains {
                $0.event == .registered(id, name: instance) && $0.time == announcements[0].time
            })
    }

    /// Registrations made together probe together in one packet, and the host name probes with
    /// them on the same schedule (§8.1), its addresses and their reverse mapping (§4).
    @Test func hostAndServicesProbeTogetherAtStartUp() throws {
        var network = SimulatedNetwork(seed: 11)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("One"), at: now)
            _ = engine.register(Services.registration("Two"), at: now)
        }
        network.run(for: .seconds(5))
        let probes = network.sentMessages(.probes, by: publisher)
        try #require(probes.count == 3)
        let reverseNames = SimulatedNetwork.interface(for: publisher, on: link).addresses.map(
            \.address.reverseMappingName)
        for probe in probes {
            #expect(
                Set(probe.message.questions.map(\.name))
                    == Set(
                        [
                            Names.name("alpha.local."), Names.instance("One"), Names.instance("Two"),
                        ] + reverseNames))
        }
        let hostProposal = probes[0].message.authorities.filter { $0.name == Names.name("alpha.local.") }
        #expect(Set(hostProposal.map(\.type)) == [.a, .aaaa])
        let reverseProposal = probes[0].message.authorities.filter { reverseNames.contains($0.name) }
        #expect(
            reverseProposal.count == 2 && reverseProposal.allSatisfy { $0.data == .ptr(Names.name("alpha.local.")) }
        )
    }

    /// An instance name over 63 bytes is cut at a character boundary rather than giving an invalid
    /// (or wrong) name; the probes and records use the cut name.
    @Test func overlongInstanceNameIsCutToALabel() throws {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: 13)
        let long = String(repeating: "ü", count: 40)  // 80 bytes
        let id = network.register(Services.registration(long), on: publisher)
        let expected = Names.instance(String(repeating: "ü", count: 31))
        #expect(network.engine(publisher).name(of: id) == expected)
        #expect(network.events(of: publisher) == [.registered(id, name: expected)])
        // Nothing was ever published at the service type's own name but the PTR.
        let records = network.sentMessages(by: publisher).flatMap(\.allRecords)
        #expect(records.filter { $0.name == Names.serviceType }.allSatisfy { $0.type == .ptr })
        #expect(records.contains { $0.name == expected && $0.type == .srv })
    }
}
