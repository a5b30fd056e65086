import CiaoTestFixtures
import Testing
@testable import CiaoWire

@Suite struct RecordRoundTripTests {
    static let owner = Names.name("Ciao Test\\.One._ciao._tcp.local.")

    static let records: [RecordData] = [
        .a(IPv4Address(198, 18, 0, 1)),
        .aaaa(IPv6Address("fe80::1:2:3:4")!),
        .ptr(Names.name("Other._ciao._tcp.local.")),
        .srv(SRVData(priority: 1, weight: 2, port: 5353, target: Names.name("host.local."))),
        .srv(SRVData(port: 1, target: .root)),
        .txt(try! TXTData(strings: [Array("a=b".utf8), [], [0, 0xFF, 0x3D], Array(repeating: 0x41, count: 255)])),
        .txt(try! TXTData(wireBytes: [])),
        .nsec(NSECData(nextDomainName: owner, types: [.a, .aaaa, .txt, .srv, RecordType(1234), RecordType(65535)])),
        .nsec(NSECData(nextDomainName: owner, types: [])),
        .opt([EDNSOption(code: 4, data: [0, 1, 2, 3, 4, 5, 6, 7]), EDNSOption(code: 65001, data: [])]),
        .unknown(.hinfo, [3, 0x61, 0x62, 0x63, 0]),
        .unknown(RecordType(65280), []),
    ]

    @Test(arguments: records)
    func recordRoundTrips(data: RecordData) throws {
        let record = ResourceRecord(name: Self.owner, cacheFlush: true, ttl: 0xFFFF_FFFF, data: data)
        let message = Message(header: .response(id: 7), answers: [record], authorities: [record], additionals: [record])
        let bytes = try message.encoded()
        let decoded = try Message.decode(bytes)
        #expect(decoded.skippedRecords.isEmpty)
        #expect(decoded.message == message)
        #expect(try decoded.message.encoded() == bytes)
    }

    @Test func questionFlagsAndClassesRoundTrip() throws {
        let questions = [
            Question(name: Self.owner, type: .any, unicastResponse: true),
            Question(name: Self.owner, type: .srv, qClass: .any),
            Question(name: .root, type: RecordType(0xFFFF), qClass: RecordClass(rawValue: 0x7FFF)),
        ]
        let message = Message(header: MessageHeader(id: 0xBEEF, flags: 0x0100), questions: questions)
        let bytes = try message.encoded()
        #expect(bytes[12 + Self.owner.wireLength + 2] & 0x80 == 0x80, "QU bit is the class's top bit")
        #expect(try Message(decoding: bytes) == message)
    }

    @Test func headerFlagsRoundTrip() throws {
        var header = MessageHeader(id: 0x1234)
        header.isResponse = true
        header.isAuthoritativeAnswer = true
        header.isTruncated = true
        header.isRecursionDesired = true
        header.isRecursionAvailable = true
        header.zero = true
        header.isAuthenticData = true
        header.isCheckingDisabled = true
        header.rcode = 3
        #expect(header.flags == 0x87F3)
        let decoded = try Message(decoding: Message(header: header).encoded())
        #expect(decoded.header == header)
        #expect(decoded.header.rcode == 3)
        #expect(decoded.header.opcode == 0)
    }

    @Test func cacheFlushIsTheClassTopBit() throws {
        let record = ResourceRecord(name: Self.owner, cacheFlush: true, ttl: 120, data: .a(IPv4Address(1, 2, 3, 4)))
        let bytes = try Messages.response([record]).encoded()
        let classOffset = 12 + Self.owner.wireLength + 2
        #expect(Array(bytes[classOffset...(classOffset + 1)]) == [0x80, 0x01])
    }

    @Test func nsecBitmapMatchesRFC4034Example() throws {
        // RFC 4034 §4.3: A, MX, RRSIG, NSEC, TYPE1234 → windows 0 and 4.
        let nsec = NSECData(
            nextDomainName: Names.name("host.example.com."),
            types: [RecordType(1), RecordType(15), RecordType(46), RecordType(47), RecordType(1234)])
        let bytes = try Messages.response([ResourceRecord(name: .root, ttl: 1, data: .nsec(nsec))])
            .encoded()
        // Header, root owner, fixed fields, then the 18-byte uncompressed next name.
        let bitmaps = Array(bytes[(12 + 1 + 10 + 18)...])
        #expect(
            bitmaps == [0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03, 0x04, 0x1B]
                + Array(repeating: 0, count: 26) + [0x20])
    }

    /// The type list is kept sorted and without repeats, whatever order and repeats it was given.
    @Test func nsecTypesAreSortedOnce() {
        let nsec = NSECData(nextDomainName: .root, types: [.txt, .aaaa, .a, .txt, RecordType(1234), .a, .srv])
        #expect(nsec.types == [.a, .txt, .aaaa, .srv, RecordType(1234)])
        #expect(nsec == NSECData(nextDomainName: .root, types: [.srv, RecordType(1234), .aaaa, .txt, .a]))
    }

    @Test func dnsSDAnswerCompressesSharedSuffixes() throws {
        let bytes = try Messages.dnsSDAnswer.encoded()
        let uncompressed =
            12 + 5 * 10
            + [Messages.dnsSDAnswer.answers, Messages.dnsSDAnswer.additionals].joined().reduce(0) {
                $0 + $1.name.wireLength
            }
        #expect(bytes.count < uncompressed)
        #expect(try Message(decoding: bytes) == Messages.dnsSDAnswer)
        // The instance name is written once; later owners point at it.
        let instance = Array("Living Room Speaker".utf8)
        #expect(bytes.indices.filter { bytes[$0...].starts(with: instance) }.count == 1)
    }

    @Test func encodingIsDeterministic() throws {
        let first = try Messages.dnsSDAnswer.encoded()
        for _ in 0..<10 { #expect(try Messages.dnsSDAnswer.encoded() == first) }
    }

    @Test func compressionPreservesCase() throws {
        let lower = Names.name("host.local.")
        let upper = Names.name("HOST.local.")
        let message = Messages.response([
            ResourceRecord(name: lower, ttl: 1, data: .a(IPv4Address(1, 1, 1, 1))),
            ResourceRecord(name: upper, ttl: 1, data: .a(IPv4Address(2, 2, 2, 2))),
        ])
        let decoded = try Message(decoding: message.encoded())
        #expect(decoded.answers[1].name.isIdentical(to: upper))
    }

    /// An OPT record's class field is the sender's UDP payload size, all 16 bits of it: sizes of
    /// 32768 and above set the bit mDNS reads as cache-flush (RFC 6891 §6.1.2).
    @Test(arguments: [512, 1440, 9000, 32768, 65535])
    func optRecordCarriesItsUDPPayloadSize(size: Int) throws {
        let record = ResourceRecord.opt(udpPayloadSize: UInt16(size))
        #expect(record.name == .root && record.ttl == 0 && record.data == .opt([]))
        let decoded = try Message(decoding: try Message(additionals: [record]).encoded())
        #expect(decoded.additionals.map(\.udpPayloadSize) == [size])
        #expect(ResourceRecord(name: .root, ttl: 0, data: .a(IPv4Address(1, 2, 3, 4))).udpPayloadSize == nil)
        #expect(decoded.additionals.first?.ednsVersion == 0)
        let badVersion = ResourceRecord.opt(
            udpPayloadSize: UInt16(size), extendedRCode: ResourceRecord.badVersionExtendedRCode)
        #expect(badVersion.ttl == 0x0100_0000, "BADVERS (16): its upper 8 bits in the TTL's first byte")
    }

    /// NSEC types come out sorted and unique from any sequence: in order, out of order, a set.
    @Test func nsecTypesAreSortedAndUniqueFromAnySequence() {
        let sorted: [RecordType] = [.a, .txt, .aaaa, .srv]
        #expect(NSECData(nextDomainName: .root, types: sorted).types == sorted)
        #expect(NSECData(nextDomainName: .root, types: [.srv, .a, .srv, .txt, .aaaa]).types == sorted)
        #expect(NSECData(nextDomainName: .root, types: Set(sorted)).types == sorted)
        #expect(NSECData(nextDomainName: .root, types: [.a, .a]).types == [.a])
    }
}
