@testable import CiaoEngine
import CiaoWire
import Testing

/// One copy of each record in a message (RFC 6762 §6: a record is not repeated in a response),
/// by the same rule as the cache's keys, whether few records or many.
@Suite struct UniqueRecordsTests {
    private func ptr(_ type: String, _ instance: String, ttl: UInt32 = 4500) -> ResourceRecord {
        let typeName = DomainName(type)!
        return ResourceRecord(
            name: typeName, ttl: ttl, data: .ptr(try! typeName.prepending(label: Array(instance.utf8))))
    }

    @Test func sameNameClassAndDataIsOneRecordWhateverTheTTLOrCase() {
        var records = UniqueRecords()
        var flushed = ptr("_http._tcp.local.", "B")
        flushed.cacheFlush = true
        let added = [
            ptr("_http._tcp.local.", "A"), ptr("_HTTP._tcp.local.", "A", ttl: 120), ptr("_http._tcp.local.", "a"),
            ptr("_http._tcp.local.", "B"), ptr("_ipp._tcp.local.", "A"), flushed,
        ].map { records.insert($0) }
        #expect(added == [true, false, false, true, true, false])
        #expect(
            records.records.map(\.description)
                == [
                    ptr("_http._tcp.local.", "A"), ptr("_http._tcp.local.", "B"), ptr("_ipp._tcp.local.", "A"),
                ].map(\.description))
    }

    /// The comparison and the cache's keys agree on every pair: names in either case, classes,
    /// types and data that differ, TTLs and cache-flush bits that do not count.
    @Test func sameRecordAgreesWithRecordKeys() {
        let host = DomainName("host.local.")!, other = DomainName("HOST.local.")!
        var records: [ResourceRecord] = []
        for name in [host, other, DomainName("other.local.")!] {
            for data: RecordData in [
                .a(IPv4Address(198, 18, 0, 1)), .a(IPv4Address(198, 18, 0, 2)), .ptr(host), .ptr(other),
            ] {
                for rrClass: RecordClass in [.internet, RecordClass(rawValue: 3)] {
                    records.append(ResourceRecord(name: name, rrClass: rrClass, ttl: 120, data: data))
                    records.append(ResourceRecord(name: name, rrClass: rrClass, cacheFlush: true, ttl: 1, data: data))
                }
            }
        }
        for a in records {
            for b in records {
                #expect(a.isSameRecord(as: b) == (RecordKey(a) == RecordKey(b)), "\(a) / \(b)")
            }
        }
    }

    /// Past the linear limit the set takes over with every record seen so far, early ones included.
    @Test func manyRecordsStayUniqueAcrossTheSwitchToASet() {
        let count = UniqueRecords.linearLimit * 4
        let originals = (0..<count).map { ptr("_http._tcp.local.", "Instance \($0)") }
        var records = UniqueRecords(originals)
        #expect(records.records.count == count)
        let copies = [0, UniqueRecords.linearLimit - 1, UniqueRecords.linearLimit, count - 1].map {
            ptr("_HTTP._TCP.local.", "INSTANCE \($0)", ttl: 1)
        }
        #expect(copies.map { records.insert($0) } == [false, false, false, false])
        let another = records.insert(ptr("_http._tcp.local.", "Instance \(count)"))
        #expect(another)
        #expect(records.records.count == count + 1)
        #expect(records.records.first?.description == originals.first?.description)
    }
}
