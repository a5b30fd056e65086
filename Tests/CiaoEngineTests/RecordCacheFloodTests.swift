import CiaoEngine
import CiaoSimulation
import CiaoWire
import Testing

/// Bounded cache state under a flood of unique records (DESIGN.md §5): the cache stays within its
/// capacity, records answering active queries survive, and browsing still works.
@Suite struct RecordCacheFloodTests {
    static let recordsPerPacket = 355

    /// `count` A records with unique names `f0000000.local.` …, TTL `ttl`, in responses of up to
    /// 9000 bytes. One packet is encoded, the rest are that packet with the digits and addresses
    /// patched: encoding a million records one by one would dominate the test's time.
    static func floodPackets(count: Int, ttl: UInt32 = 4500) -> [[UInt8]] {
        let template = (0..<recordsPerPacket).map { index in
            ResourceRecord(name: try! DomainName(labels: [name(index), "local"]), ttl: ttl,
                           data: .a(IPv4Address(10, 0, 0, 0)))
        }
        let bytes = try! Message(header: .response(), answers: template).encoded(maximumSize: Message.maximumSize)
        // Each record: 0x08 "f0000000" pointer(2) type(2) class(2) ttl(4) rdlength(2) address(4);
        // the first carries "local" in full instead of a pointer.
        let digits = Array("f0000000".utf8)
        var offsets: [Int] = []
        var search = MessageHeader.size
        while offsets.count < recordsPerPacket {
            search = bytes.indices[search...].first { bytes[$0] == 8 && bytes[$0 + 1] == digits[0] }!
            offsets.append(search + 1)
            search += 9
        }
        var packets: [[UInt8]] = []
        for first in stride(from: 0, to: count, by: recordsPerPacket) {
            var packet = bytes
            let records = min(recordsPerPacket, count - first)
            for slot in 0..<records {
                let index = first + slot
                let label = Array(name(index).utf8)
                packet.replaceSubrange(offsets[slot]..<offsets[slot] + 8, with: label)
                // The address is the last 4 bytes of the record, before the next record's name.
                let end = slot + 1 < recordsPerPacket ? offsets[slot + 1] - 1 : bytes.count
                packet[end - 3] = UInt8(truncatingIfNeeded: index >> 16)
                packet[end - 2] = UInt8(truncatingIfNeeded: index >> 8)
                packet[end - 1] = UInt8(truncatingIfNeeded: index)
            }
            if records < recordsPerPacket {
                // Cut the unused records and fix ANCOUNT.
                let end = offsets[records] - 1
                packet = Array(packet[..<end])
                packet[6] = UInt8(records >> 8)
                packet[7] = UInt8(records & 0xFF)
            }
            packets.append(packet)
        }
        return packets
    }

    static func name(_ index: Int) -> String {
        let digits = String(index)
        return "f" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    @Test func millionRecordFloodKeepsTheCacheBoundedAndBrowsingAlive() async {
        let clock = ContinuousClock()
        let started = clock.now
        var network = SimulatedNetwork(seed: 50)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let publisher = network.addHost(named: "alpha", links: [link])
        let capacity = 4096
        let browserHost = network.addHost(named: "beta", links: [link], cacheCapacity: capacity)
        network.withEngine(publisher) { engine, now in
            _ = engine.register(Support.service("Web"), at: now)
            var other = Support.service("Other")
            other.serviceType = Querier.otherServiceType
            _ = engine.register(other, at: now)
            var third = Support.service("Third")
            third.serviceType = Querier.name("_third._tcp.local.")
            _ = engine.register(third, at: now)
        }
        network.run(for: .seconds(5))
        network.recordsTransmissions = false
        var browsers = [ResolvingBrowser(host: browserHost)]
        browsers[0].start(&network)
        network.run(until: network.now + .seconds(3), browsers: &browsers)
        #expect(browsers[0].resolved.keys.contains(Support.instance("Web")))
        // What the browse and resolver queries ask for: the PTR, SRV, TXT, A and AAAA (not the NSECs).
        let protected = Set(network.engine(browserHost).cachedRecords(on: InterfaceID(1)).filter {
            ($0.name == Support.serviceType || $0.name == Support.instance("Web") || $0.name == network.engine(publisher).hostName)
                && $0.type != .nsec
        })
        #expect(protected.count >= 5)  // PTR, SRV, TXT, A, AAAA

        let total = 1_000_000
        let packets = Self.floodPackets(count: total)
        // The patched packets decode to what they claim.
        let sample = try! Message(decoding: packets[1])
        #expect(packets.allSatisfy { $0.count <= Message.maximumSize })
        #expect(sample.answers.count == Self.recordsPerPacket)
        #expect(sample.answers.last == ResourceRecord(
            name: Querier.name("f0000709.local."), ttl: 4500, data: .a(IPv4Address(10, 0, 2, 197))))
        #expect(try! Message(decoding: packets.last!).answers.last?.name == Querier.name(Self.name(total - 1) + ".local."))
        let encoded = clock.now
        var largest = 0
        for (index, packet) in packets.enumerated() {
            Querier.inject(packet, from: observer, on: link, into: &network)
            network.run(until: network.now + .milliseconds(2), step: .milliseconds(2), browsers: &browsers)
            if index == packets.count / 2 {
                // Mid-flood, a new browse for another type.
                browsers.append(ResolvingBrowser(host: browserHost, serviceType: Querier.otherServiceType))
                browsers[1].start(&network)
            }
            if index % 256 == 0 {
                largest = max(largest, network.engine(browserHost).cachedRecords(on: InterfaceID(1)).count)
            }
            // The flood runs for tens of seconds: leave the shared thread pool to other tests
            // between packets, or tests that await with deadlines starve on a two-core machine.
            await Task.yield()
        }
        let flooded = clock.now
        // After the flood, a browse for a third type.
        browsers.append(ResolvingBrowser(host: browserHost, serviceType: Querier.name("_third._tcp.local.")))
        browsers[2].start(&network)
        network.run(until: network.now + .seconds(5), browsers: &browsers)

        let cached = network.engine(browserHost).cachedRecords(on: InterfaceID(1))
        largest = max(largest, cached.count)
        #expect(largest <= capacity)
        #expect(cached.count <= capacity)
        // Protected records survived the flood, and their queries saw no removal.
        let cachedKeys = Set(cached.map { ResourceRecord(name: $0.name, cacheFlush: $0.cacheFlush, ttl: 0, data: $0.data) })
        let evicted = protected.filter {
            !cachedKeys.contains(ResourceRecord(name: $0.name, cacheFlush: $0.cacheFlush, ttl: 0, data: $0.data))
        }
        #expect(evicted.isEmpty)
        #expect(browsers[0].removals.isEmpty)
        #expect(browsers[1].resolved.keys.contains(try! Querier.otherServiceType.prepending(label: Array("Other".utf8))))
        #expect(browsers[2].resolved.keys.contains(try! Querier.name("_third._tcp.local.").prepending(label: Array("Third".utf8))))
        let finished = clock.now
        print("""
            flood of \(total) records in \(packets.count) packets: largest cache \(largest) of \(capacity); \
            encoding \(encoded - started), flood \(flooded - encoded), total \(finished - started)
            """)
    }

    /// A flood of records that all answer an active query (PTRs of the browsed type): protection
    /// cannot hold them all, and the cap still holds.
    @Test func floodOfAnswersToAnActiveQueryStaysBounded() {
        var network = SimulatedNetwork(seed: 51)
        let link = network.addLink()
        let observer = network.addHost(named: nil, links: [link])
        let capacity = 512
        let browserHost = network.addHost(named: "beta", links: [link], cacheCapacity: capacity)
        network.run(for: .seconds(2))
        let query = network.withEngine(browserHost) { engine, now in
            engine.startQuery(name: Support.serviceType, type: .ptr, at: now)
        }
        var largest = 0
        for batch in 0..<40 {
            let records = (0..<100).map { index in
                ResourceRecord(name: Support.serviceType, ttl: 4500,
                               data: .ptr(Support.instance("Flood \(batch * 100 + index)")))
            }
            Querier.inject(Querier.response(records), from: observer, on: link, into: &network)
            network.run(for: .milliseconds(10))
            largest = max(largest, network.engine(browserHost).cachedRecords(on: InterfaceID(1)).count)
        }
        #expect(largest <= capacity)
        // Every eviction of a reported record was reported: what the browser believes present is cached.
        let present = network.browsed(query, by: browserHost)
        let cached = Set(network.engine(browserHost).cachedRecords(on: InterfaceID(1)).compactMap { record -> DomainName? in
            if case .ptr(let target) = record.data { return target }
            return nil
        })
        #expect(present == cached)
    }
}
