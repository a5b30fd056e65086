import CiaoWire
import Foundation
import Testing

@testable import Ciao

@Suite("ServiceType")
struct ServiceTypeTests {
    @Test(arguments: [
        ("_http._tcp", "_http._tcp", "http", ServiceType.Transport.tcp),
        ("_ciao-demo._udp.", "_ciao-demo._udp", "ciao-demo", .udp),
        ("_HTTP._TCP", "_http._tcp", "http", .tcp),
        ("_Http._Tcp.", "_http._tcp", "http", .tcp),
        ("_a._udp", "_a._udp", "a", .udp),
        ("_123456789abcdef._tcp", "_123456789abcdef._tcp", "123456789abcdef", .tcp),
        ("_x-1-y._tcp", "_x-1-y._tcp", "x-1-y", .tcp),
        ("_1a._tcp", "_1a._tcp", "1a", .tcp),
    ])
    func accepts(input: String, raw: String, name: String, transport: ServiceType.Transport) throws {
        let type = try ServiceType(input)
        #expect(type.rawValue == raw)
        #expect(type.description == raw)
        #expect(type.name == name)
        #expect(type.transport == transport)
    }

    @Test(arguments: [
        "http", "_a._sctp", "_123._tcp", "_-abc._tcp", "_a--b._udp", "_abc-._tcp",
        "_abcdefghijklmnop._tcp",  // 16 characters
        "_café._tcp", "_ü._udp", "", ".", "_._tcp", "http._tcp", "_http", "_http.", "_http._tcp..",
        "_http._tcp.local.", "_printer._sub._http._tcp", "__http._tcp", "_ht tp._tcp", "_ht_tp._tcp",
        "_http.tcp", "_http._tc", "._tcp", "-",
    ])
    func rejects(input: String) {
        #expect(throws: CiaoError.self) { try ServiceType(input) }
        do {
            _ = try ServiceType(input)
        } catch let CiaoError.invalidServiceType(message) {
            #expect(message.contains("\"\(input)\""), "message should name the input: \(message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func errorMessagesNameTheRule() throws {
        func message(_ input: String) -> String {
            do {
                _ = try ServiceType(input)
                return ""
            } catch let CiaoError.invalidServiceType(message) {
                return message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("_a._sctp").contains("_tcp"))
        #expect(message("_123._tcp").contains("letter"))
        #expect(message("_-abc._tcp").contains("hyphen"))
        #expect(message("_abc-._tcp").contains("hyphen"))
        #expect(message("_a--b._udp").contains("two hyphens"))
        #expect(message("_abcdefghijklmnop._tcp").contains("15"))
        #expect(message("_café._tcp").contains("ASCII"))
        #expect(message("").contains("empty"))
    }

    @Test func factories() throws {
        #expect(try ServiceType.tcp("http").rawValue == "_http._tcp")
        #expect(try ServiceType.udp("ciao-demo").rawValue == "_ciao-demo._udp")
        #expect(try ServiceType.tcp("_http") == ServiceType("_http._tcp"))
        #expect(try ServiceType.udp("_Chat") == ServiceType("_chat._udp"))
        #expect(try ServiceType.tcp("IPP").name == "ipp")
        for bad in ["", "_", "__http", "a--b", "-a", "a-", "123", "abcdefghijklmnop", "http._tcp", "ht.tp", "é"] {
            #expect(throws: CiaoError.self, "tcp(\(bad))") { try ServiceType.tcp(bad) }
            #expect(throws: CiaoError.self, "udp(\(bad))") { try ServiceType.udp(bad) }
        }
    }

    @Test func equalityIgnoresCaseAndTrailingDot() throws {
        let a = try ServiceType("_HTTP._tcp.")
        let b = try ServiceType.tcp("http")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(try ServiceType("_http._tcp") != ServiceType("_http._udp"))
        #expect(Set([a, b, try ServiceType("_ipp._tcp")]).count == 2)
    }

    @Test func codableRoundTripAsSingleString() throws {
        let type = try ServiceType("_Ciao-Demo._UDP.")
        let json = try JSONEncoder().encode([type])
        #expect(String(decoding: json, as: UTF8.self) == #"["_ciao-demo._udp"]"#)
        let back = try JSONDecoder().decode([ServiceType].self, from: json)
        #expect(back == [type])
        let lenient = try JSONDecoder().decode([ServiceType].self, from: Data(#"["_HTTP._TCP."]"#.utf8))
        #expect(lenient == [try ServiceType.tcp("http")])
    }

    @Test(arguments: [#"["http"]"#, #"["_._udp"]"#, #"[""]"#, #"[42]"#, #"[{"rawValue":"_http._tcp"}]"#])
    func decodingInvalidFails(json: String) {
        #expect(throws: Swift.DecodingError.self) {
            try JSONDecoder().decode([ServiceType].self, from: Data(json.utf8))
        }
    }

    @Test func transportRawValues() {
        #expect(ServiceType.Transport.tcp.rawValue == "tcp")
        #expect(ServiceType.Transport.udp.rawValue == "udp")
        #expect(ServiceType.Transport.allCases.count == 2)
    }

    /// Types seen on the network may break RFC 6335: `init(observed:)` takes them, `init(_:)`
    /// does not, and a saved reference to one decodes.
    @Test func observedTypesMayBeLongerThanRFC6335Allows() throws {
        #expect(throws: CiaoError.self) { try ServiceType("_CinchGamingService._tcp") }
        let long = try ServiceType(observed: "_CinchGamingService._tcp.")
        #expect(long.rawValue == "_cinchgamingservice._tcp" && long.transport == .tcp && !long.isRFC6335)
        #expect(try ServiceType(observed: "_http._tcp") == ServiceType("_http._tcp"))
        #expect(try ServiceType("_http._tcp").isRFC6335)
        #expect(try ServiceType(observed: "_under_score._udp").name == "under_score")
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_" + String(repeating: "x", count: 63) + "._tcp") }
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_._tcp") }
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_a\u{1}b._tcp") }
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_a\u{9B}31m._tcp") }
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_a\u{2028}b._tcp") }
        #expect(throws: CiaoError.self) { try ServiceType(observed: "_x._sctp") }
        let saved = try JSONEncoder().encode(Service(name: "Lobby", type: long))
        #expect(try JSONDecoder().decode(Service.self, from: saved).type == long)
    }

    /// A type's DNS name is its two labels under the domain, whatever bytes an observed label holds.
    @Test func aTypesDomainNameIsItsLabelsUnderTheDomain() throws {
        let domain = try DomainName(parsing: "lab.example.")
        #expect(try ServiceType("_http._tcp").domainName(in: domain).description == "_http._tcp.lab.example.")
        let observed = try ServiceType(observed: "_Cinch Gaming Service._udp")
        #expect(try observed.domainName(in: domain).labelCount == 4)
    }
}
