import Testing
@testable import ciao
@testable import CiaoWire

@Suite struct CaptureFileTests {
    /// A real zeroconf query (Tests/CiaoWireTests/Captures/zeroconf-query-1.bin).
    static let query: [UInt8] =
        [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9] + Array("_ciaotest".utf8) + [4] + Array("_tcp".utf8)
        + [5] + Array("local".utf8) + [0, 0, 12, 0x80, 1]

    /// Ethernet + IPv4 + UDP around `payload`, from `sourcePort` to 5353.
    static func ethernetFrame(_ payload: [UInt8], sourcePort: UInt16 = 5353) -> [UInt8] {
        let ethernet: [UInt8] = [1, 0, 0x5E, 0, 0, 0xFB, 2, 0, 0, 0, 0, 1, 0x08, 0x00]
        let totalLength = 20 + 8 + payload.count
        let ipv4: [UInt8] = [
            0x45, 0, UInt8(totalLength >> 8), UInt8(totalLength & 0xFF), 0, 0, 0x40, 0, 255, 17, 0, 0,
            198, 18, 0, 1, 224, 0, 0, 251,
        ]
        let udpLength = 8 + payload.count
        let udp: [UInt8] = [
            UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), 0x14, 0xE9,
            UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0,
        ]
        return ethernet + ipv4 + udp + payload
    }

    static func littleEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    @Test func readsClassicPcap() throws {
        let frame = Self.ethernetFrame(Self.query)
        let otherFrame = Self.ethernetFrame(Self.query, sourcePort: 9999)
        var pcap: [UInt8] =
            [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + Array(repeating: 0, count: 8)
            + Self.littleEndian32(65535) + Self.littleEndian32(1)
        for packet in [frame, otherFrame] {
            pcap +=
                Array(repeating: 0, count: 8) + Self.littleEndian32(packet.count) + Self.littleEndian32(packet.count)
                + packet
        }
        let file = try CaptureFile(pcap)
        #expect(file.entries.count == 2, "both frames involve port 5353")
        #expect(file.entries.first == CaptureFile.Entry(label: "packet 1", bytes: Self.query))
    }

    @Test func skipsNonMDNSPackets() throws {
        var frame = Self.ethernetFrame(Self.query, sourcePort: 9999)
        frame[14 + 20 + 3] = 0x35  // destination port 0x1435 = 5173
        var pcap: [UInt8] =
            [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + Array(repeating: 0, count: 8)
            + Self.littleEndian32(65535) + Self.littleEndian32(1)
        pcap +=
            Array(repeating: 0, count: 8) + Self.littleEndian32(frame.count) + Self.littleEndian32(frame.count) + frame
        #expect(try CaptureFile(pcap).entries.isEmpty)
    }

    @Test func readsPcapng() throws {
        func block(_ type: Int, _ body: [UInt8]) -> [UInt8] {
            let padded = body + Array(repeating: 0, count: (4 - body.count % 4) % 4)
            let length = 12 + padded.count
            return Self.littleEndian32(type) + Self.littleEndian32(length) + padded + Self.littleEndian32(length)
        }
        let frame = Self.ethernetFrame(Self.query)
        let sectionHeader = block(0x0A0D_0D0A, [0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0] + Array(repeating: 0xFF, count: 8))
        let interface = block(1, [1, 0, 0, 0] + Self.littleEndian32(65535))
        let packet = block(
            6,
            Self.littleEndian32(0) + Array(repeating: 0, count: 8)
                + Self.littleEndian32(frame.count) + Self.littleEndian32(frame.count) + frame)
        let file = try CaptureFile(sectionHeader + interface + packet)
        #expect(file.entries == [CaptureFile.Entry(label: "packet 1", bytes: Self.query)])
    }

    @Test func readsHexBlocks() throws {
        let hex = Self.query.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let text = hex.prefix(20) + "\n" + hex.dropFirst(20) + "\n\n" + hex + "\n"
        let file = try CaptureFile(Array(text.utf8))
        #expect(file.entries.map(\.bytes) == [Self.query, Self.query])
        #expect(file.entries.map(\.label) == ["message 1", "message 2"])
    }

    @Test func treatsAnythingElseAsOneRawMessage() throws {
        #expect(try CaptureFile(Self.query).entries == [CaptureFile.Entry(label: "input", bytes: Self.query)])
        #expect(try CaptureFile(Array("not hex!".utf8)).entries.count == 1)
    }

    @Test func rejectsTruncatedCaptures() {
        let pcap: [UInt8] =
            [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + Array(repeating: 0, count: 8)
            + Self.littleEndian32(65535) + Self.littleEndian32(1) + Array(repeating: 0, count: 8)
            + Self.littleEndian32(500)
            + Self.littleEndian32(500) + [1, 2, 3]
        #expect(throws: CaptureFile.FormatError.self) { try CaptureFile(pcap) }
        #expect(throws: CaptureFile.FormatError.self) { try CaptureFile([0xD4, 0xC3, 0xB2, 0xA1, 2, 0]) }
        #expect(throws: CaptureFile.FormatError.self) {
            try CaptureFile([0x0A, 0x0D, 0x0D, 0x0A, 0xFF, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A])
        }
    }

    @Test func formatsLikeDig() throws {
        let decoded = try Message.decode(Self.query)
        #expect(
            MessageFormatter.format(decoded) == """
                ;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 0
                ;; flags:; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0

                ;; QUESTION SECTION:
                ;_ciaotest._tcp.local. IN PTR (QU)
                """)
    }

    @Test func formatsSkippedRecords() throws {
        let bytes: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1, 0, 0, 0, 120, 0, 2, 1, 2]
        let text = MessageFormatter.format(try Message.decode(bytes))
        #expect(
            text.hasSuffix(";; SKIPPED RECORDS:\n;a. A in answer #1: A RDATA of 2 bytes is malformed (at offset 25)"))
        #expect(text.contains("flags: qr aa;"))
    }
}
