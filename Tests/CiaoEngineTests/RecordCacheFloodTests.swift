import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Bounded cache state under a flood of unique records: the cache stays within its capacity, a
/// long TTL buys the flood nothing, records answering active queries and those cached before the
/// flood survive, and browsing still works.
@Suite struct RecordCacheFloodTests {
    /// Unique flood names `f0000000` …, each one 8-byte label.
    static func name(_ index: Int) -> String {
        let digits = String(index)
        return "f" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// `count` records made by `record` from unique names (`f0000000` …), in responses of up to 9000
    /// bytes. One packet is encoded, the rest are that packet with the names' digits patched:
    /// encoding the records one by one would dominate the test's time. `record` must put the
    /// 8-byte name label into the message once per record, as the first label of a name or a target.
    static func floodPackets(count: Int, record: (String) -> ResourceRecord) -> [[UInt8]] {
        var perPacket = 0
        var bytes: [UInt8] = []
        // As many records as fit in one packet.
        while true {
            let template = (0...perPacket).map { record(name($0)) }
            guard
                let encoded = try? Messages.response(template).encoded(
                    maximumSize: Message.maximumSize)
            else { break }
            bytes = encoded
            perPacket += 1
        }
        let digits = Array("f0000000".utf8)
        var offsets: [Int] = []
        var search = MessageHeader.size
        while offsets.count < perPacket {
            search = bytes.indices[search...].first { bytes[$0] == 8 && bytes[$0 + 1] == digits[0] }!
            offsets.append(search + 1)
            search += 9
        }
        var packets: [[UInt8]] = []
        for first in stride(from: 0, to: count, by: perPacket) {
            guard first + perPacket <= count else {
                // The last, shorter packet is encoded as it is.
                let rest = (first..<count).map { record(name($0)) }
                packets.append(
                    try! Messages.response(rest).encoded(maximumSize: Message.maximumSize))
                break
            }
            var packet = bytes
            for slot in 0..<perPacket {
                packet.replaceSubrange(offsets[slot]..<offsets[slot] + 8, with: Array(name(first + slot).utf8))
            }
            packets.append(packet)
        }
        return packets
    }

    @Test(.long) func floodOfLongLivedRecordsFromOneHostLeavesTheLegitimateListed() async {
        var network = SimulatedNetwork(seed: 50)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let publisher = network.addHost(named: "alpha", links: [link])
        let capacity = 4096
        let browserHost = network.addHost(named: "beta", links: [link], cacheCapacity: capacity)
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("Web"), at: now)
            _ = engine.register(Services.registration("Other", type: Names.otherServiceType), at: now)
            _ = engine.register(Services.registration("Third", type: Names.name("_third._tcp.local.")), at: now)
        }
        network.run(for: .seconds(5))
        network.recordsTransmissions = false
        // Browses the flooded type as `ciao browse` does (no resolution of what it lists), and
        // resolves the legitimate service.
        var browsers = [ResolvingBrowser(host: browserHost, serviceType: Names.serviceType, resolves: false)]
        browsers[0].start(&network)
        network.withStack(browserHost) { engine, now in
            _ = engine.startQuery(name: Names.instance("Web"), type: .srv, at: now)
            _ = engine.startQuery(name: Names.instance("Web"), type: .txt, at: now)
        }
        network.run(until: network.now + .seconds(3), browsers: &browsers)
        let hostName = network.engine(publisher).hostName
        _ = network.withStack(browserHost) { engine, now in engine.startQuery(name: hostName, type: .a, at: now) }
        network.run(until: network.now + .seconds(2), browsers: &browsers)
        #expect(browsers[0].found.keys.contains(Names.instance("Web")))
        // What the browse and the resolution ask for: the PTR, SRV, TXT and A (not the NSECs).
        let protected = Set(
            network.engine(browserHost).cachedRecords(on: InterfaceID(1)).filter {
                ($0.name == Names.serviceType || $0.name == Names.instance("Web") || $0.name == hostName)
                    && [.ptr, .srv, .txt, .a].contains($0.type)
            })
        #expect(protected.count == 4)

        // 600,000 records with TTL 7200 from one host: instances of the browsed type at 2,700 a
        // second, and records nobody asked for (A records of unique names) in between.
        let total = 600_000
        let instances = Self.floodPackets(count: total / 2) { name in
            ResourceRecord(
                name: Names.serviceType, ttl: 7200,
                data: .ptr(try! Names.serviceType.prepending(label: Array(name.utf8))))
        }
        let unasked = Self.floodPackets(count: total / 2) { name in
            ResourceRecord(
                name: try! DomainName(labels: [name, "local"]), ttl: 7200, data: .a(IPv4Address(10, 0, 0, 1)))
        }
        let lastInstance = try! Message(decoding: instances.last!).answers.last
        #expect(
            lastInstance?.data == .ptr(try! Names.serviceType.prepending(label: Array(Self.name(total / 2 - 1).utf8)))
        )
        #expect(
            try! Message(decoding: unasked.last!).answers.last?.name
                == Names.name(Self.name(total / 2 - 1) + ".local."))
        #expect(instances.count + unasked.count > 1000)
        let perPacket = try! Message(decoding: instances[0]).answers.count
        let interval = Duration.seconds(Double(perPacket) / 2700)
        var largest = 0
        for index in 0..<max(instances.count, unasked.count) {
            for packets in [instances, unasked] where index < packets.count {
                network.inject(packets[index], from: observer, on: link)
            }
            network.run(until: network.now + interval, step: interval, browsers: &browsers)
            if index == instances.count / 2 {
                // Mid-flood, a new browse for another type.
                browsers.append(ResolvingBrowser(host: browserHost, serviceType: Names.otherServiceType))
                browsers[1].start(&network)
            }
            largest = max(largest, network.engine(browserHost).cachedRecords(on: InterfaceID(1)).count)
            // The flood runs for seconds: leave the shared thread pool to other tests between
            // packets, or tests that await with deadlines starve on a two-core machine.
            await Task.yield()
        }
        // After the flood, a browse for a third type.
        browsers.append(ResolvingBrowser(host: browserHost, serviceType: Names.name("_third._tcp.local.")))
        browsers[2].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)

        let cached = network.engine(browserHost).cachedRecords(on: InterfaceID(1))
        #expect(largest <= capacity)
        #expect(cached.allSatisfy { $0.ttl <= 4500 })
        // The legitimate service stayed listed and resolvable, and no one was told it left.
        let cachedKeys = Set(
            cached.map { ResourceRecord(name: $0.name, cacheFlush: $0.cacheFlush, ttl: 0, data: $0.data) })
        let evicted = protected.filter {
            !cachedKeys.contains(ResourceRecord(name: $0.name, cacheFlush: $0.cacheFlush, ttl: 0, data: $0.data))
        }
        #expect(evicted.isEmpty)
        let legitimateRemovals = network.events.filter { timed in
            guard timed.host == browserHost, case .removed(_, let record, _) = timed.event else { return false }
            return protected.contains { $0.name == record.name && $0.data == record.data }
        }
        #expect(legitimateRemovals.isEmpty)
        // What floods is turned away once the cache is full: its instances get in only in place
        // of unasked records, and one for each legitimate newcomer, so the browse hears of no
        // more than the cache holds (of 300,000; all of them before the change).
        #expect(browsers[0].found.count <= capacity)
        #expect(
            browsers[1].resolved.keys.contains(try! Names.otherServiceType.prepending(label: Array("Other".utf8))))
        #expect(
            browsers[2].resolved.keys.contains(
                try! Names.name("_third._tcp.local.").prepending(label: Array("Third".utf8))))
    }

    /// A link with an engine-less observer (the source of what the test injects) and a browser
    /// with a cache of `capacity` records browsing the test type, settled.
    static func browsingLab(seed: UInt64, capacity: Int) -> (
        network: SimulatedNetwork, link: SimulatedNetwork.LinkID, observer: SimulatedNetwork.HostID,
        browser: SimulatedNetwork.HostID, query: QueryID
    ) {
        var (network, link, observer, browserHost) = SimulatedNetwork.observerAndBrowser(
            seed: seed, settle: .seconds(2), cacheCapacity: capacity)
        let query = network.withStack(browserHost) { engine, now in
            engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        return (network, link, observer, browserHost, query)
    }

    /// One host with more records than half the cache, most of them unasked (as NSECs are): the
    /// records a query asks for still all get in, in place of the unasked ones, and what no one
    /// asked for is turned away once the cache is full.
    @Test func aLargePublisherGetsRoomFromUnaskedRecords() {
        let capacity = 512
        let lab = Self.browsingLab(seed: 52, capacity: capacity)
        var network = lab.network
        let (link, observer, browserHost, query) = (lab.link, lab.observer, lab.browser, lab.query)
        func inject(_ records: [ResourceRecord]) {
            for start in stride(from: 0, to: records.count, by: 50) {
                network.inject(
                    Messages.response(Array(records[start..<min(start + 50, records.count)])), from: observer, on: link)
                network.run(for: .milliseconds(10))
            }
        }
        inject(
            (0..<450).map {
                ResourceRecord(name: Names.name("u\($0).local."), ttl: 4500, data: .a(IPv4Address(10, 0, 0, 1)))
            })
        let instances = (0..<300).map { Names.instance("Big \($0)") }
        inject(instances.map { ResourceRecord(name: Names.serviceType, ttl: 4500, data: .ptr($0)) })
        inject(
            (450..<600).map {
                ResourceRecord(name: Names.name("u\($0).local."), ttl: 4500, data: .a(IPv4Address(10, 0, 0, 1)))
            })
        let cached = network.engine(browserHost).cachedRecords(on: InterfaceID(1))
        #expect(cached.count <= capacity)
        #expect(network.browsed(query, by: browserHost) == Set(instances))
        // The unasked records sent once the cache was full were turned away.
        #expect(!cached.contains { $0.name == Names.name("u599.local.") })
    }

    /// A flood of records that all answer an active query (PTRs of the browsed type): protection
    /// cannot hold them all, and the cap still holds.
    @Test func floodOfAnswersToAnActiveQueryStaysBounded() {
        let capacity = 512
        let lab = Self.browsingLab(seed: 51, capacity: capacity)
        var network = lab.network
        let (link, observer, browserHost, query) = (lab.link, lab.observer, lab.browser, lab.query)
        var largest = 0
        for batch in 0..<40 {
            let records = (0..<100).map { index in
                ResourceRecord(
                    name: Names.serviceType, ttl: 4500,
                    data: .ptr(Names.instance("Flood \(batch * 100 + index)")))
            }
            network.inject(Messages.response(records), from: observer, on: link)
            network.run(for: .milliseconds(10))
            largest = max(largest, network.engine(browserHost).cachedRecords(on: InterfaceID(1)).count)
        }
        #expect(largest <= capacity)
        // Every eviction of a reported record was reported: what the browser believes present is cached.
        let present = network.browsed(query, by: browserHost)
        let cached = Set(
            network.engine(browserHost).cachedRecords(on: InterfaceID(1)).compactMap { record -> DomainName? in
                if case .ptr(let target) = record.data { return target }
                return nil
            })
        #expect(present == cached)
    }
}
