import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// The host name is claimed only to publish, shared with another responder on the same host
/// rather than fought over (RFC 6762 §15), and mapped back from each address (§4).
@Suite struct HostClaimTests {
    static let vm = Names.name("vm.local.")

    /// Every record `host` sent under the host name `name`, in responses and probes.
    static func hostRecordsSent(by host: SimulatedNetwork.HostID, in network: SimulatedNetwork, name: DomainName = vm)
        -> [SentMessage]
    {
        network.sentMessages(by: host, family: nil).filter { sent in
            sent.allRecords.contains { $0.name == name } || (sent.isProbe && sent.asks(about: name))
        }
    }

    static func renames(in network: SimulatedNetwork) -> [EngineEvent] {
        network.events.map(\.event).filter {
            switch $0 {
            case .renamed, .hostRenamed, .nameConflict: true
            default: false
            }
        }
    }

    /// An engine that only browses and resolves, joining and leaving links, sends nothing at all
    /// for its host name: no probe, announcement or goodbye.
    @Test func browsingAloneSendsNothingForTheHostName() {
        var network = SimulatedNetwork(seed: 1)
        let link = network.addLink()
        let other = network.addLink()
        let browser = network.addHost(named: "vm", links: [link, other])
        network.withStack(browser) { engine, now in
            _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
            _ = engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
            _ = engine.startQuery(name: Self.vm, type: .a, at: now)
        }
        network.run(for: .seconds(10))
        network.setLink(other, of: browser, up: false)
        network.setLink(other, of: browser, up: true)
        network.run(for: .seconds(10))
        network.setLink(link, of: browser, up: false)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: browser, family: nil)
        #expect(!sent.isEmpty)
        #expect(sent.allSatisfy { !$0.isResponse && !$0.isProbe }, "\(sent.filter { $0.isResponse || $0.isProbe })")
        #expect(network.engine(browser).hostClaim == .unneeded)
    }

    /// A second responder on a host whose first one owns the name (avahi-daemon beside a program
    /// using Ciao): it asks, hears the first answer with this host's addresses, and publishes no
    /// host records; nobody renames; another host resolves its service to that name and address.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func publisherBesideTheHostsOwnResponderLeavesTheNameToIt(seed: UInt64) throws {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let daemon = network.addHost(named: "vm", links: [link])
        let browserHost = network.addHost(named: "vm", links: [link])
        network.register(Services.registration("Daemon"), on: daemon)
        let program = network.addHost(named: "vm", links: [link], sharingAddressesOf: daemon)
        network.run(for: .seconds(2))
        let start = network.now
        let id = network.register(Services.registration("Program"), on: program)
        #expect(network.engine(program).name(of: id) == Names.instance("Program"))
        guard case .heldByAnother = network.engine(program).hostClaim else {
            Issue.record("claim: \(network.engine(program).hostClaim)")
            return
        }
        // It asked who holds the name; it proposed and announced nothing for it.
        let programSent = network.sentMessages(by: program, family: nil, since: start)
        #expect(programSent.contains { !$0.isProbe && !$0.isResponse && $0.asks(about: Self.vm) })
        #expect(!programSent.contains { $0.allRecords.contains { $0.name == Self.vm } })
        #expect(!programSent.contains { $0.isProbe && $0.asks(about: Self.vm) })
        #expect(Self.renames(in: network).isEmpty)
        // Its SRV names vm.local., whose address the daemon gives.
        var browsers = [ResolvingBrowser(host: browserHost, serviceType: Names.serviceType)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)
        #expect(browsers[0].resolved[Names.instance("Program")] != nil)
        #expect(browsers[0].srv[Names.instance("Program")]?.1.target == Self.vm)
        let daemonAddress = network.address(of: daemon, on: link, family: .v4).recordData
        #expect(
            network.engine(browserHost).cachedRecords(on: InterfaceID(1)).contains {
                $0.name == Self.vm && $0.data == daemonAddress
            })
        // Withdrawn, it says goodbye to its service only.
        let byeAt = network.now
        network.withStack(program) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(1))
        let goodbyes = network.sentMessages(.responses, by: program, family: nil, since: byeAt)
        #expect(!goodbyes.isEmpty && goodbyes.allSatisfy { !$0.allRecords.contains { $0.name == Self.vm } })
    }

    /// Two responders on one host claiming the name at the same moment propose the same records:
    /// neither sees a conflict, neither renames, and both services are registered.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func twoRespondersOnOneHostStartingTogetherShareTheName(seed: UInt64) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink(.init(delay: .microseconds(50)...(.milliseconds(2))))
        let first = network.addHost(named: "vm", links: [link])
        let second = network.addHost(named: "vm", links: [link], sharingAddressesOf: first)
        let a = network.withStack(first) { engine, now in engine.register(Services.registration("A"), at: now) }
        let b = network.withStack(second) { engine, now in engine.register(Services.registration("B"), at: now) }
        network.run(for: .seconds(5))
        #expect(Self.renames(in: network).isEmpty, "\(Self.renames(in: network))")
        #expect(network.engine(first).name(of: a) == Names.instance("A"))
        #expect(network.engine(second).name(of: b) == Names.instance("B"))
        #expect(network.engine(first).hostName == Self.vm && network.engine(second).hostName == Self.vm)
    }

    /// Another host using the same host name with its own addresses is a real conflict: the later
    /// publisher renames its host name, as avahi-daemon and mDNSResponder do (`vm-2.local.`).
    @Test func anotherHostWithTheSameNameIsAConflict() {
        var network = SimulatedNetwork(seed: 3)
        let link = network.addLink()
        let first = network.addHost(named: "vm", links: [link])
        let second = network.addHost(named: "vm", links: [link])
        network.register(Services.registration("A"), on: first)
        network.register(Services.registration("B"), on: second)
        #expect(network.engine(first).hostName == Self.vm)
        #expect(network.engine(second).hostName == Names.name("vm-2.local."))
    }

    /// When the holder withdraws with goodbyes, the other responder on the host claims the name
    /// and another host resolves its service again, its address now from it.
    @Test func theNameIsClaimedWhenItsHolderLeaves() throws {
        var network = SimulatedNetwork(seed: 4)
        let link = network.addLink()
        let daemon = network.addHost(named: "vm", links: [link])
        let browserHost = network.addHost(named: nil, links: [link])
        let daemonService = network.register(Services.registration("Daemon"), on: daemon)
        let program = network.addHost(named: "vm", links: [link], sharingAddressesOf: daemon)
        network.register(Services.registration("Program"), on: program)
        let byeAt = network.now
        network.withStack(daemon) { engine, now in engine.deregister(daemonService, at: now) }
        network.run(for: .seconds(3))
        #expect(network.engine(program).hostClaim == .owned)
        let announced = network.sentMessages(.responses, by: program, since: byeAt).filter { $0.answers(Self.vm, .a) }
        let first = try #require(announced.first)
        #expect(first.time - byeAt < .seconds(2), "announced \(first.time - byeAt) after the goodbye")
        #expect(Self.renames(in: network).isEmpty)
        _ = browserHost
    }

    /// A holder that dies without goodbyes is asked again at 80 % of its records' TTL; unanswered,
    /// the name is claimed once they would have expired (120 s).
    @Test func aSilentHolderIsReplacedWhenItsRecordsExpire() throws {
        var network = SimulatedNetwork(seed: 5)
        let link = network.addLink()
        let daemon = network.addHost(named: "vm", links: [link])
        network.register(Services.registration("Daemon"), on: daemon)
        let program = network.addHost(named: "vm", links: [link], sharingAddressesOf: daemon)
        network.register(Services.registration("Program"), on: program)
        let heardAt = network.now
        network.crash(daemon)
        network.run(for: .seconds(90))
        guard case .heldByAnother = network.engine(program).hostClaim else {
            Issue.record("gave up the holder early: \(network.engine(program).hostClaim)")
            return
        }
        network.run(for: .seconds(40))
        #expect(network.engine(program).hostClaim == .owned)
        let asked = network.sentMessages(by: program, since: heardAt + .seconds(60)).filter {
            !$0.isProbe && !$0.isResponse && $0.asks(about: Self.vm)
        }
        #expect(!asked.isEmpty)
        let announced = network.sentMessages(.responses, by: program, since: heardAt).first { $0.answers(Self.vm, .a) }
        let at = try #require(announced).time - heardAt
        #expect(at > .seconds(115) && at < .seconds(125), "claimed after \(at)")
    }

    /// The reverse mapping (§4): each published address answers a PTR query with the host name,
    /// the address in the additional section, and leaves with the last service.
    @Test func addressesMapBackToTheHostName() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 6, hostName: "vm")
        let id = network.register(Services.registration("Web"), on: publisher)
        let v4 = network.address(of: publisher, on: link, family: .v4)
        let v6 = network.address(of: publisher, on: link, family: .v6)
        for address in [v4, v6] {
            let replySent = network.firstResponse(
                of: publisher, toQueryFor: address.reverseMappingName, .ptr, from: observer, on: link)
            let reply = try #require(replySent)
            #expect(
                reply.message.answers == [
                    ResourceRecord(name: address.reverseMappingName, cacheFlush: true, ttl: 120, data: .ptr(Self.vm))
                ])
            #expect(reply.message.additionals.contains { $0.name == Self.vm && $0.data == address.recordData })
        }
        let byeAt = network.now
        network.withStack(publisher) { engine, now in engine.deregister(id, at: now) }
        network.run(for: .seconds(1))
        let goodbyes = network.sentMessages(.responses, by: publisher, since: byeAt).flatMap(\.message.answers)
        #expect(goodbyes.contains { $0.name == v4.reverseMappingName && $0.ttl == 0 })
        #expect(goodbyes.contains { $0.name == v6.reverseMappingName && $0.ttl == 0 })
    }

    /// Another responder mapping one of our addresses to another name wins the reverse name
    /// without a fight: we stop publishing that PTR, and the host name is not renamed.
    @Test func aContestedReverseNameIsYielded() {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 7, hostName: "vm")
        network.register(Services.registration("Web"), on: publisher)
        let reverse = network.address(of: publisher, on: link, family: .v4).reverseMappingName
        let theirs = ResourceRecord(
            name: reverse, cacheFlush: true, ttl: 120, data: .ptr(Names.name("other.local.")))
        network.inject(Messages.response([theirs]), from: observer, on: link)
        network.run(for: .seconds(1))
        let start = network.now
        network.inject(Messages.query([Messages.question(reverse, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        #expect(network.sentMessages(by: publisher, since: start).isEmpty)
        #expect(network.engine(publisher).hostName == Self.vm)
        #expect(Self.renames(in: network).isEmpty)
    }

    /// The addresses `publisher` answers for vm.local. with when `observer` asks (ANY), two
    /// seconds on.
    private static func addressesAnswered(
        in network: inout SimulatedNetwork, by publisher: SimulatedNetwork.HostID,
        to observer: SimulatedNetwork.HostID, on link: SimulatedNetwork.LinkID
    ) throws -> Set<IPAddress> {
        let start = network.now
        network.inject(Messages.query([Messages.question(vm, .any)]), from: observer, on: link)
        network.run(for: .seconds(2))
        let reply = try #require(network.sentMessages(.responses, by: publisher, since: start).first)
        return Set(
            reply.message.answers.compactMap { record -> IPAddress? in
                switch record.data {
                case .a(let v4): .v4(v4)
                case .aaaa(let v6): .v6(v6)
                default: nil
                }
            })
    }

    /// The host name's records carry what avahi-daemon would publish on the same host: an IPv6
    /// link-local address only where the interface has no other IPv6 address.
    @Test func linkLocalAddressesArePublishedOnlyWhenAlone() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 8, hostName: "vm")
        let global = SimulatedNetwork.interface(for: publisher, on: link).addresses
        let linkLocal = InterfaceAddress(.v6(IPv6Address("fe80::1")!), prefixLength: 64)
        network.setAddresses(global + [linkLocal], of: publisher, on: link)
        network.register(Services.registration("Web"), on: publisher)
        func addressesAnswered() throws -> Set<IPAddress> {
            try Self.addressesAnswered(in: &network, by: publisher, to: observer, on: link)
        }
        #expect(try addressesAnswered() == Set(global.map(\.address)))
        let v4 = global.filter { $0.address.family == .v4 }
        network.setAddresses(v4 + [linkLocal], of: publisher, on: link)
        network.run(for: .seconds(3))
        #expect(try addressesAnswered() == Set((v4 + [linkLocal]).map(\.address)))
    }

    /// A deprecated IPv6 address (RFC 4862 §5.5.4) is left out while the family has another
    /// that is neither deprecated nor link-local, as avahi-daemon leaves it out: a responder on
    /// the same host proposing the name's records finds the same set (RFC 6762 §15).
    @Test func deprecatedAddressesArePublishedOnlyWhenAlone() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 9, hostName: "vm")
        let current = SimulatedNetwork.interface(for: publisher, on: link).addresses
        let deprecated = InterfaceAddress(.v6(IPv6Address("fd00:198:18::99")!), prefixLength: 64, isDeprecated: true)
        network.setAddresses(current + [deprecated], of: publisher, on: link)
        network.register(Services.registration("Web"), on: publisher)
        func addressesAnswered() throws -> Set<IPAddress> {
            try Self.addressesAnswered(in: &network, by: publisher, to: observer, on: link).filter { $0.family == .v6 }
        }
        #expect(try addressesAnswered() == Set(current.filter { $0.address.family == .v6 }.map(\.address)))
        // The flags turn: the current address is deprecated now, and the deprecated one current
        // again; the one no longer published gets its goodbye.
        let v4 = current.filter { $0.address.family == .v4 }
        var turned = current.filter { $0.address.family == .v6 }
        turned[0].isDeprecated = true
        var renewed = deprecated
        renewed.isDeprecated = false
        let start = network.now
        network.setAddresses(v4 + turned + [renewed], of: publisher, on: link)
        network.run(for: .seconds(3))
        #expect(try addressesAnswered() == [renewed.address])
        let goodbyes = network.sentMessages(.responses, by: publisher, since: start).flatMap(\.message.answers)
            .filter { $0.ttl == 0 }
        // Its AAAA record, and the PTR that maps it back (RFC 6762 §4).
        #expect(goodbyes.filter { $0.type == .aaaa }.map(\.data) == [.aaaa(IPv6Address("fd00:198:18::1")!)])
        #expect(goodbyes.filter { $0.type == .ptr }.map(\.name) == [turned[0].address.reverseMappingName])
        // Alone in its family, a deprecated address is published.
        network.setAddresses(v4 + [deprecated], of: publisher, on: link)
        network.run(for: .seconds(3))
        #expect(try addressesAnswered() == [deprecated.address])
    }

    /// Without an interface a registration is not reported registered, and nothing is sent; it
    /// probes and registers once an interface comes.
    @Test func withoutAnInterfaceNothingIsRegisteredUntilOneComes() {
        var network = SimulatedNetwork(seed: 9)
        let link = network.addLink()
        let publisher = network.addHost(named: "vm", links: [link])
        network.setLink(link, of: publisher, up: false)
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(30))
        #expect(!network.events(of: publisher).contains { if case .registered = $0 { true } else { false } })
        #expect(network.sentMessages(by: publisher, family: nil).isEmpty)
        #expect(network.engine(publisher).nextDeadline == nil)
        network.setLink(link, of: publisher, up: true)
        network.run(for: .seconds(3))
        #expect(network.events(of: publisher).contains(.registered(id, name: Names.instance("Web"))))
    }
}
