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
}
