import CiaoTestFixtures
import Testing
@testable import CiaoWire

@Suite struct PacketSplittingTests {
    /// `count` PTR records for distinct instances of `_ciao._tcp.local.`.
    private func pointers(_ count: Int, ttl: UInt32 = 4500) -> [ResourceRecord] {
        let type = Names.serviceType
        return (0..<count).map { index in
            ResourceRecord(
                name: type, ttl: ttl, data: .ptr(try! type.prepending(label: Array("Service number \(index)".utf8))))
        }
    }

    @Test func smallMessageIsOnePacket() throws {
        let packets = try Messages.dnsSDAnswer.encodedPackets()
        #expect(packets == [try Messages.dnsSDAnswer.encoded()])
    }

    @Test func knownAnswerListSplitsWithTruncationBit() throws {
        let question = Question(name: Names.serviceType, type: .ptr)
        let query = Message(questions: [question], answers: pointers(300))
        #expect(throws: EncodingError.messageTooLarge(maximumSize: 1500)) { try query.encoded(maximumSize: 1500) }
        let packets = try query.encodedPackets(maximumSize: 1500)
        #expect(packets.count > 1)
        var knownAnswers: [ResourceRecord] = []
        for (index, packet) in packets.enumerated() {
            #expect(packet.count <= 1500)
            let message = try Message(decoding: packet)
            #expect(message.header.isTruncated == (index < packets.count - 1), "TC on all but the last (RFC 6762 §7.2)")
            #expect(message.questions == (index == 0 ? [question] : []), "questions only in the first packet")
            knownAnswers += message.answers
        }
        #expect(knownAnswers == query.answers, "every known answer sent once, in order")
    }

    @Test func responsesSplitWithoutTruncationBit() throws {
        let response = Messages.response(pointers(400))
        let packets = try response.encodedPackets()
        #expect(packets.count == 2)
        #expect(packets.allSatisfy { $0.count <= Message.maximumSize })
        let messages = try packets.map { try Message(decoding: $0) }
        #expect(messages.allSatisfy { !$0.header.isTruncated && $0.header.isResponse })
        #expect(messages.flatMap(\.answers) == response.answers)
    }

    @Test func additionalRecordsThatDoNotFitAreLeftOut() throws {
        var response = Messages.response(pointers(1))
        response.additionals = pointers(200)
        let packets = try response.encodedPackets(maximumSize: 1000)
        #expect(packets.count == 1)
        let message = try Message(decoding: packets[0])
        #expect(message.answers == response.answers)
        #expect(!message.additionals.isEmpty && message.additionals.count < 200)
        #expect(message.additionals == Array(response.additionals.prefix(message.additionals.count)))
    }

    @Test func entryLargerThanAPacketIsAnError() throws {
        let big = ResourceRecord(
            name: Names.name("big.local."), ttl: 1, data: .unknown(RecordType(65280), Array(repeating: 0, count: 600)))
        let message = Messages.response([big])
        #expect(throws: EncodingError.self) { try message.encodedPackets(maximumSize: 512) }
        do {
            _ = try message.encodedPackets(maximumSize: 512)
        } catch {
            guard case .entryTooLarge(let size, 512) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(size == Names.name("big.local.").wireLength + 10 + 600)
        }
    }

    @Test func oversizedRDataIsAnError() {
        let huge = ResourceRecord(
            name: .root, ttl: 1, data: .unknown(RecordType(65280), Array(repeating: 0, count: 70_000)))
        #expect(throws: EncodingError.rdataTooLong(type: RecordType(65280), length: 70_000)) {
            try Message(answers: [huge]).encoded(maximumSize: 100_000)
        }
    }

    /// One packet, as a unicast DNS server sends: the answers that fit, in order, TC set because
    /// some did not (RFC 2181 §9), and additional records in what room is left.
    @Test func truncatingEncodingKeepsWhatFitsAndSetsTC() throws {
        var response = Message(header: .response(id: 9), answers: pointers(40))
        response.additionals = [.opt(udpPayloadSize: 1440)]
        let packet = try response.encodedTruncating(maximumSize: 512)
        #expect(packet.count <= 512)
        let message = try Message(decoding: packet)
        #expect(message.header.isTruncated && message.header.id == 9)
        #expect(!message.answers.isEmpty && message.answers.count < 40)
        #expect(message.answers == Array(response.answers.prefix(message.answers.count)))
        #expect(message.additionals.compactMap(\.udpPayloadSize) == [1440])
    }

    /// Whatever the answers leave, the OPT record goes in (RFC 6891 §7): room for it is kept
    /// before they are placed. Budgets of every size around a cut, 11-byte OPT and 31-byte answers.
    @Test func truncatingEncodingAlwaysKeepsTheOPTRecord() throws {
        var response = Message(header: .response(id: 9), answers: pointers(40))
        response.additionals = [.opt(udpPayloadSize: 512)]
        for size in 200...260 {
            let packet = try response.encodedTruncating(maximumSize: size)
            #expect(packet.count <= size)
            let message = try Message(decoding: packet)
            #expect(message.header.isTruncated)
            #expect(message.additionals.compactMap(\.udpPayloadSize) == [512], "size \(size)")
        }
    }

    /// Questions that do not fit are cut like answers: the header says TC, and nothing is thrown.
    @Test func truncatingEncodingCutsQuestionsThatDoNotFit() throws {
        let questions = (0..<40).map {
            Question(name: try! Names.serviceType.prepending(label: Array("Service \($0)".utf8)), type: .srv)
        }
        var query = Message(header: .response(id: 3), questions: questions)
        query.additionals = [.opt(udpPayloadSize: 512)]
        let message = try Message(decoding: try query.encodedTruncating(maximumSize: 300))
        #expect(message.header.isTruncated)
        #expect(message.questions.count < 40 && message.questions == Array(questions.prefix(message.questions.count)))
        #expect(message.additionals.compactMap(\.udpPayloadSize) == [512])
        #expect(throws: EncodingError.messageTooLarge(maximumSize: 20)) { try query.encodedTruncating(maximumSize: 20) }
    }

    @Test func truncatingEncodingOfWhatFitsIsTheWholeMessage() throws {
        var response = Message(header: .response(id: 9), answers: pointers(3))
        response.additionals = pointers(100)
        let packet = try response.encodedTruncating(maximumSize: 512)
        let message = try Message(decoding: packet)
        #expect(!message.header.isTruncated, "additional records left out do not set TC")
        #expect(message.answers == response.answers)
        #expect(!message.additionals.isEmpty && message.additionals.count < 100)
        #expect(
            try Messages.response(pointers(3)).encodedTruncating(maximumSize: 512)
                == (try Messages.response(pointers(3)).encoded()))
    }

    @Test func compressionSurvivesPacketBoundaries() throws {
        // Each packet must be decodable alone: no pointer may reach into an earlier packet.
        let packets = try Messages.response(pointers(400)).encodedPackets(maximumSize: 700)
        #expect(packets.count > 5)
        for packet in packets {
            let decoded = try Message.decode(packet)
            #expect(decoded.skippedRecords.isEmpty)
        }
    }

    /// The compression table is sized for one packet, not for the whole message: every packet of
    /// a 3000-record response comes out as its own records encoded alone would, fully compressed.
    /// Names of many labels hold more suffixes than a short message's hint (three an entry), so the
    /// table grows within one packet, and later names still point at earlier ones.
    @Test func eachPacketOfALongMessageIsCompressedAsIfEncodedAlone() throws {
        let response = Messages.response(pointers(3000))
        let packets = try response.encodedPackets(maximumSize: 1460)
        #expect(packets.count > 30)
        for packet in packets {
            let alone = Messages.response(try Message(decoding: packet).answers)
            #expect(packet == (try alone.encoded(maximumSize: 1460)))
        }
        let names = (0..<40).map { Names.name("a.b.c.d.e.f.g.h.i.host-\($0).local.") }
        let deep = Messages.response(
            names.map {
                ResourceRecord(name: $0, ttl: 120, data: .ptr(Names.name("a.b.c.d.e.f.g.h.i.host-0.local.")))
            })
        let packet = try deep.encoded()
        #expect(try Message(decoding: packet).answers == deep.answers)
        // Each owner name takes at most its 32 bytes written out, and each PTR's target (the first
        // name) a 2-byte pointer rather than those 32 bytes again.
        #expect(packet.count <= MessageHeader.size + names.count * (32 + 10 + 2))
    }
}
