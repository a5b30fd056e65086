import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire
import Testing

@testable import Ciao

/// A unicast DNS lookup's answers, round after round, as the events a lookup reports.
@Suite struct UnicastRecordSetTests {
    static let printer = Names.name("printer.lab.example.")
    static let soa = ResourceRecord(
        name: Names.name("lab.example."), ttl: 10,
        data: .soa(
            SOAData(
                primaryServer: Names.name("ns.lab.example."), responsibleMailbox: Names.name("admin.lab.example."),
                serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 10)))

    static func address(_ last: UInt8, ttl: UInt32 = 300) -> ResourceRecord {
        ResourceRecord(name: printer, ttl: ttl, data: .a(IPv4Address(198, 18, 0, last)))
    }

    static func answer(_ records: [ResourceRecord], type: RecordType = .a) -> DNSAnswer {
        DNSAnswer(name: printer, type: type, outcome: .records, records: records, ttl: 300)
    }

    static func negative(_ outcome: DNSAnswer.Outcome, type: RecordType = .a, soa: ResourceRecord? = soa) -> DNSAnswer {
        DNSAnswer(name: printer, type: type, outcome: outcome, records: [], ttl: soa == nil ? 0 : 10, soa: soa)
    }

    static func record(_ record: ResourceRecord) -> DNSRecord { DNSRecord(unicast: record) }

    static let start = ContinuousClock.now

    /// New records are added, on interface 0 and unique; a round that only lowers TTLs reports
    /// nothing; a changed RRset is the old records removed (with the TTL last received) and the
    /// new ones added.
    @Test func aChangedRRsetIsItsRemovalsAndAdditions() {
        var set = UnicastRecordSet()
        let first = set.take(Self.answer([Self.address(50), Self.address(51)]), at: Self.start)
        #expect(first == [.added(Self.record(Self.address(50))), .added(Self.record(Self.address(51)))])
        #expect(first.allSatisfy { $0.record.interfaceIndex == 0 && $0.record.isUnique })
        #expect(
            set.take(Self.answer([Self.address(50, ttl: 240), Self.address(51, ttl: 240)]), at: Self.start).isEmpty)
        #expect(
            set.take(Self.answer([Self.address(51), Self.address(52)]), at: Self.start)
                == [.removed(Self.record(Self.address(50, ttl: 240))), .added(Self.record(Self.address(52)))])
    }

    /// NODATA or NXDOMAIN with the zone's SOA removes what was there and denies the type once,
    /// with the SOA as the record that says so; records that come later lift the denial.
    @Test func aNegativeAnswerDeniesTheTypeOnceWithItsSOA() {
        var set = UnicastRecordSet()
        _ = set.take(Self.answer([Self.address(50)]), at: Self.start)
        #expect(
            set.take(Self.negative(.noData), at: Self.start)
                == [.removed(Self.record(Self.address(50))), .noSuchRecord(.a, Self.record(Self.soa))])
        #expect(set.take(Self.negative(.nameError), at: Self.start).isEmpty)
        #expect(
            set.take(Self.negative(.noData, type: .aaaa), at: Self.start) == [
                .noSuchRecord(.aaaa, Self.record(Self.soa))
            ])
        #expect(set.take(Self.answer([Self.address(50)]), at: Self.start) == [.added(Self.record(Self.address(50)))])
        #expect(
            set.take(Self.negative(.nameError), at: Self.start) == [
                .removed(Self.record(Self.address(50))), .noSuchRecord(.a, Self.record(Self.soa)),
            ])
    }

    /// A negative answer without an SOA removes what was there and denies nothing: a lookup has
    /// no record to show for it.
    @Test func aNegativeAnswerWithoutAnSOADeniesNothing() {
        var set = UnicastRecordSet()
        _ = set.take(Self.answer([Self.address(50)]), at: Self.start)
        #expect(set.take(Self.negative(.noData, soa: nil), at: Self.start) == [.removed(Self.record(Self.address(50)))])
        #expect(set.take(Self.negative(.noData), at: Self.start) == [.noSuchRecord(.a, Self.record(Self.soa))])
    }

    /// While the servers cannot be asked, each record is removed once its own TTL has run out
    /// since its answer came, once.
    @Test func recordsExpireByTheirTTLsWhileTheServerCannotBeAsked() {
        var set = UnicastRecordSet()
        _ = set.take(Self.answer([Self.address(50, ttl: 60), Self.address(51, ttl: 300)]), at: Self.start)
        #expect(set.expire(.a, at: Self.start + .seconds(59)).isEmpty)
        #expect(set.expire(.a, at: Self.start + .seconds(60)) == [.removed(Self.record(Self.address(50, ttl: 60)))])
        #expect(set.expire(.a, at: Self.start + .seconds(61)).isEmpty)
        #expect(set.expire(.aaaa, at: Self.start + .seconds(3600)).isEmpty)
        #expect(set.expire(.a, at: Self.start + .seconds(300)) == [.removed(Self.record(Self.address(51, ttl: 300)))])
        #expect(
            set.take(Self.answer([Self.address(51)]), at: Self.start + .seconds(301)) == [
                .added(Self.record(Self.address(51)))
            ])
    }
}
