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
    /// one; with `sameAddresses`, the second interface has the first one's addresses. Returns the
    /// network after alpha's second interface went, and beta's query.
    private func secondInterfaceGone(sharingALink: Bool, sameAddresses: Bool = false, seed: UInt64) -> (
        SimulatedNetwork, goneAt: Instant, gone: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, query: QueryID
    ) {
        var network = SimulatedNetwork(seed: seed)
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
        let goneAt = network.now
        // Up while alpha withdraws the interface (its addresses gone), so its goodbyes go out.
        network.setLink(wireless, of: publisher, up: false)
        network.run(for: .seconds(5))
        return (network, goneAt, wireless, publisher, browser, query)
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
