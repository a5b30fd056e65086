import Foundation
import Testing

@testable import Ciao

@Suite("Service")
struct ServiceTests {
    let http = try! ServiceType.tcp("http")

    @Test(arguments: [
        ("", "local."), ("local", "local."), ("local.", "local."), ("LOCAL", "local."), ("Local.", "local."),
        ("example.com", "example.com."), ("example.com.", "example.com."), ("Example.COM", "Example.COM."),
    ])
    func domainNormalisation(input: String, expected: String) {
        #expect(Service(name: "x", type: http, domain: input).domain == expected)
    }

    @Test func defaults() {
        let service = Service(name: "Printer", type: http)
        #expect(service.name == "Printer")
        #expect(service.type == http)
        #expect(service.domain == "local.")
        #expect(service.interfaceIndex == 0)
    }

    @Test func identityIsASCIICaseInsensitive() {
        let a = Service(name: "My Printer", type: http, domain: "local")
        let b = Service(name: "MY PRINTER", type: http, domain: "LOCAL.")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.id == b.id)
        #expect(a.id.hashValue == b.id.hashValue)
        #expect(Set([a, b]).count == 1)
        // The stored spelling is kept.
        #expect(b.name == "MY PRINTER")
        #expect(
            Service(name: "x", type: http, domain: "Example.com")
                == Service(name: "x", type: http, domain: "example.COM."))
    }

    @Test func nonASCIIIsNotCaseFolded() {
        // RFC 6762 §16: only ASCII letters compare case-insensitively.
        #expect(Service(name: "café", type: http) != Service(name: "CAFÉ", type: http))
        #expect(Service(name: "café", type: http) == Service(name: "CAFé", type: http))
        // Names compare byte-wise: precomposed and decomposed é differ on the wire.
        let composed = Service(name: "caf\u{E9}", type: http)
        let decomposed = Service(name: "cafe\u{301}", type: http)
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test func everyComponentIsPartOfIdentity() throws {
        let base = Service(name: "a", type: http, domain: "local.", interfaceIndex: 2)
        #expect(base == Service(name: "a", type: http, domain: "local.", interfaceIndex: 2))
        #expect(base != Service(name: "b", type: http, domain: "local.", interfaceIndex: 2))
        #expect(base != Service(name: "a", type: try .udp("http"), domain: "local.", interfaceIndex: 2))
        #expect(base != Service(name: "a", type: try .tcp("ipp"), domain: "local.", interfaceIndex: 2))
        #expect(base != Service(name: "a", type: http, domain: "example.com.", interfaceIndex: 2))
        #expect(base != Service(name: "a", type: http, domain: "local.", interfaceIndex: 3))
        #expect(base != Service(name: "a", type: http, domain: "local.", interfaceIndex: 0))
        let set: Set<Service> = [base, Service(name: "a", type: http, interfaceIndex: 3)]
        #expect(set.count == 2)
        #expect(base.id != Service(name: "a", type: http, interfaceIndex: 3).id)
        #expect(base.id.interfaceIndex == 2)
        #expect(Service(name: "AbC", type: http, domain: "LOCAL").id.name == "abc")
    }

    @Test func codableRoundTrip() throws {
        let services = [
            Service(name: "Living Room \"Speaker\" ✓", type: try .udp("raop"), domain: "local.", interfaceIndex: 7),
            Service(name: "Büro.Drucker\\1", type: http, domain: "example.org"),
        ]
        let data = try JSONEncoder().encode(services)
        let decoded = try JSONDecoder().decode([Service].self, from: data)
        #expect(decoded == services)
        #expect(decoded.map(\.name) == services.map(\.name))
        #expect(decoded.map(\.interfaceIndex) == [7, 0])
        #expect(decoded[1].domain == "example.org.")

        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(services[0])) as? [String: Any]
        #expect(Set(object?.keys.map { $0 } ?? []) == ["name", "type", "domain", "interfaceIndex"])
        #expect(object?["type"] as? String == "_raop._udp")
        #expect(object?["interfaceIndex"] as? Int == 7)
    }

    @Test func decodingWithoutInterfaceIndexAndNormalisingDomain() throws {
        let json = #"{"name":"Printer","type":"_IPP._tcp.","domain":"LOCAL"}"#
        let service = try JSONDecoder().decode(Service.self, from: Data(json.utf8))
        #expect(service.name == "Printer")
        #expect(service.type == (try ServiceType.tcp("ipp")))
        #expect(service.domain == "local.")
        #expect(service.interfaceIndex == 0)

        let other = try JSONDecoder().decode(
            Service.self, from: Data(#"{"name":"n","type":"_http._tcp","domain":"example.com"}"#.utf8))
        #expect(other.domain == "example.com.")
    }

    @Test(arguments: [
        #"{"type":"_http._tcp","domain":"local."}"#,
        #"{"name":"n","domain":"local."}"#,
        #"{"name":"n","type":"http","domain":"local."}"#,
        #"{"name":"n","type":"_http._tcp","domain":"local.","interfaceIndex":-1}"#,
    ])
    func decodingInvalidFails(json: String) {
        #expect(throws: Swift.DecodingError.self) { try JSONDecoder().decode(Service.self, from: Data(json.utf8)) }
    }

    @Test func description() {
        #expect(Service(name: "Printer", type: http).description == "Printer._http._tcp.local.")
    }
}
