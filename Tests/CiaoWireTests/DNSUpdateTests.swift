import CiaoWire
import Foundation
import Testing

/// DNS UPDATE messages (RFC 2136) as BIND's nsupdate builds them, and the Update Lease option
/// (RFC 9664).
@Suite struct DNSUpdateTests {
    static func name(_ text: String) -> DomainName { try! DomainName(parsing: text) }

    /// nsupdate's `update add ciao.lab.example. 300 TXT "v=1"` in zone `lab.example.`, before its
    /// TSIG record (`Captures/TSIG/signed-request.bin`), byte for byte.
    @Test func anAddIsEncodedAsNsupdateSendsIt() throws {
        let captured = try TSIGTests.capture("signed-request")
        let update = DNSUpdate(
            id: 0x12ab, zone: Self.name("lab.example."),
            updates: [
                ResourceRecord(
                    name: Self.name("ciao.lab.example."), ttl: 300,
                    data: .txt(try TXTData(strings: [Array("v=1".utf8)])))
            ])
        let tsigStart = try #require(captured.firstRange(of: [9] + Array("ciao-test".utf8) + [0])).lowerBound
        var expected = Array(captured[..<tsigStart])
        expected[11] = 0
        let encoded = try update.message.encoded()
        #expect(encoded == expected)
    }

    /// The prerequisite and deletions have empty RDATA and TTL 0, in the classes §2.4 and §2.5 give.
    @Test func prerequisitesAndDeletionsHaveTheirClassesAndNoData() throws {
        let instance = Self.name("Kitchen._http._tcp.lab.example.")
        let ptr = ResourceRecord(name: Self.name("_http._tcp.lab.example."), ttl: 120, data: .ptr(instance))
        let update = DNSUpdate(
            id: 1, zone: Self.name("lab.example."), prerequisites: [DNSUpdate.nameIsNotInUse(instance)],
            updates: [DNSUpdate.delete(ptr), DNSUpdate.deleteRRset(named: instance, type: .srv)])
        let bytes = try update.message.encoded()
        #expect(bytes[2] >> 3 & 0xF == DNSUpdate.opcode)
        let decoded = try Message.decode(bytes, limits: .unicast).message
        let prerequisite = try #require(decoded.answers.first)
        #expect(prerequisite.rrClass == DNSUpdate.classNone && prerequisite.type == .any && prerequisite.ttl == 0)
        #expect(prerequisite.data == .unknown(.any, []))
        #expect(decoded.authorities.map(\.rrClass) == [DNSUpdate.classNone])
        #expect(decoded.authorities.first?.data == .ptr(instance) && decoded.authorities.first?.ttl == 0)
        // An SRV without RDATA is no record to a querier's decoder; the server reads it as "delete the RRset".
        #expect(Array(bytes.suffix(10)) == [0, 33, 0, 255, 0, 0, 0, 0, 0, 0])
    }

    @Test func updateLeaseCarriesOneOrTwoLeases() {
        let lease = EDNSOption.updateLease(7200)
        #expect(lease.code == 2 && lease.data == [0, 0, 0x1c, 0x20])
        #expect(lease.updateLease?.lease == 7200 && lease.updateLease?.keyLease == nil)
        let both = EDNSOption.updateLease(3600, keyLease: 86400)
        #expect(both.data == [0, 0, 0x0e, 0x10, 0, 1, 0x51, 0x80])
        #expect(both.updateLease?.keyLease == 86400)
        #expect(EDNSOption(code: 2, data: [1, 2, 3]).updateLease == nil)
    }
}
