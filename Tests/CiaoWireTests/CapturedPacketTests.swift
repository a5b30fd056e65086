import Foundation
import Testing
@testable import CiaoWire

/// Real packets from avahi-daemon 0.8 and python-zeroconf 0.154 (see Captures/README.md).
@Suite struct CapturedPacketTests {
    static let names = [
        "avahi-hostprobe-1", "avahi-hostannounce-1", "avahi-probe-1", "avahi-announce-1", "avahi-announce-2",
        "avahi-query-1", "avahi-query-knownanswers-1", "avahi-response-1", "avahi-goodbye-1", "avahi-goodbye-2",
        "zeroconf-probe-1", "zeroconf-announce-1", "zeroconf-response-1", "zeroconf-query-1",
        "zeroconf-query-knownanswers-1", "zeroconf-goodbye-1",
    ]

    static func capture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Captures/\(name)", withExtension: "bin"))
        return Array(try Data(contentsOf: url))
    }

    static func decode(_ name: String) throws -> Message {
        let decoded = try Message.decode(capture(name))
        #expect(decoded.skippedRecords.isEmpty)
        return decoded.message
    }

    static let instance = try! DomainName(labels: ["Café Dot.Back\\slash", "_ciaotest", "_tcp", "local"])
    static let zeroconfInstance = try! DomainName(labels: ["Zeroconf Ciao Ü", "_ciaotest", "_tcp", "local"])
    static let serviceType = try! DomainName(parsing: "_ciaotest._tcp.local.")
    static let avahiHost = try! DomainName(parsing: "ciao-av.local.")
    /// `"k=v" "empty=" "flag" "bin=\x00\xff\x80"`, sent by both peers.
    static let txt: [UInt8] =
        [3, 0x6B, 0x3D, 0x76, 6] + Array("empty=".utf8) + [4] + Array("flag".utf8)
        + [7] + Array("bin=".utf8) + [0x00, 0xFF, 0x80]

    @Test(arguments: names)
    func decodesAndRoundTrips(name: String) throws {
        let message = try Self.decode(name)
        #expect(message.header.id == 0)
        // Re-encoding keeps every record; our compression is at least as good as the peer's.
        let bytes = try message.encoded()
        #expect(try Message(decoding: bytes) == message)
        #expect(bytes.count <= (try Self.capture(name)).count)
    }

    @Test func avahiAnnouncement() throws {
        let message = try Self.decode("avahi-announce-1")
        #expect(message.header.flags == 0x8400)
        #expect(message.answers.map(\.type) == [.txt, .ptr, .srv, .aaaa, .a, .ptr])
        #expect(message.answers.map(\.cacheFlush) == [true, false, true, true, true, false])
        #expect(message.answers.map(\.ttl) == [4500, 4500, 120, 120, 120, 4500])
        #expect(message.answers[0].name.isIdentical(to: Self.instance))
        #expect(message.answers[0].data == .txt(try TXTData(wireBytes: Self.txt)))
        #expect(message.answers[1].data == .ptr(Self.instance))
        #expect(message.answers[2].data == .srv(SRVData(port: 8080, target: Self.avahiHost)))
        #expect(message.answers[3].data == .aaaa(IPv6Address("fd00:198:18::1")!))
        #expect(message.answers[4].data == .a(IPv4Address(198, 18, 53, 1)))
        #expect(message.answers[5].name == (try DomainName(parsing: "_services._dns-sd._udp.local.")))
        #expect(message.answers[5].data == .ptr(Self.serviceType))
        // The instance label carries a literal dot and backslash, escaped only in text.
        #expect(Self.instance.description == "Café Dot\\.Back\\\\slash._ciaotest._tcp.local.")
        #expect(Array(Self.instance.firstLabel!).count == 20)
    }

    @Test func avahiHostAnnouncementWithPointersIntoRData() throws {
        let message = try Self.decode("avahi-hostannounce-1")
        #expect(message.answers.map(\.type) == [.ptr, .a, .ptr, .aaaa])
        #expect(message.answers[0].data == .ptr(Self.avahiHost))
        #expect(message.answers[1].name == Self.avahiHost)
        #expect(message.answers[2].name == (try DomainName(parsing: "1.53.18.198.in-addr.arpa.")))
        #expect(message.answers.allSatisfy { $0.cacheFlush && $0.ttl == 120 })
    }

    @Test func avahiProbes() throws {
        let service = try Self.decode("avahi-probe-1")
        #expect(service.questions == [Question(name: Self.instance, type: .any)])
        #expect(service.authorities.map(\.type) == [.srv, .txt])
        #expect(service.authorities.allSatisfy { !$0.cacheFlush })
        let host = try Self.decode("avahi-hostprobe-1")
        #expect(host.questions.map(\.type) == [.any, .any, .any])
        #expect(host.questions[1].name == Self.avahiHost)
        #expect(host.authorities.map(\.type) == [.a, .ptr, .aaaa, .ptr])
    }

    @Test func avahiGoodbyeKeepsHostRecords() throws {
        let message = try Self.decode("avahi-goodbye-1")
        #expect(message.answers.map(\.type) == [.ptr, .ptr, .srv, .aaaa, .a, .txt])
        #expect(message.answers.map(\.ttl) == [0, 0, 0, 120, 120, 0])
    }

    @Test func knownAnswerQueries() throws {
        let avahi = try Self.decode("avahi-query-knownanswers-1")
        #expect(avahi.questions == [Question(name: Self.serviceType, type: .ptr)])
        #expect(avahi.answers.map(\.data) == [.ptr(Self.zeroconfInstance), .ptr(Self.instance)])
        #expect(avahi.answers.allSatisfy { $0.ttl == 4500 })

        let zeroconf = try Self.decode("zeroconf-query-knownanswers-1")
        #expect(zeroconf.answers.count == 2)
        #expect(zeroconf.answers.map(\.ttl).sorted() == [4498, 4499])
        // zeroconf re-splits avahi's instance label at its dot: two labels where avahi sent one.
        let split = try DomainName(labels: ["Café Dot", "Back\\slash", "_ciaotest", "_tcp", "local"])
        #expect(zeroconf.answers.contains { $0.data == .ptr(split) })
        #expect(!zeroconf.answers.contains { $0.data == .ptr(Self.instance) })
    }

    @Test func zeroconfQueryAsksForUnicastResponse() throws {
        let message = try Self.decode("zeroconf-query-1")
        #expect(message.questions == [Question(name: Self.serviceType, type: .ptr, unicastResponse: true)])
        #expect(try Self.capture("zeroconf-query-1").suffix(2) == [0x80, 0x01])
    }

    @Test func zeroconfResponseUsesAdditionals() throws {
        let message = try Self.decode("zeroconf-response-1")
        #expect(message.answers.map(\.data) == [.ptr(Self.zeroconfInstance)])
        #expect(Set(message.additionals.map(\.type)) == [.a, .aaaa, .txt, .srv])
        let srv = message.additionals.first { $0.type == .srv }
        #expect(srv?.data == .srv(SRVData(port: 8081, target: try DomainName(parsing: "ciao-zc.local."))))
        #expect(message.additionals.first { $0.type == .txt }?.data == .txt(try TXTData(wireBytes: Self.txt)))
    }

    /// dig 9.18 asking avahi-daemon over legacy unicast (Captures/README.md): with EDNS it offers
    /// 1232 bytes in an OPT record (RFC 6891 §6.1.2), which also carries a cookie; without, 512.
    @Test func digQueriesOfferTheirUDPPayloadSize() throws {
        let question = Question(name: try DomainName(parsing: "_ciao._tcp.local."), type: .ptr)
        let edns = try Self.decode("dig-query-edns-1")
        #expect(edns.header.id == 0x9765)
        #expect(edns.questions == [question])
        #expect(edns.additionals.compactMap(\.udpPayloadSize) == [1232])
        #expect(
            edns.additionals.first?.data
                == .opt([EDNSOption(code: 10, data: [0xC5, 0xCC, 0xE9, 0xC4, 0x0A, 0x37, 0x72, 0xDC])]))
        let plain = try Self.decode("dig-query-1")
        #expect(plain.header.id == 0xAA60)
        #expect(plain.questions == [question])
        #expect(plain.additionals.isEmpty)
    }

    /// avahi-daemon's reply to the EDNS query: 21 records in 506 bytes, all in the answer section
    /// (7 PTR with SRV and TXT for 6 of them, the host's A and AAAA), the other 18 PTR records
    /// dropped without TC, and no OPT record although the query had one.
    @Test func avahiLegacyReplyIsCutAt512BytesWithoutTC() throws {
        let reply = try Self.decode("avahi-legacy-reply-1")
        #expect(try Self.capture("avahi-legacy-reply-1").count <= 512)
        #expect(reply.header.id == 0x9765)
        #expect(reply.header.isResponse && !reply.header.isTruncated)
        #expect(reply.answers.count == 21)
        #expect(reply.answers.filter { $0.type == .ptr }.count == 7)
        #expect(reply.answers.allSatisfy { $0.ttl == 10 && !$0.cacheFlush })
        #expect(reply.additionals.isEmpty)
    }

    @Test func zeroconfProbeAndGoodbye() throws {
        let probe = try Self.decode("zeroconf-probe-1")
        #expect(probe.header.flags == 0x0400)
        #expect(probe.questions.first?.unicastResponse == true)
        #expect(probe.authorities.map(\.data) == [.ptr(Self.zeroconfInstance)])
        let goodbye = try Self.decode("zeroconf-goodbye-1")
        #expect(goodbye.answers.count == 5)
        #expect(goodbye.answers.allSatisfy { $0.ttl == 0 })
    }
}
