import CiaoWire

/// A realistic (or adversarial) packet to decode and encode.
struct BenchmarkCase {
    var name: String
    /// File-name stem for `--dump`: lowercase letters, digits and hyphens.
    var slug: String
    var message: Message
    /// Bytes to decode instead of `message.encoded()`, for packets our encoder would not produce.
    var bytes: [UInt8]? = nil

    /// The bytes to decode.
    func packet() throws -> [UInt8] { try bytes ?? message.encoded() }

    /// Whether the case is also encoded; packets our encoder would not produce are only decoded.
    var encodes: Bool { bytes == nil }

    static let all: [BenchmarkCase] = [dnsSDAnswer, thirtyServicePointers, knownAnswerQuery, adversarialPointerChains]

    private static func name(_ text: String) -> DomainName { try! DomainName(parsing: text) }

    /// PTR answer with SRV, TXT, A and AAAA additional records, as a responder sends on a browse.
    static let dnsSDAnswer: BenchmarkCase = {
        let type = name("_http._tcp.local.")
        let instance = name("Living Room Speaker._http._tcp.local.")
        let host = name("speaker-4.local.")
        let txt = try! TXTData(strings: [Array("path=/api".utf8), Array("version=4.2.1".utf8), Array("secure".utf8)])
        return BenchmarkCase(
            name: "DNS-SD answer (PTR+SRV+TXT+A+AAAA)", slug: "dns-sd-answer",
            message: Message(
                header: .response(),
                answers: [ResourceRecord(name: type, ttl: 4500, data: .ptr(instance))],
                additionals: [
                    ResourceRecord(
                        name: instance, cacheFlush: true, ttl: 120, data: .srv(SRVData(port: 8080, target: host))),
                    ResourceRecord(name: instance, cacheFlush: true, ttl: 4500, data: .txt(txt)),
                    ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 4))),
                    ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .aaaa(IPv6Address("fd00:198:18::4")!)),
                ]))
    }()

    private static let servicePointers: [ResourceRecord] = {
        let type = name("_http._tcp.local.")
        return (1...30).map { index in
            ResourceRecord(
                name: type, ttl: 4500, data: .ptr(try! type.prepending(label: Array("Office Printer \(index)".utf8))))
        }
    }()

    /// A response listing 30 instances of one type.
    static let thirtyServicePointers = BenchmarkCase(
        name: "30-service PTR answer", slug: "30-service-ptr-answer",
        message: Message(header: .response(), answers: servicePointers))

    /// A browse query carrying 30 known answers (RFC 6762 §7.1).
    static let knownAnswerQuery = BenchmarkCase(
        name: "query + 30 known answers", slug: "query-30-known-answers",
        message: Message(questions: [Question(name: name("_http._tcp.local."), type: .ptr)], answers: servicePointers))

    /// 9000 bytes of questions: the first 127 build a 127-label name as a chain of 126 compression
    /// pointers (each question's name is one label and a pointer to the previous name), and the rest,
    /// as many as fit, point at the chain's end: the most pointer work a valid packet can ask for.
    static let adversarialPointerChains: BenchmarkCase = {
        var bytes: [UInt8] = Array(repeating: 0, count: 12)
        var previous = bytes.count
        bytes += [1, 0x61, 0, 0, 1, 0, 1]
        for _ in 1..<127 {
            let here = bytes.count
            bytes += [1, 0x61, 0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF), 0, 1, 0, 1]
            previous = here
        }
        var questionCount = 127
        while bytes.count + 6 <= Message.maximumSize {
            bytes += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF), 0, 1, 0, 1]
            questionCount += 1
        }
        bytes[4] = UInt8(questionCount >> 8)
        bytes[5] = UInt8(questionCount & 0xFF)
        return BenchmarkCase(
            name: "adversarial 9000-byte pointer chains (\(questionCount) names of 127 labels)",
            slug: "adversarial-pointer-chains", message: Message(), bytes: bytes)
    }()
}
