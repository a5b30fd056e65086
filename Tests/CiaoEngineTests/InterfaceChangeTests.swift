import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

@Suite struct InterfaceChangeTests {
    /// A publisher and a browser that has found its service.
    private func discovered(seed: UInt64) -> (
        SimulatedNetwork, link: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, query: QueryID
    ) {
        let web = PublishedWeb(seed: seed)
        var network = web.network
        let query = network.withStack(web.browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(2))
        let (link, publisher, browser) = (web.links[0], web.publisher, web.browser)
        return (network, link, publisher, browser, query)
    }

    @Test func browserInterfaceGoingDownWithdrawsItsServices() {
        var (network, link, _, browser, query) = discovered(seed: 3)
        #expect(network.browsed(query, by: browser) == [Names.instance("Web")])
        network.setLink(link, of: browser, up: false)
        #expect(network.browsed(query, by: browser).isEmpty)
        #expect(network.engine(browser).cachedRecords(on: InterfaceID(1)).isEmpty)
        // Back up: the query resumes on the interface and finds the service again.
        network.setLink(link, of: browser, up: true)
        network.run(for: .seconds(3))
        #expect(network.browsed(query, by: browser) == [Names.instance("Web")])
    }

    @Test func publisherInterfaceRemovedSaysGoodbye() {
        var (network, link, publisher, browser, query) = discovered(seed: 4)
        let removedAt = network.now
        network.setLink(link, of: publisher, up: false)
        network.run(for: .seconds(2))
        #expect(network.browsed(query, by: browser).isEmpty)
        let removal = network.events.first { event in
            if case .removed(query, _, _) = event.event { return true }
            return false
        }
        // Goodbye → removal one second later (RFC 6762 §10.1).
        #expect(removal.map { $0.time - removedAt } ?? .seconds(99) <= .milliseconds(1100))
    }

    /// The goodbye on a removed interface names each record once, although every service of a
    /// type publishes the same PTR from `_services._dns-sd._udp.local.` (RFC 6763 §9).
    @Test func goodbyeOnARemovedInterfaceNamesEachRecordOnce() throws {
        var web = PublishedWeb(seed: 6)
        for name in ["Mail", "Print"] {
            _ = web.network.withStack(web.publisher) { engine, now in
                engine.register(Services.registration(name), at: now)
            }
        }
        web.network.run(for: .seconds(5))
        let downAt = web.network.now
        web.network.setLink(web.links[0], of: web.publisher, up: false)
        let goodbyes = web.network.sentMessages(by: web.publisher, family: nil, since: downAt).map(\.message)
        #expect(goodbyes.count == 2, "one message per address family")
        let enumerationName = Names.servicesName
        for message in goodbyes {
            let records = message.answers
            #expect(!records.isEmpty && records.allSatisfy { $0.ttl == 0 })
            #expect(Set(records).count == records.count, "\(records)")
            #expect(records.filter { $0.name == enumerationName }.count == 1)
            #expect(
                Set(records.filter { $0.type == .srv }.map(\.name))
                    == Set(["Web", "Mail", "Print"].map { Names.instance($0) }))
        }
    }

    @Test func addressChangeIsAnnounced() throws {
        var (network, link, publisher, browser, _) = discovered(seed: 5)
        let address = try #require(IPv4Address("198.19.200.7"))
        var interface = SimulatedNetwork.interface(for: publisher, on: link)
        interface.addresses[0] = InterfaceAddress(.v4(address), prefixLength: 15)
        network.setAddresses(interface.addresses, of: publisher, on: link)
        network.run(for: .seconds(3))
        let hostName = network.engine(publisher).hostName
        let addresses = network.engine(browser).cachedRecords(on: InterfaceID(1)).filter {
            $0.name == hostName && $0.type == .a
        }
        #expect(
            addresses.map(\.data) == [.a(address)],
            "the old address is gone (goodbye and cache-flush), the new one cached")
    }

    /// Alpha publishes "Web" over two interfaces, as a machine on one network by Ethernet and
    /// Wi-Fi; beta browses on the first link. With `sharingALink`, the two links are bridged into
    /// one; with `sameAddresses`, the second interface has the first one's addresses; hosts have
    /// addresses of `families`. Returns the network five seconds on, the second link, and beta's
    /// query.
    private func twoInterfacesPublishing(
        sharingALink: Bool, sameAddresses: Bool = false, families: Set<IPFamily> = [.v4, .v6], seed: UInt64
    ) -> (
        SimulatedNetwork, second: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, query: QueryID
    ) {
        var network = SimulatedNetwork(seed: seed)
        network.families = families
        let (wired, wireless) = (network.addLink(), network.addLink())
        if sharingALink { network.bridge(wired, wireless) }
        let publisher = network.addHost(named: "alpha", links: [wired, wireless])
        let browser = network.addHost(named: "beta", links: sharingALink ? [wired] : [wired, wireless])
        if sameAddresses {
            let addresses = SimulatedNetwork.interface(for: publisher, on: wired).addresses
            network.setAddresses(addresses, of: publisher, on: wireless)
        }
        _ = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        let query = network.withStack(browser) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(5))
        return (network, wireless, publisher, browser, query)
    }

    /// ``twoInterfacesPublishing(sharingALink:sameAddresses:seed:)``, then alpha's second
    /// interface goes, while its link is up (its addresses gone), so its goodbyes go out; five
    /// seconds on.
    private func secondInterfaceGone(sharingALink: Bool, sameAddresses: Bool = false, seed: UInt64) -> (
        SimulatedNetwork, goneAt: Instant, gone: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, query: QueryID
    ) {
        var (network, wireless, publisher, browser, query) = twoInterfacesPublishing(
            sharingALink: sharingALink, sameAddresses: sameAddresses, seed: seed)
        let goneAt = network.now
        network.setLink(wireless, of: publisher, up: false)
        network.run(for: .seconds(5))
        return (network, goneAt, wireless, publisher, browser, query)
    }

    /// Over IPv4 alone nothing shows that the two share a link (Linux drops a datagram from one of
    /// its own addresses that comes in from outside), so the interface that goes says goodbye to
    /// everything, as on two links.
    @Test func overIPv4AloneTheSharedLinkIsNotSeen() {
        var (network, wireless, publisher, _, _) = twoInterfacesPublishing(
            sharingALink: true, families: [.v4], seed: 34)
        let start = network.now
        network.setLink(wireless, of: publisher, up: false)
        #expect(saidGoodbyeToTheService(network, by: publisher, since: start))
    }

    /// Whether alpha's goodbyes from `since` name the PTR of "Web".
    private func saidGoodbyeToTheService(
        _ network: SimulatedNetwork, by publisher: SimulatedNetwork.HostID, since: Instant
    ) -> Bool {
        network.sentMessages(.responses, by: publisher, family: nil, since: since).contains { sent in
            sent.message.answers.contains { $0.ttl == 0 && $0.data == .ptr(Names.instance("Web")) }
        }
    }

    /// The shared link is kept while the second interface's addresses only go, one family and
    /// then the other, with nothing heard between (as `ip addr flush` removes them); it is
    /// forgotten when the interface gains an address on a subnet it did not have, as on another
    /// network, so that going then says goodbye to everything.
    @Test func aNewSubnetForgetsTheSharedLinkAndAddressesGoingDoNot() throws {
        for movesToANewSubnet in [false, true] {
            var (network, wireless, publisher, _, _) = twoInterfacesPublishing(sharingALink: true, seed: 33)
            let addresses = SimulatedNetwork.interface(for: publisher, on: wireless).addresses
            let start = network.now
            if movesToANewSubnet {
                let elsewhere = try #require(IPv6Address("fd00:dead:beef::7"))
                network.setAddresses(
                    addresses + [InterfaceAddress(.v6(elsewhere), prefixLength: 64)], of: publisher, on: wireless)
            } else {
                network.setAddresses(addresses.filter { $0.address.family == .v6 }, of: publisher, on: wireless)
            }
            network.setLink(wireless, of: publisher, up: false)
            #expect(
                saidGoodbyeToTheService(network, by: publisher, since: start) == movesToANewSubnet,
                "\(movesToANewSubnet ? "a new subnet" : "addresses going")")
        }
    }

    /// A second interface on the link going takes nothing still published on the first with it:
    /// its goodbye names its own addresses only, and a browser never loses the service (RFC 6762 §14).
    @Test func aSecondInterfaceOnTheLinkGoesWithoutTheServices() throws {
        let (network, goneAt, gone, publisher, browser, query) = secondInterfaceGone(sharingALink: true, seed: 31)
        #expect(network.browsed(query, by: browser) == [Names.instance("Web")])
        #expect(!network.events(of: browser).contains { if case .removed(query, _, _) = $0 { true } else { false } })
        let goodbyes = network.sentMessages(.responses, by: publisher, family: nil, since: goneAt).filter {
            $0.message.answers.contains { $0.ttl == 0 }
        }
        try #require(!goodbyes.isEmpty)
        let goneAddresses = SimulatedNetwork.interface(for: publisher, on: gone).addresses.map {
            address -> RecordData in
            switch address.address {
            case .v4(let v4): .a(v4)
            case .v6(let v6): .aaaa(v6)
            }
        }
        let records = goodbyes.flatMap(\.message.answers)
        #expect(Set(goneAddresses).isSubset(of: records.map(\.data)))
        for record in records {
            // The addresses that went, and the reverse mapping of each (RFC 6762 §4).
            #expect(
                goneAddresses.contains(record.data) || record.name.description.hasSuffix(".arpa."),
                "a goodbye for \(record), still published on the first interface")
        }
    }

    /// Two interfaces on two links: the one that goes says goodbye to everything, so a browser
    /// on that link loses the service within a second (RFC 6762 §10.1).
    @Test func anInterfaceOnAnotherLinkTakesTheServicesWithIt() {
        for sameAddresses in [false, true] {
            // With the same addresses, the kernel's loopback of a multicast on one interface is
            // from an address of the other too, and does not put them on one link.
            let (network, goneAt, _, _, browser, query) = secondInterfaceGone(
                sharingALink: false, sameAddresses: sameAddresses, seed: 32)
            let removal = network.events.first {
                guard $0.host == browser, case .removed(query, _, InterfaceID(2)) = $0.event else { return false }
                return true
            }
            #expect(removal.map { $0.time - goneAt } ?? .seconds(99) <= .milliseconds(1100), "\(sameAddresses)")
        }
    }
}
