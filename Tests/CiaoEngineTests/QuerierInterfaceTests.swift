import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// The interface is part of a record's identity in events: the same service on two links is two
/// services (RFC 6762 §14: each interface has its own cache).
@Suite struct QuerierInterfaceTests {
    @Test func sameServiceOnTwoLinksIsReportedPerInterface() {
        let web = PublishedWeb(seed: 60, linkCount: 2)
        var network = web.network
        let (linkB, browserHost) = (web.links[1], web.browser)
        let (browse, onlyA) = network.withStack(browserHost) { engine, now in
            (
                engine.startQuery(name: Names.serviceType, type: .ptr, at: now),
                engine.startQuery(name: Names.serviceType, type: .ptr, interfaces: [InterfaceID(1)], at: now)
            )
        }
        network.run(for: .seconds(2))
        let ptr = ResourceRecord(name: Names.serviceType, ttl: 4500, data: .ptr(Names.instance("Web")))
        let added = network.events(of: browserHost).compactMap { event -> (QueryID, InterfaceID)? in
            if case .added(let query, let record, let interface) = event, record == ptr { return (query, interface) }
            return nil
        }
        #expect(added.filter { $0.0 == browse }.map(\.1).sorted() == [InterfaceID(1), InterfaceID(2)])
        #expect(added.filter { $0.0 == onlyA }.map(\.1) == [InterfaceID(1)])
        // Each interface has its own cache.
        for interface in [InterfaceID(1), InterfaceID(2)] {
            #expect(network.engine(browserHost).cachedRecords(on: interface).contains(ptr))
        }

        // The browser loses link B: the service is removed there only.
        network.setLink(linkB, of: browserHost, up: false)
        network.run(for: .seconds(2))
        let removed = network.events(of: browserHost).compactMap { event -> (QueryID, InterfaceID)? in
            if case .removed(let query, let record, let interface) = event, record == ptr { return (query, interface) }
            return nil
        }
        #expect(removed.map(\.0) == [browse])
        #expect(removed.map(\.1) == [InterfaceID(2)])
        #expect(network.engine(browserHost).cachedRecords(on: InterfaceID(1)).contains(ptr))

        // Back up: found again on B, from a fresh query there.
        network.setLink(linkB, of: browserHost, up: true)
        network.run(for: .seconds(5))
        let addedAgain = network.events(of: browserHost).filter {
            if case .added(browse, ptr, InterfaceID(2)) = $0 { return true }
            return false
        }
        #expect(addedAgain.count == 2)
    }

    /// A goodbye on one link removes the service on that link only.
    @Test func goodbyeOnOneLinkLeavesTheOther() {
        let web = PublishedWeb(seed: 61, linkCount: 2)
        var network = web.network
        let (linkA, publisher, browserHost) = (web.links[0], web.publisher, web.browser)
        let browse = network.withStack(browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(2))
        // The publisher leaves link A (goodbyes there).
        network.setLink(linkA, of: publisher, up: false)
        network.run(for: .seconds(3))
        let removed = network.events(of: browserHost).compactMap { event -> InterfaceID? in
            if case .removed(browse, _, let interface) = event { return interface }
            return nil
        }
        #expect(removed == [InterfaceID(1)])
    }
}
