import CiaoEngine
import CiaoWire
import Testing

@testable import Ciao

/// Record lookups of the runtime's DNS-SD layer on the simulated network: a host's addresses,
/// an address's name, any record of a service, as lookups' callbacks receive them.
@Suite struct RecordLookupTests {
    static let type = try! ServiceType("_ciao._tcp")
    static let web = Publication(
        name: "Web", type: type, port: 8080, txtRecord: .empty, subtypes: [], allowsRenaming: true)

    @Test func aHostsAddressesAndTheNameEachMapsBackTo() throws {
        var harness = DriverPair()
        harness.publish(Self.web, on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.lookUp(try RecordLookup(hostName: "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0))
        harness.run(for: .seconds(1))
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        let v6 = harness.network.address(of: harness.publisher, on: harness.link, family: .v6)
        let found = harness.recordBatches.joined().map(\.record)
        #expect(Set(found.map(\.value)) == [v4.description, v6.description])
        for record in found {
            #expect(record.name == "alpha.local.")
            #expect(record.interfaceIndex == 1)
            #expect(record.isUnique)
            #expect(record.ttl == 120)
        }
        let families: [NetworkScope.AddressFamily] = found.compactMap(HostAddress.init).map(\.family)
        #expect(Set(families) == [.ipv4, .ipv6])

        for address in [v4, v6] {
            var reverse = DriverPair()
            reverse.publish(Self.web, on: reverse.publisher)
            reverse.run(for: .seconds(3))
            reverse.lookUp(try RecordLookup(reverseOf: address.description, interfaceIndex: 0))
            reverse.run(for: .seconds(1))
            let answers = reverse.recordBatches.joined().map(\.record)
            #expect(answers.map(\.value) == ["alpha.local."], "reverse of \(address)")
            #expect(answers.first?.name == address.reverseMappingName.description)
        }
    }

    /// A record is reported when it comes, when its data changes and when its owner withdraws it:
    /// the SRV and TXT of a service published, updated and stopped while the lookup runs.
    @Test func recordsComeChangeAndGo() throws {
        var harness = DriverPair()
        harness.lookUp(try RecordLookup(name: "Web._ciao._tcp.local", types: [.txt], interfaceIndex: 0))
        let token = harness.publish(Self.web, on: harness.publisher)
        harness.run(for: .seconds(3))
        let updated = try TXTRecord(strings: ["v": "2"])
        harness.send(.updateTXT(updated, of: token), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.send(.cancel(token), on: harness.publisher)
        harness.run(for: .seconds(2))
        let events = Array(harness.recordBatches.joined())
        let empty = try TXTData(strings: [[]]).wireBytes
        #expect(events.map(\.kind) == ["added", "updated", "removed"])
        #expect(events.map(\.record.data) == [empty, [3] + Array("v=2".utf8), [3] + Array("v=2".utf8)])
        #expect(events.map(\.record.value) == ["\"\"", "\"v=2\"", "\"v=2\""])
    }

    /// Started when the answers are cached already, a lookup reports them at once, in its first
    /// batch, before any query of its own has gone out.
    @Test func cachedAnswersComeFirst() throws {
        var harness = DriverPair()
        harness.publish(Self.web, on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        harness.lookUp(try RecordLookup(name: "Web._ciao._tcp.local.", types: [.srv], interfaceIndex: 0))
        let first = try #require(harness.recordBatches.first)
        #expect(first.map(\.record.value) == ["0 0 8080 alpha.local."])
    }

    /// An IPv4-only host's responder says, with an NSEC, that its name has no AAAA record (RFC
    /// 6762 §6.1): a lookup of both families running as it comes reports its A record and, once,
    /// the denial of AAAA with that NSEC; a lookup started later hears the denial at once, from
    /// the cache.
    @Test func aTypeTheNameLacksIsDeniedOnceByItsNSEC() throws {
        var harness = DriverPair(publisherFamilies: [.v4])
        harness.lookUp(try RecordLookup(hostName: "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0))
        harness.publish(Self.web, on: harness.publisher)
        harness.run(for: .seconds(10))
        let events = Array(harness.recordBatches.joined())
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        #expect(events.filter { $0.kind == "added" }.map(\.record.value) == [v4.description])
        let denials = events.filter { $0.kind == "noSuchRecord" }
        let nsec = try #require(denials.first?.record)
        #expect(denials == [.noSuchRecord(.aaaa, nsec)])
        #expect(nsec.type == .nsec)
        #expect(nsec.value == "alpha.local. A")
        #expect(events.count == 2)

        let batches = harness.recordBatches.count
        harness.lookUp(try RecordLookup(hostName: "alpha", families: [.ipv6], interfaceIndex: 0))
        #expect(harness.recordBatches.dropFirst(batches).first?.map(\.kind) == ["noSuchRecord"])
    }

    /// A host name of one label is in `local.`; one of two labels or more is asked as written, of
    /// unicast DNS unless it is in `local.`; the command-line tool decides the same way whether to
    /// wait for an interface.
    @Test func hostNamesOfOneLabelAreInLocal() throws {
        for (written, asked, isMulticast) in [
            ("alpha", "alpha.local.", true), ("alpha.", "alpha.local.", true), ("Alpha.LOCAL", "Alpha.LOCAL.", true),
            ("printer.lab.example", "printer.lab.example.", false),
            ("printer.lab.example.", "printer.lab.example.", false),
        ] {
            let lookup = try RecordLookup(hostName: written, families: [.ipv4], interfaceIndex: 0)
            #expect(lookup.name.description == asked && lookup.isMulticast == isMulticast, "\(written)")
            #expect(CiaoResolver.qualifiedHostName(written) == asked)
            #expect(CiaoResolver.asksMulticastDNS(written, isHostName: true) == isMulticast)
        }
        #expect(!CiaoResolver.asksMulticastDNS("www.example.com"))
        #expect(CiaoResolver.asksMulticastDNS("7.0.18.198.in-addr.arpa"))
        #expect(CiaoResolver.asksMulticastDNS("a..b"), "a name that cannot be asked for")
    }

    @Test func namesAndAddressesAreCheckedBeforeAnyNetworkWork() {
        #expect(throws: CiaoError.self) { try RecordLookup(hostName: "alpha", families: [], interfaceIndex: 0) }
        #expect(throws: CiaoError.self) {
            try RecordLookup(hostName: "printer..example.com", families: [.ipv4], interfaceIndex: 0)
        }
        #expect(throws: CiaoError.self) { try RecordLookup(name: "", types: [.a], interfaceIndex: 0) }
        #expect(throws: CiaoError.self) {
            try RecordLookup(name: String(repeating: "x", count: 64) + ".local", types: [.a], interfaceIndex: 0)
        }
        #expect(throws: CiaoError.self) { try RecordLookup(reverseOf: "192.0.2", interfaceIndex: 0) }
        #expect(
            (try? RecordLookup(hostName: "Alpha.Local.", families: [.ipv6], interfaceIndex: 0))?.name.description
                == "Alpha.Local.")
        #expect(
            (try? RecordLookup(reverseOf: "fe80::1%eth0", interfaceIndex: 0))?.name.description.hasSuffix(
                ".e.f.ip6.arpa.") == true)
        #expect(
            (try? RecordLookup(reverseOf: "192.0.2.7", interfaceIndex: 0))?.name.description
                == "7.2.0.192.in-addr.arpa.")
    }

    @Test func recordTypesByMnemonicOrNumber() {
        #expect(DNSRecordType("aaaa") == .aaaa)
        #expect(DNSRecordType("HINFO") == .hinfo)
        #expect(DNSRecordType("65")?.rawValue == 65)
        #expect(DNSRecordType("type65")?.description == "TYPE65")
        #expect(DNSRecordType("NSEC") == .nsec)
        #expect(DNSRecordType("OPT") == nil)
        #expect(DNSRecordType("0") == nil)
        #expect(DNSRecordType("65536") == nil)
        #expect(DNSRecordType("BOGUS") == nil)
    }
}

extension RecordEvent {
    var kind: String {
        switch self {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        case .noSuchRecord: "noSuchRecord"
        }
    }
}
