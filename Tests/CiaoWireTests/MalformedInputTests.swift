import CiaoEngine
import CiaoTestFixtures
import Testing
@testable import CiaoWire

/// Every class of malformed input (the decoder contract, docs/ARCHITECTURE.md) gives a typed error or a skipped record.
@Suite struct MalformedInputTests {
    /// A one-question query whose question name is `nameBytes` followed by QTYPE/QCLASS.
    private func query(nameBytes: [UInt8], prefix: [UInt8] = []) -> [UInt8] {
        RawPackets.header(counts: [1]) + prefix + nameBytes + [0, 1, 0, 1]
    }

    private func expectError(
        _ bytes: [UInt8], _ reason: DecodingError.Reason, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try Message.decode(bytes) }
        do {
            _ = try Message.decode(bytes)
        } catch {
            #expect(error.reason == reason, sourceLocation: sourceLocation)
        }
    }

    @Test func pointerToItself() {
        expectError(query(nameBytes: [0xC0, 12]), .tooManyPointers)
    }

    @Test func twoPointerLoop() {
        // Offset 12 points to 14, offset 14 points back to 12.
        expectError(RawPackets.header(counts: [1]) + [0xC0, 14, 0xC0, 12, 0, 1, 0, 1], .tooManyPointers)
    }

    @Test func pointerChain1500Deep() {
        // Question name at 12 points to 14, which points to 16 … 1500 pointers, then a root.
        var body: [UInt8] = []
        for index in 0..<1500 {
            let target = 12 + 2 * (index + 1)
            body += [0xC0 | UInt8(target >> 8), UInt8(target & 0xFF)]
        }
        body += [0, 0, 1, 0, 1]
        expectError(RawPackets.header(counts: [1]) + body, .tooManyPointers)
    }

    @Test func pointerChainWithinTheCapDecodes() throws {
        // 100 pointers each to the next, ending in "local": legal, if silly.
        var body: [UInt8] = []
        for index in 0..<100 {
            let target = 12 + 2 * (index + 1)
            body += [0xC0, UInt8(target)]
        }
        body += RawPackets.wire("local.") + [0, 1, 0, 1]
        let message = try Message(decoding: RawPackets.header(counts: [1]) + body)
        #expect(message.questions.first?.name == Names.name("local."))
    }

    @Test func pointerPastTheEnd() {
        expectError(query(nameBytes: [0xC0, 200]), .pointerOutOfBounds(target: 200))
        expectError(query(nameBytes: [0xFF, 0xFF]), .pointerOutOfBounds(target: 0x3FFF))
    }

    @Test func pointerIntoTheHeader() {
        expectError(query(nameBytes: [0xC0, 4]), .pointerOutOfBounds(target: 4))
    }

    @Test func pointerToAPointerIsFollowed() throws {
        // Name "a" + pointer → 20; at 20 a pointer → 22; at 22 "local". Accepted: RFC 1035 allows it.
        let bytes =
            RawPackets.header(counts: [1]) + [1, 0x61, 0xC0, 20, 0, 1, 0, 1, 0xC0, 22] + RawPackets.wire("local.")
        let message = try Message(decoding: bytes)
        #expect(message.questions.first?.name == Names.name("a.local."))
    }

    @Test func forwardPointerIsAccepted() throws {
        // The question points forward to the answer's owner name.
        let owner = RawPackets.wire("host.local.")
        let questionEnd = 12 + 2 + 4
        let bytes =
            RawPackets.header(counts: [1, 1]) + [0xC0, UInt8(questionEnd), 0, 1, 0, 1]
            + owner + RawPackets.fields(type: 1, rdlength: 4) + [10, 0, 0, 1]
        let message = try Message(decoding: bytes)
        #expect(message.questions.first?.name == Names.name("host.local."))
        #expect(message.answers.first?.data == .a(IPv4Address(10, 0, 0, 1)))
    }

    @Test(arguments: [UInt8(0x40), 0x80, 0x7F, 0xBF])
    func reservedLabelTypes(byte: UInt8) {
        expectError(query(nameBytes: [byte, 0x61, 0]), .reservedLabelType(byte & 0xC0))
    }

    @Test func labelOver63() {
        // A length byte of 64 is label type 0x40: no label can be longer than 63.
        expectError(query(nameBytes: [64] + Array(repeating: 0x61, count: 64) + [0]), .reservedLabelType(0x40))
    }

    @Test func nameOver255Bytes() {
        let label = [UInt8(63)] + Array(repeating: 0x61, count: 63)
        expectError(query(nameBytes: label + label + label + label + [0]), .nameTooLong)
    }

    @Test func moreThan128Labels() {
        let labels: [UInt8] = Array(repeating: [1, 0x61] as [UInt8], count: 129).flatMap { $0 }
        expectError(query(nameBytes: labels + [0]), .nameTooLong)
    }

    @Test func namesOver255BytesThroughPointers() {
        // Each of four 63-byte labels sits in place once; pointers splice them into one long name.
        let label = [UInt8(63)] + Array(repeating: 0x61, count: 63)
        // At 12: label + pointer to 78; at 78: label + pointer to 144; …
        var body: [UInt8] = []
        for index in 0..<4 {
            body += label + [0xC0 | UInt8((12 + 66 * (index + 1)) >> 8), UInt8((12 + 66 * (index + 1)) & 0xFF)]
        }
        body += [0, 0, 1, 0, 1]
        expectError(RawPackets.header(counts: [1]) + body, .nameTooLong)
    }

    @Test func countsFarBeyondTheBody() {
        let body = Array(RawPackets.wire("a.local.").prefix(20))
        expectError(
            RawPackets.header(counts: [0xFFFF]) + body + Array(repeating: 0, count: 20 - body.count), .truncated)
        expectError(RawPackets.header(counts: [0, 0xFFFF]) + Array(repeating: 0, count: 20), .truncated)
        expectError(
            RawPackets.header(counts: [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF]) + Array(repeating: 0, count: 20), .truncated)
    }

    @Test(arguments: 0...11)
    func packetsShorterThanAHeader(length: Int) {
        expectError(Array(repeating: 0, count: length), .messageTooShort(length: length))
    }

    @Test func emptyHeaderOnlyMessageDecodes() throws {
        #expect(try Message(decoding: RawPackets.header(counts: [])) == Message())
    }

    @Test func rdlengthPastTheEnd() {
        let bytes =
            RawPackets.header(counts: [0, 1]) + RawPackets.wire("a.local.") + RawPackets.fields(type: 1, rdlength: 40)
            + [1, 2, 3, 4]
        expectError(bytes, .truncated)
    }

    @Test func datagramOver9000Bytes() {
        expectError(
            RawPackets.header(counts: []) + Array(repeating: 0, count: 9000 - 12 + 1), .messageTooLong(length: 9001))
        #expect(throws: Never.self) {
            try Message.decode(RawPackets.header(counts: []) + Array(repeating: 0, count: 9000 - 12))
        }
    }

    @Test(arguments: [UInt8(1), 2, 4, 5, 15])
    func nonzeroOpcode(opcode: UInt8) {
        expectError(RawPackets.header(flags: UInt16(opcode) << 11, counts: []), .unsupportedOpcode(opcode))
    }

    // MARK: Records skipped via RDLENGTH, the rest of the message kept

    /// A response with `bad` between two good A records; the good ones must survive.
    private func expectSkipped(
        type: UInt16, rdata: [UInt8], rdlength: Int? = nil, _ reason: DecodingError.Reason,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let good = RawPackets.wire("good.local.") + RawPackets.fields(type: 1, rdlength: 4) + [198, 18, 0, 1]
        let bad =
            RawPackets.wire("bad.local.") + RawPackets.fields(type: type, rdlength: rdlength ?? rdata.count) + rdata
        let bytes = RawPackets.header(flags: 0x8400, counts: [0, 3]) + good + bad + good
        let decoded = try Message.decode(bytes)
        #expect(decoded.message.answers.count == 2, sourceLocation: sourceLocation)
        #expect(
            decoded.message.answers.allSatisfy { $0.name == Names.name("good.local.") }, sourceLocation: sourceLocation)
        #expect(decoded.skippedRecords.count == 1, sourceLocation: sourceLocation)
        #expect(decoded.skippedRecords.first?.index == 1, sourceLocation: sourceLocation)
        #expect(decoded.skippedRecords.first?.name == Names.name("bad.local."), sourceLocation: sourceLocation)
        #expect(decoded.skippedRecords.first?.error.reason == reason, sourceLocation: sourceLocation)
    }

    @Test func aRecordOfTwoBytes() throws {
        try expectSkipped(type: 1, rdata: [1, 2], .invalidRDataLength(type: .a, length: 2))
    }

    @Test func aaaaRecordOfFourBytes() throws {
        try expectSkipped(type: 28, rdata: [1, 2, 3, 4], .invalidRDataLength(type: .aaaa, length: 4))
    }

    @Test func srvUnderSevenBytes() throws {
        try expectSkipped(type: 33, rdata: [0, 0, 0, 0, 0x1F, 0x90], .invalidRDataLength(type: .srv, length: 6))
    }

    @Test func txtStringOverrunningRDLength() throws {
        try expectSkipped(type: 16, rdata: [3, 0x61, 0x3D, 0x62, 9, 0x61], .txtStringOverrun)
    }

    @Test func nsecBitmapOverrun() throws {
        // Window 0 claims 5 bytes of bitmap but only 1 follows.
        try expectSkipped(type: 47, rdata: [0, 0, 5, 0x40], .invalidTypeBitmap)
        // Windows out of order.
        try expectSkipped(type: 47, rdata: [0, 1, 1, 0x40, 0, 1, 0x40], .invalidTypeBitmap)
        // Zero-length bitmap.
        try expectSkipped(type: 47, rdata: [0, 0, 0], .invalidTypeBitmap)
    }

    @Test func optOptionOverrun() throws {
        try expectSkipped(type: 41, rdata: [0, 4, 0, 9, 1, 2], .optionOverrun)
    }

    @Test func rdataDecodingShorterThanRDLength() throws {
        // A PTR whose name ends 3 bytes before RDLENGTH says.
        try expectSkipped(
            type: 12, rdata: RawPackets.wire("x.local.") + [1, 2, 3], .rdataLengthMismatch(declared: 12, decoded: 9))
    }

    @Test func rdataDecodingLongerThanRDLength() throws {
        // A PTR whose name runs past RDLENGTH (the rest of the name spills into the next record).
        try expectSkipped(type: 12, rdata: Array(RawPackets.wire("x.local.").prefix(4)), .truncated)
        // SRV whose target is cut by RDLENGTH.
        try expectSkipped(
            type: 33, rdata: [0, 0, 0, 0, 0, 80] + Array(RawPackets.wire("host.local.").prefix(3)), .truncated)
    }

    @Test func badPointerInsideRDataSkipsOnlyThatRecord() throws {
        try expectSkipped(type: 12, rdata: [0xC0, 0xFF], .pointerOutOfBounds(target: 0xFF))
    }

    /// Random mutations of a real answer never crash and either decode or give a typed error.
    @Test func randomMutationsNeverCrash() throws {
        let original = try Messages.dnsSDAnswer.encoded()
        var random = SplitMix64(seed: 42)
        var outcomes = (decoded: 0, failed: 0)
        for _ in 0..<20_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random)) }
            do {
                _ = try Message.decode(bytes)
                outcomes.decoded += 1
            } catch {
                outcomes.failed += 1
            }
        }
        #expect(outcomes.decoded > 0 && outcomes.failed > 0)
    }
}

/// Inputs the fuzzers turned up.
@Suite struct FuzzerFindingTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
        }
    }

    /// A CNAME whose RDATA is a pointer: kept as opaque bytes, it must not keep the pointer, or
    /// re-encoding at another offset would point elsewhere (RFC 3597 §4).
    @Test func compressedNamesInOpaqueRDataAreExpanded() throws {
        let packet = Self.bytes(
            "00008400000000040000000004686f7374056c6f63616c000001000100000078000401010101056f74686572056c6f63616c"
                + "00000100010000007800040202020206746172676574056c6f63616c00000100010000007800040303030303777777056c"
                + "6f63616c0000050001000000780002c041")
        let message = try Message(decoding: packet)
        let target = try DomainName(parsing: "target.local.")
        #expect(message.answers[3].data == .unknown(.cname, target.storage + [0]))
        let again = try Message(decoding: message.encoded())
        #expect(again == message)
    }

    @Test func mxAndSOANamesAreExpanded() throws {
        let owner = RawPackets.wire("example.local.")
        // MX 10 → pointer to the owner; SOA with two pointers and 20 bytes of serial and timers.
        let mx = owner + RawPackets.fields(type: 15, rdlength: 4) + [0, 10, 0xC0, 12]
        let soaOwner: [UInt8] = [0xC0, 12]
        let soa = soaOwner + RawPackets.fields(type: 6, rdlength: 24) + [0xC0, 12, 0xC0, 12] + Array(1...20)
        let message = try Message(decoding: RawPackets.header(flags: 0x8400, counts: [0, 2]) + mx + soa)
        #expect(message.answers[0].data == .unknown(RecordType(15), [0, 10] + owner))
        #expect(message.answers[1].data == .unknown(RecordType(6), owner + owner + Array(1...20)))
        // An SOA cut short inside its fixed fields is skipped, not misread.
        let shortSOA = soaOwner + RawPackets.fields(type: 6, rdlength: 10) + [0xC0, 12, 0xC0, 12] + Array(1...6)
        let decoded = try Message.decode(RawPackets.header(flags: 0x8400, counts: [0, 2]) + mx + shortSOA)
        #expect(decoded.skippedRecords.map(\.error.reason) == [.truncated])
    }

    /// The 128-pointer limit holds whether or not earlier names filled the decoder's name cache.
    @Test func pointerLimitDoesNotDependOnTheNameCache() throws {
        let alone = Self.bytes(
            "000000000001000100000000c11e0001000100ffee0001000000000109017800c01dc020c022c024c026c028c02ac02cc02e"
                + (0x30...0x122).filter { $0 % 2 == 0 }.map { String(format4: 0xC000 | $0) }.joined())
        let afterCache = Self.bytes(
            "000000000003000100000000c03e00010001c0f200010001c12a0001000100ffee0001000000000109017800c029c02c"
                + (0x2E...0x12E).filter { $0 % 2 == 0 }.map { String(format4: 0xC000 | $0) }.joined())
        for packet in [alone, afterCache] {
            #expect(throws: DecodingError.self) { try Message.decode(packet) }
        }
    }

    @Test func sizeBudgetsBelowAHeaderAreRejected() {
        for size in [-1, 0, 11] {
            #expect(throws: EncodingError.messageTooLarge(maximumSize: size)) {
                try Message().encoded(maximumSize: size)
            }
            #expect(throws: EncodingError.messageTooLarge(maximumSize: size)) {
                try Message().encodedPackets(maximumSize: size)
            }
        }
    }

    /// `entryTooLarge` gives the entry's size alone in a packet, not after compression against others.
    @Test func entryTooLargeReportsTheSizeAlone() throws {
        let long = String(repeating: "b", count: 63) + "." + String(repeating: "c", count: 63) + ".local."
        let pointer = try DomainName(parsing: String(repeating: "z", count: 63) + "." + long)
        let message = Messages.response([
            ResourceRecord(name: try DomainName(parsing: long), ttl: 1, data: .a(IPv4Address(1, 2, 3, 4))),
            ResourceRecord(name: try DomainName(parsing: "x.local."), ttl: 1, data: .ptr(pointer)),
        ])
        let alone = try Messages.response([message.answers[1]]).encoded().count - MessageHeader.size
        #expect(throws: EncodingError.entryTooLarge(size: alone, maximumSize: 224)) {
            try message.encodedPackets(maximumSize: 224)
        }
    }
}

extension String {
    /// Four lowercase hex digits.
    init(format4 value: Int) {
        let hex = String(value, radix: 16)
        self = String(repeating: "0", count: 4 - hex.count) + hex
    }
}
