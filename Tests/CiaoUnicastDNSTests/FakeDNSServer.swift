import CiaoEngine
import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire

/// Builders for what a server sends back, from the query the client sent.
enum FakeDNSServer {

    static let primary = DNSServer(.ipv4(IPv4Address(198, 18, 0, 53)))
    static let secondary = DNSServer(.ipv6(IPv6Address("fd00:198:18::53")!))

    static func client(servers: [DNSServer] = [primary, secondary], attempts: Int = 2) -> UnicastDNSClient<SplitMix64> {
        UnicastDNSClient(
            configuration: ResolverConfiguration(servers: servers, timeout: .seconds(2), attempts: attempts),
            random: SplitMix64(seed: 7))
    }

    /// The reply to `query` with the given records, RCODE and flags; the question is echoed.
    static func reply(
        to query: [UInt8], rcode: UInt8 = 0, truncated: Bool = false, answers: [ResourceRecord] = [],
        authorities: [ResourceRecord] = [], id: UInt16? = nil
    ) -> [UInt8] {
        let request = try! Message.decode(query).message
        var flags: UInt16 = 0x8400 | UInt16(rcode)
        if truncated { flags |= 0x0200 }
        let message = Message(
            header: MessageHeader(id: id ?? request.header.id, flags: flags), questions: request.questions,
            answers: answers, authorities: authorities)
        return try! message.encoded(maximumSize: 65535)
    }

    static func soa(_ zone: String, ttl: UInt32 = 3600, minimum: UInt32 = 30) -> ResourceRecord {
        ResourceRecord(
            name: Names.name(zone), ttl: ttl,
            data: .soa(
                SOAData(
                    primaryServer: Names.name("ns.\(zone)"), responsibleMailbox: Names.name("hostmaster.\(zone)"),
                    serial: 1,
                    refresh: 3600, retry: 900, expire: 604800, minimum: minimum)))
    }
}
