import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire
import Testing

/// The names domain enumeration asks (RFC 6763 §11) and the domains read from the answers.
@Suite struct DomainEnumerationTests {
    static func v4(_ text: String, _ prefix: Int) -> DomainEnumeration.Network {
        .v4(IPv4Address(text)!, prefixLength: prefix)
    }
    static func v6(_ text: String, _ prefix: Int) -> DomainEnumeration.Network {
        .v6(IPv6Address(text)!, prefixLength: prefix)
    }

    @Test func reverseNamesHaveTheHostBitsZero() {
        #expect(Self.v4("192.168.1.7", 24).reverseName == Names.name("0.1.168.192.in-addr.arpa."))
        #expect(Self.v4("198.18.0.2", 24).reverseName == Names.name("0.0.18.198.in-addr.arpa."))
        #expect(Self.v4("10.1.2.3", 16).reverseName == Names.name("0.0.1.10.in-addr.arpa."))
        #expect(Self.v4("10.1.2.3", 20).reverseName == Names.name("0.0.1.10.in-addr.arpa."))
        #expect(Self.v4("10.1.18.3", 20).reverseName == Names.name("0.16.1.10.in-addr.arpa."))
        #expect(
            Self.v6("fd00:198:18::2", 64).reverseName
                == Names.name("0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.1.0.0.8.9.1.0.0.0.d.f.ip6.arpa."))
        #expect(
            Self.v6("2001:db8:aaaa:bbbb:1:2:3:4", 48).reverseName
                == Names.name("0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.a.a.a.a.8.b.d.0.1.0.0.2.ip6.arpa."))
    }

    @Test func searchDomainsComeFirstThenGlobalNetworksOnlyEachOnce() {
        let names = DomainEnumeration.queryNames(
            .browse, searchDomains: [Names.name("lab.example."), Names.name("lab.example.")],
            networks: [
                Self.v4("198.18.0.2", 24), Self.v4("198.18.0.9", 24), Self.v4("169.254.3.4", 16),
                Self.v4("127.0.0.1", 8), Self.v6("fe80::1", 64), Self.v6("::1", 128), Self.v6("fd00:198:18::2", 64),
            ])
        #expect(
            names == [
                Names.name("b._dns-sd._udp.lab.example."), Names.name("b._dns-sd._udp.0.0.18.198.in-addr.arpa."),
                Names.name(
                    "b._dns-sd._udp.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.1.0.0.8.9.1.0.0.0.d.f.ip6.arpa."),
            ])
        #expect(
            DomainEnumeration.queryNames(.legacyBrowse, searchDomains: [Names.name("example.")], networks: [])
                == [Names.name("lb._dns-sd._udp.example.")])
        #expect(DomainEnumeration.Kind.allCases.map(\.rawValue) == ["b", "db", "r", "dr", "lb"])
    }

    @Test func domainsAreThePTRTargetsOfTheQuestionOnly() {
        let question = Names.name("b._dns-sd._udp.lab.example.")
        let answers = [
            ResourceRecord(name: question, ttl: 300, data: .ptr(Names.name("lab.example."))),
            ResourceRecord(name: question, ttl: 300, data: .ptr(Names.name("other.example."))),
            ResourceRecord(name: question, ttl: 300, data: .ptr(Names.name("lab.example."))),
            ResourceRecord(name: question, ttl: 300, data: .ptr(.root)),
            ResourceRecord(name: Names.name("elsewhere.example."), ttl: 300, data: .ptr(Names.name("evil.example."))),
            ResourceRecord(name: question, ttl: 300, data: .a(IPv4Address(1, 2, 3, 4))),
        ]
        #expect(
            DomainEnumeration.domains(in: answers, for: question) == [
                Names.name("lab.example."), Names.name("other.example."),
            ])
    }
}
