import CiaoWire

/// Queries, probes and responses as a peer would send them.
public enum Messages {
    /// A question; `qu` sets the unicast-response bit (RFC 6762 §5.4).
    public static func question(_ name: DomainName, _ type: RecordType, qu: Bool = false) -> Question {
        Question(name: name, type: type, unicastResponse: qu)
    }

    /// A query asking `questions`, with `knownAnswers` in its answer section (RFC 6762 §7.1).
    public static func query(
        _ questions: [Question], knownAnswers: [ResourceRecord] = [], id: UInt16 = 0, truncated: Bool = false
    ) -> Message {
        var message = Message(questions: questions, answers: knownAnswers)
        message.header.id = id
        message.header.isTruncated = truncated
        return message
    }

    /// A probe: a query asking `questions` with the records it proposes in its authority section
    /// (RFC 6762 §8.1).
    public static func probe(_ questions: [Question], proposing authorities: [ResourceRecord]) -> Message {
        Message(questions: questions, authorities: authorities)
    }

    /// A multicast DNS response (QR and AA set, ID 0) with `answers` and `additionals`.
    public static func response(_ answers: [ResourceRecord], additionals: [ResourceRecord] = []) -> Message {
        Message(header: .response(), answers: answers, additionals: additionals)
    }

    /// A typical DNS-SD answer: a PTR, then SRV, TXT, A and AAAA as additional records.
    public static let dnsSDAnswer: Message = {
        let instance = Names.name("Living Room Speaker._http._tcp.local.")
        let host = Names.name("speaker-4.local.")
        return response(
            [ResourceRecord(name: instance.parent, ttl: 4500, data: .ptr(instance))],
            additionals: [
                ResourceRecord(
                    name: instance, cacheFlush: true, ttl: 120, data: .srv(SRVData(port: 8080, target: host))),
                ResourceRecord(
                    name: instance, cacheFlush: true, ttl: 4500, data: .txt(Services.txt(["path=/", "flag", "v=1"]))),
                ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 4))),
                ResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .aaaa(IPv6Address("fd00:198:18::4")!)),
            ])
    }()
}
