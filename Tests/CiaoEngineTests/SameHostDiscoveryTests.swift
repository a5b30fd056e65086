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

/// The kernel loops our multicast back so that other stacks on this host hear it; the engine
/// drops its own copy and still hears those stacks (RFC 6762 §15).
@Suite struct OwnMulticastTests {
    private let address = IPAddress.v4(IPv4Address(198, 18, 0, 1))
    private var interface: NetworkInterface {
        NetworkInterface(id: InterfaceID(1), name: "veth0", addresses: [InterfaceAddress(address, prefixLength: 24)])
    }

    /// An engine that has sent its first PTR query, and the query's bytes.
    private func engineThatAsked(at sentAt: Instant) -> (MDNSEngine, [UInt8]) {
        var engine = MDNSEngine(configuration: .init(hostLabel: "ciao"), seed: 1)
        engine.setInterface(interface, at: .zero)
        _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: .zero)
        engine.advance(to: sentAt)
        let query = engine.takeDatagrams().first { $0.purpose == .query }!
        engine.noteSent(at: sentAt)
        return (engine, query.bytes)
    }

    private func datagram(_ bytes: [UInt8], from source: IPAddress) -> ReceivedDatagram {
        ReceivedDatagram(
            bytes: bytes, source: SocketAddress(source, port: mdnsPort), interface: interface.id, isMulticast: true)
    }

    @Test func ourOwnLoopedBackQueryIsDropped() {
        let sentAt = Instant.zero + .milliseconds(200)
        var (engine, query) = engineThatAsked(at: sentAt)
        #expect(engine.receive(datagram(query, from: address), at: sentAt + .milliseconds(1)) == .ownMulticast)
    }

    /// The same bytes from another host are its own query; after two seconds ours are forgotten.
    @Test func theSameBytesFromAnotherHostOrLaterAreHandled() {
        let sentAt = Instant.zero + .milliseconds(200)
        var (engine, query) = engineThatAsked(at: sentAt)
        let other = IPAddress.v4(IPv4Address(198, 18, 0, 2))
        #expect(engine.receive(datagram(query, from: other), at: sentAt + .milliseconds(1)) == nil)
        #expect(engine.receive(datagram(query, from: address), at: sentAt + .milliseconds(2001)) == nil)
    }

    /// Another stack on this host (avahi-daemon beside us) sends from our address and port: its
    /// answer is heard and reported.
    @Test func anotherStackOnThisHostIsHeard() throws {
        let sentAt = Instant.zero + .milliseconds(200)
        var (engine, _) = engineThatAsked(at: sentAt)
        _ = engine.takeEvents()
        let answer = try Messages.response([Services.ptr(to: Names.instance("Printer"))]).encoded()
        #expect(engine.receive(datagram(answer, from: address), at: sentAt + .milliseconds(5)) == nil)
        #expect(
            engine.takeEvents().contains {
                if case .added(_, let record, _) = $0 { record.data == .ptr(Names.instance("Printer")) } else { false }
            })
    }

    /// On the simulated network, as on sockets, each multicast comes back to its sender: every
    /// one is dropped as our own, and nothing of ours is taken for another host's (no conflict).
    @Test func everyMulticastLoopedBackOnTheSimulatedNetworkIsDropped() {
        var (network, _, publisher, _) = SimulatedNetwork.alphaAndBeta(seed: 5)
        network.withStack(publisher) { engine, _ in engine.reportsDiagnostics = true }
        network.register(Services.registration("Web"), on: publisher)
        network.run(for: .seconds(5))
        let diagnostics = network.withStack(publisher) { engine, _ in engine.takeDiagnostics() }
        let dropped = diagnostics.filter {
            if case .dropped(.ownMulticast, _, _) = $0 { true } else { false }
        }
        let multicast = network.transmissions.filter {
            if case .multicast = $0.datagram.destination { $0.sender == publisher } else { false }
        }
        #expect(!multicast.isEmpty && dropped.count == multicast.count)
        #expect(!diagnostics.contains { if case .conflict = $0 { true } else { false } })
    }
}
