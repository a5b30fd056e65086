import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Another host's name and addresses published for it (``OtherHostRegistration``), as
/// `avahi-publish -a` and `dns-sd -P` do: probed, announced, answered, defended and withdrawn like
/// this host's name, and never renamed (RFC 6762 §6, §8, §9, §10.1).
@Suite struct OtherHostTests {
    static let printer = Names.name("printer.local.")
    static let v4 = IPAddress.v4(IPv4Address(198, 18, 0, 77))
    static let v6 = IPAddress.v6(IPv6Address("fd00:198:18::77")!)

    static func registration(_ addresses: [IPAddress] = [v4, v6]) -> OtherHostRegistration {
        OtherHostRegistration(label: "printer", addresses: addresses)
    }

    /// Probed with its addresses in Authority, then announced with them and an NSEC; reported
    /// registered; an A query is answered with the address given.
    @Test func itIsProbedAnnouncedAndAnswered() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 4)
        let start = network.now
        let id = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        network.run(for: .seconds(5))
        let probes = network.sentMessages(.probes, by: publisher, since: start).filter {
            $0.message.authorities.contains { $0.name == Self.printer }
        }
        #expect(probes.count == 3)
        #expect(
            Set(probes[0].message.authorities.filter { $0.name == Self.printer }.map(\.data))
                == [Self.v4.recordData, Self.v6.recordData])
        let announced = network.sentMessages(.responses, by: publisher, since: start).flatMap(\.message.answers)
            .filter { $0.name == Self.printer }
        #expect(Set(announced.map(\.type)) == [.a, .aaaa, .nsec])
        #expect(announced.allSatisfy { $0.cacheFlush && $0.ttl == 120 })
        #expect(network.events(of: publisher).contains(.registered(id, name: Self.printer)))

        let answerSent = network.firstResponse(of: publisher, toQueryFor: Self.printer, .a, from: observer, on: link)
        let answer = try #require(answerSent)
        #expect(answer.message.answers.map(\.data) == [Self.v4.recordData])
    }

    /// With IPv4 only, a question for AAAA is answered with an NSEC saying there is none (§6.1).
    @Test func aMissingFamilyIsDeniedWithNSEC() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 5)
        _ = network.withStack(publisher) { engine, now in engine.register(Self.registration([Self.v4]), at: now) }
        network.run(for: .seconds(8))
        let answerSent = network.firstResponse(of: publisher, toQueryFor: Self.printer, .aaaa, from: observer, on: link)
        let answer = try #require(answerSent)
        let nsec = try #require(answer.message.answers.first { $0.type == .nsec })
        guard case .nsec(let data) = nsec.data else { return }
        #expect(data.types.contains(.a) && !data.types.contains(.aaaa))
    }

    /// A name another responder holds is not taken under another name: the registration ends
    /// with ``EngineEvent/nameConflict(_:name:)`` and nothing of it is announced (§9).
    @Test func aNameHeldElsewhereIsAConflictNotARename() {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 6)
        let start = network.now
        let id = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        let theirs = ResourceRecord(
            name: Self.printer, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 99)))
        network.defend(until: network.now + .seconds(5), by: observer, on: link, with: theirs) { $0 == Self.printer }
        let events = network.events(of: publisher)
        #expect(events.contains(.nameConflict(id, name: Self.printer)))
        #expect(!events.contains { if case .renamed = $0 { true } else { false } }, "\(events)")
        #expect(!events.contains(.registered(id, name: Self.printer)))
        let announced = network.sentMessages(.responses, by: publisher, since: start).flatMap(\.message.answers)
        #expect(!announced.contains { $0.name == Self.printer && $0.ttl > 0 })
    }

    /// Answers naming the other host carry its addresses and NSEC, once however many of its
    /// services are answered, and none of this host's (RFC 6763 §12.1, §12.2; RFC 6762 §6.1).
    @Test func answersCarryTheOtherHostsAddresses() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 8)
        network.withStack(publisher) { engine, now in
            _ = engine.register(Self.registration(), at: now)
            for name in ["IPP", "Admin"] {
                _ = engine.register(Services.registration(name, hostName: Self.printer), at: now)
            }
        }
        network.run(for: .seconds(8))
        let alpha = Names.name("alpha.local.")
        for (question, answered) in [
            (Messages.question(Names.serviceType, .ptr), [RecordType.ptr]),
            (Messages.question(Self.printer, .a), [.a]),
        ] {
            let asked = network.now
            network.inject(Messages.query([question]), from: observer, on: link)
            network.run(for: .seconds(1))
            let response = try #require(network.sentMessages(.responses, by: publisher, since: asked).first)
            #expect(Set(response.message.answers.map(\.type)) == Set(answered))
            let additionals = response.message.additionals
            let printerTypes = additionals.filter { $0.name == Self.printer }.map(\.type)
            #expect(
                printerTypes.sorted { $0.rawValue < $1.rawValue }
                    == (answered == [.a] ? [.aaaa, .nsec] : [.a, .aaaa, .nsec]))
            #expect(!additionals.contains { $0.name == alpha }, "\(additionals)")
            #expect(!additionals.contains { $0.name == Self.v4.reverseMappingName }, "\(additionals)")
        }
    }

    /// Its addresses map back to its name (RFC 6762 §4), as `avahi-publish -a` publishes them: a
    /// PTR query is answered with the name and its addresses in the additional section, and
    /// the mapping leaves with goodbyes.
    @Test func itsAddressesMapBackToItsName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 11)
        let id = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        network.run(for: .seconds(8))
        for address in [Self.v4, Self.v6] {
            let replySent = network.firstResponse(
                of: publisher, toQueryFor: address.reverseMappingName, .ptr, from: observer, on: link)
            let reply = try #require(replySent)
            #expect(
                reply.message.answers == [
                    ResourceRecord(
                        name: address.reverseMappingName, cacheFlush: true, ttl: 120, data: .ptr(Self.printer))
                ])
            #expect(reply.message.additionals.contains { $0.name == Self.printer && $0.data == address.recordData })
        }
        let withdrawn = network.now
        network.withStack(publisher) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(1))
        let goodbyes = network.sentMessages(.responses, by: publisher, since: withdrawn).flatMap(\.message.answers)
        for address in [Self.v4, Self.v6] {
            #expect(goodbyes.contains { $0.name == address.reverseMappingName && $0.ttl == 0 })
        }
    }

    /// Another responder mapping one of its addresses to another name keeps the reverse name: we
    /// stop answering for it, and the name we publish stays ours, without a conflict (§4).
    @Test func aContestedReverseNameIsYielded() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 12)
        let id = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        network.run(for: .seconds(8))
        let theirs = ResourceRecord(
            name: Self.v4.reverseMappingName, cacheFlush: true, ttl: 120, data: .ptr(Names.name("device.local.")))
        network.inject(Messages.response([theirs]), from: observer, on: link)
        network.run(for: .seconds(1))
        let asked = network.now
        network.inject(
            Messages.query([Messages.question(Self.v4.reverseMappingName, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        #expect(network.sentMessages(by: publisher, since: asked).isEmpty)
        #expect(!network.events(of: publisher).contains(.nameConflict(id, name: Self.printer)))

        let answerSent = network.firstResponse(of: publisher, toQueryFor: Self.printer, .a, from: observer, on: link)
        let answer = try #require(answerSent)
        #expect(answer.message.answers.map(\.data) == [Self.v4.recordData])
    }

    /// Its probes ask about its reverse-mapping names without proposing a PTR for them (§4, §8.1):
    /// a responder that maps an address already answers, and keeps it.
    @Test func itsReverseNamesAreAskedAboutNotProposed() {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: 14)
        let start = network.now
        _ = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        network.run(for: .seconds(2))
        let probes = network.sentMessages(.probes, by: publisher, since: start).filter {
            $0.message.authorities.contains { $0.name == Self.printer }
        }
        #expect(probes.count == 3)
        for probe in probes {
            let asked = Set(probe.message.questions.map(\.name))
            #expect(asked.isSuperset(of: [Self.printer, Self.v4.reverseMappingName, Self.v6.reverseMappingName]))
            #expect(!probe.message.authorities.contains { $0.type == .ptr }, "\(probe.message.authorities)")
        }
    }

    /// An alias of another host's address, that host running Ciao too: the alias's probe asks,
    /// that host answers with its own mapping and keeps it, and the alias never maps the address
    /// (§4), while its name is published.
    @Test func anAliasOfAnotherHostsAddressLeavesItsMappingAlone() throws {
        var network = SimulatedNetwork(seed: 15)
        let link = network.addLink()
        let beta = network.addHost(named: "beta", links: [link])
        let publisher = network.addHost(named: "alpha", links: [link])
        let observer = network.addHost(named: "observer", links: [link])
        network.register(Services.registration("Beta"), on: beta)
        let betaAddress = network.address(of: beta, on: link, family: .v4)
        let start = network.now
        let id = network.withStack(publisher) { engine, now in
            engine.register(OtherHostRegistration(label: "alias", addresses: [betaAddress]), at: now)
        }
        network.run(for: .seconds(8))
        #expect(network.events(of: publisher).contains(.registered(id, name: Names.name("alias.local."))))
        let sent = network.sentMessages(by: publisher, since: start).flatMap {
            $0.message.answers + $0.message.authorities
        }
        #expect(!sent.contains { $0.name == betaAddress.reverseMappingName }, "\(sent)")

        let asked = network.now
        network.inject(
            Messages.query([Messages.question(betaAddress.reverseMappingName, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let answers = [beta, publisher].flatMap { network.sentMessages(.responses, by: $0, since: asked) }
            .flatMap(\.message.answers).filter { $0.name == betaAddress.reverseMappingName }
        #expect(answers.map(\.data) == [.ptr(Names.name("beta.local."))])
    }

    /// Two other hosts' names given one address: the first keeps the mapping, the second does
    /// not contest it from the same host (§4).
    @Test func oneAddressMapsBackToTheFirstNameGivenIt() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 16)
        network.withStack(publisher) { engine, now in
            _ = engine.register(OtherHostRegistration(label: "printer", addresses: [Self.v4]), at: now)
            _ = engine.register(OtherHostRegistration(label: "scanner", addresses: [Self.v4]), at: now)
        }
        network.run(for: .seconds(8))
        let replySent = network.firstResponse(
            of: publisher, toQueryFor: Self.v4.reverseMappingName, .ptr, from: observer, on: link)
        let reply = try #require(replySent)
        #expect(reply.message.answers.map(\.data) == [.ptr(Self.printer)])
    }

    /// An address that becomes this host's own maps back to this host alone from then on (§4).
    @Test func anAddressThisHostTakesLaterMapsBackToThisHost() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 17, hostName: "vm")
        network.register(Services.registration("Web"), on: publisher)
        _ = network.withStack(publisher) { engine, now in engine.register(Self.registration([Self.v4]), at: now) }
        network.run(for: .seconds(8))
        let current = SimulatedNetwork.interface(for: publisher, on: link).addresses
        network.setAddresses(current + [InterfaceAddress(Self.v4, prefixLength: 15)], of: publisher, on: link)
        network.run(for: .seconds(8))
        let replySent = network.firstResponse(
            of: publisher, toQueryFor: Self.v4.reverseMappingName, .ptr, from: observer, on: link)
        let reply = try #require(replySent)
        #expect(reply.message.answers.map(\.data) == [.ptr(Names.name("vm.local."))])
    }

    /// An alias of this host's address maps it back while this host publishes nothing of its
    /// own, leaves it to this host's name while a service here claims that, and maps it again,
    /// announced, once that service is gone (§4, §8.4).
    @Test func anAliasMapsTheAddressWhileThisHostsNameIsNotPublished() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 18, hostName: "vm")
        let own = network.address(of: publisher, on: link, family: .v4)
        _ = network.withStack(publisher) { engine, now in
            engine.register(OtherHostRegistration(label: "alias", addresses: [own]), at: now)
        }
        network.run(for: .seconds(8))
        func mapping() throws -> [RecordData] {
            let sent = network.firstResponse(
                of: publisher, toQueryFor: own.reverseMappingName, .ptr, from: observer, on: link)
            return try #require(sent).message.answers.map(\.data)
        }
        #expect(try mapping() == [.ptr(Names.name("alias.local."))])
        let web = network.register(Services.registration("Web"), on: publisher)
        network.run(for: .seconds(2))
        #expect(try mapping() == [.ptr(Names.name("vm.local."))])

        let withdrawn = network.now
        network.withStack(publisher) { engine, now in engine.deregister(web, at: now) }
        network.run(for: .seconds(2))
        let sent = network.sentMessages(.responses, by: publisher, since: withdrawn).flatMap(\.message.answers)
            .filter { $0.name == own.reverseMappingName }
        // This host's goodbye, then the alias's announcements.
        let goodbye = try #require(sent.first)
        #expect(goodbye.data == .ptr(Names.name("vm.local.")) && goodbye.ttl == 0, "\(sent)")
        let announced = sent.dropFirst()
        #expect(
            !announced.isEmpty && announced.allSatisfy { $0.data == .ptr(Names.name("alias.local.")) && $0.ttl == 120 })
        #expect(try mapping() == [.ptr(Names.name("alias.local."))])
    }

    /// Two aliases of this host's address, this host's name published meanwhile: once it is not,
    /// the first maps the address again, not both (§4).
    @Test func twoAliasesOfThisHostsAddressMapItOnceAfterThisHostLeaves() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 19, hostName: "vm")
        let own = network.address(of: publisher, on: link, family: .v4)
        let web = network.register(Services.registration("Web"), on: publisher)
        network.withStack(publisher) { engine, now in
            _ = engine.register(OtherHostRegistration(label: "alias", addresses: [own]), at: now)
            _ = engine.register(OtherHostRegistration(label: "other-alias", addresses: [own]), at: now)
        }
        network.run(for: .seconds(8))
        network.withStack(publisher) { engine, now in engine.deregister(web, at: now) }
        network.run(for: .seconds(2))
        let sent = network.firstResponse(
            of: publisher, toQueryFor: own.reverseMappingName, .ptr, from: observer, on: link)
        #expect(try #require(sent).message.answers.map(\.data) == [.ptr(Names.name("alias.local."))])
    }

    /// An address of this host published under another name (an alias) maps back to this host
    /// alone: the other name's reverse mapping would contest this host's own (§4).
    @Test func anAddressOfThisHostMapsBackToThisHost() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 13, hostName: "vm")
        let own = network.address(of: publisher, on: link, family: .v4)
        network.register(Services.registration("Web"), on: publisher)
        _ = network.withStack(publisher) { engine, now in
            engine.register(OtherHostRegistration(label: "alias", addresses: [own]), at: now)
        }
        network.run(for: .seconds(8))
        let replySent = network.firstResponse(
            of: publisher, toQueryFor: own.reverseMappingName, .ptr, from: observer, on: link)
        let reply = try #require(replySent)
        #expect(reply.message.answers.map(\.data) == [.ptr(Names.name("vm.local."))])
    }

    /// A service on the other host is announced only once that host's name is ours: here a
    /// simultaneous probe wins the first round (§8.2), and the service waits for the second.
    @Test func itsServicesWaitForItsName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 9)
        let start = network.now
        let (otherHost, service) = network.withStack(publisher) { engine, now in
            (
                engine.register(Self.registration([Self.v4]), at: now),
                engine.register(Services.registration("IPP", hostName: Self.printer), at: now)
            )
        }
        network.run(for: .milliseconds(10))
        let rival = ResourceRecord(
            name: Self.printer, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 250)))
        network.inject(
            Message(questions: [Question(name: Self.printer, type: .any)], authorities: [rival]), from: observer,
            on: link)
        network.run(for: .seconds(6))
        let registered = network.timedEvents(of: publisher).compactMap { entry -> (RegistrationID, Instant)? in
            if case .registered(let id, _) = entry.event { (id, entry.time) } else { nil }
        }
        let hostAt = try #require(registered.first { $0.0 == otherHost }?.1)
        let serviceAt = try #require(registered.first { $0.0 == service }?.1)
        // Lost the first round: probed again a second later.
        #expect(hostAt - start >= .milliseconds(1500))
        #expect(serviceAt >= hostAt)
    }

    /// This host, renamed after a conflict (§9), passes over the name it publishes for another
    /// host: its own probes never come back to it, so it would not see that clash.
    @Test func thisHostIsNotRenamedOntoAProxiedName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 10)
        let alpha = Names.name("alpha.local.")
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("Web"), at: now)
            _ = engine.register(OtherHostRegistration(label: "alpha-2", addresses: [Self.v4]), at: now)
        }
        network.run(for: .seconds(5))
        let impostor = ResourceRecord(name: alpha, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 200)))
        network.inject(Messages.response([impostor]), from: observer, on: link)
        network.defend(until: network.now + .seconds(6), by: observer, on: link, with: impostor) { $0 == alpha }
        #expect(network.engine(publisher).hostName == Names.name("alpha-3.local."))
    }

    /// Withdrawn, its address records go with goodbyes (§10.1).
    @Test func deregisteringSaysGoodbye() {
        var (network, _, publisher, _) = SimulatedNetwork.publisherAndObserver(seed: 7)
        let id = network.withStack(publisher) { engine, now in engine.register(Self.registration(), at: now) }
        network.run(for: .seconds(8))
        let withdrawn = network.now
        network.withStack(publisher) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(1))
        let goodbyes = network.sentMessages(.responses, by: publisher, since: withdrawn).flatMap(\.message.answers)
            .filter { $0.name == Self.printer }
        #expect(Set(goodbyes.map(\.type)).isSuperset(of: [.a, .aaaa]))
        #expect(goodbyes.allSatisfy { $0.ttl == 0 })
    }
}
