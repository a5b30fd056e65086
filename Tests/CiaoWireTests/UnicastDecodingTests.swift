import CiaoTestFixtures
import Testing

@testable import CiaoWire

/// Unicast DNS decoding: the larger size and any OPCODE under `DecodingLimits.unicast`, mDNS's
/// defaults unchanged, and SOA / CNAME RDATA read from the bytes the decoder keeps.
@Suite struct UnicastDecodingTests {
    @Test func unicastLimitsAcceptTCPSizedMessages() throws {
        let bytes = RawPackets.header(counts: []) + Array(repeating: 0, count: 65535 - 12)
        #expect(throws: DecodingError(.messageTooLong(length: 65535), at: 0)) { try Message.decode(bytes) }
        #expect(throws: Never.self) { try Message.decode(bytes, limits: .unicast) }
        let tooLong = bytes + [0]
        #expect(throws: DecodingError(.messageTooLong(length: 65536), at: 0)) {
            try Message.decode(tooLong, limits: .unicast)
        }
    }

    @Test func unicastLimitsLeaveTheOpcodeToTheCaller() throws {
        let update = RawPackets.header(flags: 5 << 11, counts: [])
        #expect(throws: DecodingError(.unsupportedOpcode(5), at: 2)) { try Message.decode(update) }
        #expect(try Message.decode(update, limits: .unicast).message.header.opcode == 5)
    }

    @Test func soaRDataDecodesThroughCompressedNames() throws {
        let zone = RawPackets.wire("lab.example.")
        // MNAME "ns" + pointer to the zone at offset 12, RNAME "hostmaster" + pointer.
        let rdata: [UInt8] =
            [2] + Array("ns".utf8) + [0xC0, 12] + [10] + Array("hostmaster".utf8) + [0xC0, 12]
            + [0, 0, 0, 7, 0, 0, 0x0E, 0x10, 0, 0, 3, 0x84, 0, 0x09, 0x3A, 0x80, 0, 0, 0, 30]
        let bytes =
            RawPackets.header(flags: 0x8000, counts: [0, 0, 1]) + zone
            + RawPackets.fields(type: 6, rdlength: rdata.count) + rdata
        let record = try #require(try Message.decode(bytes, limits: .unicast).message.authorities.first)
        let soa = try #require(record.data.soa)
        #expect(soa.primaryServer == Names.name("ns.lab.example."))
        #expect(soa.responsibleMailbox == Names.name("hostmaster.lab.example."))
        #expect([soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum] == [7, 3600, 900, 604800, 30])
        #expect(RecordData.soa(soa).soa == soa)
        #expect(RecordType.soa.description == "SOA")
        #expect(record.data.description == "ns.lab.example. hostmaster.lab.example. 7 3600 900 604800 30")
    }

    @Test(arguments: [
        [UInt8](),
        [2, 0x6E, 0x73, 0],
        [2, 0x6E, 0x73, 0, 0] + Array(repeating: 0, count: 19),
        [2, 0x6E, 0x73, 0, 0] + Array(repeating: 0, count: 21),
        [70] + Array(repeating: 0x61, count: 70) + [0, 0] + Array(repeating: 0, count: 20),
    ])
    func malformedSOARDataIsNil(rdata: [UInt8]) {
        #expect(SOAData(rdata: rdata) == nil)
        #expect(RecordData.unknown(.soa, rdata).description.hasPrefix("\\# \(rdata.count)"))
    }

    @Test func canonicalNameTarget() {
        let target = Names.name("www.lab.example.")
        #expect(RecordData.canonicalName(target).canonicalName == target)
        #expect(RecordData.unknown(.cname, RawPackets.wire("www.lab.example.") + [0]).canonicalName == nil)
        #expect(RecordData.ptr(target).canonicalName == nil)
    }
}
