import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// A host's own queries see its own services and addresses, without the network.
@Suite struct SameHostDiscoveryTests {
    /// The publisher of "Web" browses its own type, on a network where nothing else answers.
    private func browseOwnType(seed: UInt64 = 1) -> (PublishedWeb, QueryID) {
        var published = PublishedWeb(seed: seed)
        let query = published.network.withStack(published.publisher) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        published.network.run(for: .seconds(1))
        return (published, query)
    }

    @Test func ownServiceIsFoundAndResolvedOnItsOwnHost() throws {
        let (published, query) = browseOwnType()
        var network = published.network
        #expect(network.browsed(query, by: published.publisher) == [Names.instance("Web")])
        let host = network.engine(published.publisher).hostName
        let srvQuery = network.withStack(published.publisher) { engine, now in
            engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
        }
        let addressQuery = network.withStack(published.publisher) { engine, now in
            engine.startQuery(name: host, type: .a, at: now)
        }
        network.run(for: .milliseconds(10))
        let events = network.events(of: published.publisher)
        #expect(
            events.contains {
                if case .added(srvQuery, let record, _) = $0 {
                    record.data == .srv(SRVData(port: 8080, target: host))
                } else {
                    false
                }
            })
        let address = network.address(of: published.publisher, on: published.links[0], family: .v4)
        guard case .v4(let v4) = address else {
            Issue.record("no IPv4 address")
            return
        }
        #expect(
            events.contains {
                if case .added(addressQuery, let record, _) = $0 { record.data == .a(v4) } else { false }
            })
    }

    @Test func ownTXTUpdateIsReportedAsUpdated() throws {
        var (published, _) = browseOwnType()
        let txtQuery = published.network.withStack(published.publisher) { engine, now in
            engine.startQuery(name: Names.instance("Web"), type: .txt, at: now)
        }
        let newTXT = Services.txt(["v=2"])
        published.network.withStack(published.publisher) { engine, now in
            engine.updateTXT(published.registration, to: newTXT, at: now)
        }
        published.network.run(for: .milliseconds(10))
        let updates = published.network.events(of: published.publisher).compactMap { event -> TXTData? in
            if case .updated(txtQuery, let record, _) = event, case .txt(let txt) = record.data { return txt }
            return nil
        }
        #expect(updates == [newTXT])
    }

    @Test func deregisteredOwnServiceIsRemovedAtOnce() {
        var (published, query) = browseOwnType()
        published.network.withStack(published.publisher) { engine, now in
            engine.deregister(published.registration, at: now)
        }
        published.network.run(for: .milliseconds(1))
        #expect(published.network.browsed(query, by: published.publisher).isEmpty)
    }

    @Test func serviceStillProbingIsNotVisible() {
        var network = SimulatedNetwork(seed: 3)
        let link = network.addLink()
        let host = network.addHost(named: "solo", links: [link])
        let query = network.withStack(host) { engine, now in
            _ = engine.register(Services.registration("Early"), at: now)
            return engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .milliseconds(200))
        #expect(network.browsed(query, by: host).isEmpty)
        network.run(for: .seconds(2))
        #expect(network.browsed(query, by: host) == [Names.instance("Early")])
    }

    @Test func renamedOwnServiceIsReportedUnderItsNewName() {
        var network = SimulatedNetwork(seed: 4)
        let link = network.addLink()
        let first = network.addHost(named: "first", links: [link])
        let second = network.addHost(named: "second", links: [link])
        network.withStack(first) { engine, now in _ = engine.register(Services.registration("Same", port: 1), at: now) }
        network.run(for: .seconds(5))
        let query = network.withStack(second) { engine, now in
            _ = engine.register(Services.registration("Same", port: 2), at: now)
            return engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(5))
        #expect(network.browsed(query, by: second) == [Names.instance("Same"), Names.instance("Same (2)")])
        let ownAdds = network.events(of: second).filter {
            if case .added(query, let record, _) = $0 {
                record.data == .ptr(Names.instance("Same (2)"))
            } else {
                false
            }
        }
        #expect(ownAdds.count == 1)
    }

    /// A record another responder on this host sent (from one of our addresses, as avahi-daemon
    /// beside us does) is from this host; the same record from another address is not, and
    /// neither is a record not cached (`avahi-browse -l`).
    @Test func aRecordFromOneOfOurAddressesIsFromThisHost() throws {
        var network = SimulatedNetwork(seed: 5)
        let link = network.addLink()
        let host = network.addHost(named: "alpha", links: [link])
        network.run(for: .seconds(1))
        let interface = SimulatedNetwork.interface(for: host, on: link).id
        let ours = SocketAddress(network.address(of: host, on: link, family: .v4), port: mdnsPort)
        let theirs = SocketAddress(.v4(IPv4Address(198, 18, 0, 99)), port: mdnsPort)
        let local = Services.ptr(to: Names.instance("Beside Us"))
        let remote = Services.ptr(to: Names.instance("Elsewhere"))
        for (record, source) in [(local, ours), (remote, theirs)] {
            let bytes = try Messages.response([record]).encoded()
            network.withStack(host) { engine, now in
                _ = engine.receive(
                    ReceivedDatagram(bytes: bytes, source: source, interface: interface, isMulticast: true), at: now)
            }
        }
        let engine = network.engine(host)
        #expect(engine.arrival(of: local, on: interface)?.isFromThisHost == true)
        #expect(engine.arrival(of: remote, on: interface)?.isFromThisHost == false)
        #expect(engine.arrival(of: Services.ptr(to: Names.instance("Never Sent")), on: interface) == nil)
    }
}
