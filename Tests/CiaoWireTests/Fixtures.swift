@testable import CiaoWire

/// Builders for hand-made packets in the tests.
enum Fixtures {
    static func name(_ text: String) -> DomainName {
        try! DomainName(parsing: text)
    }

    /// A 12-byte header with the given flags and counts.
    static func header(id: UInt16 = 0, flags: UInt16 = 0, counts: [UInt16]) -> [UInt8] {
        let words = [id, flags] + counts + Array(repeating: 0, count: 4 - counts.count)
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Uncompressed wire form of a name.
    static func wire(_ text: String) -> [UInt8] {
        name(text).storage + [0]
    }

    /// A record's fixed fields after its owner name: type, class, TTL 120, RDLENGTH.
    static func fields(type: UInt16, rdlength: Int, rrClass: UInt16 = 1) -> [UInt8] {
        [
            UInt8(type >> 8), UInt8(type & 0xFF), UInt8(rrClass >> 8), UInt8(rrClass & 0xFF), 0, 0, 0, 120,
            UInt8(rdlength >> 8), UInt8(rdlength & 0xFF),
        ]
    }

    /// A typical DNS-SD answer: PTR, then SRV, TXT, A and AAAA as additional records.
    static let dnsSDAnswer: Message = {
        let type = name("_http._tcp.local.")
        let instance = name("Living Room Speaker._http._tcp.local.")
        let host = name("speaker-4.local.")
        return Message(
            header: .response(),
            answers: [ResourceRecord(name: type, ttl: 4500, data: .ptr(instance))],
            additionals: [
                ResourceRecord(
                    name: instance, cacheFlush: true, ttl: 120,
                    data: .srv(SRVData(port: 8080, target: host))),
                ResourceRecord(
                    name: instance, cacheFlush: true, ttl: 4500,
                    data: .txt(try! TXTData(strings: [Array("path=/".utf8), Array("flag".utf8), Array("v=1".utf8)]))),
                ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 4))),
                ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .aaaa(IPv6Address("fd00:198:18::4")!)),
            ])
    }()
}
