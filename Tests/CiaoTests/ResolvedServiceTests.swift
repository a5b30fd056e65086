import Foundation
import Testing

@testable import Ciao

@Suite("ResolvedService")
struct ResolvedServiceTests {
    @Test func memberwiseInitAndEquality() throws {
        let service = Service(name: "Pi", type: try .tcp("ssh"), interfaceIndex: 2)
        let txt = try TXTRecord(strings: ["u": "pi"])
        let resolved = ResolvedService(
            service: service, hostName: "raspberrypi.local.", port: 22,
            addresses: ["198.18.0.7", "fe80::1%eth0"], txtRecord: txt)
        #expect(resolved.service == service)
        #expect(resolved.hostName == "raspberrypi.local.")
        #expect(resolved.port == 22)
        #expect(resolved.addresses == ["198.18.0.7", "fe80::1%eth0"])
        #expect(resolved.txtRecord[text: "u"] == "pi")

        let same = ResolvedService(
            service: service, hostName: "raspberrypi.local.", port: 22,
            addresses: ["198.18.0.7", "fe80::1%eth0"], txtRecord: try TXTRecord(strings: ["U": "pi"]))
        #expect(resolved == same)
        #expect(
            resolved
                != ResolvedService(
                    service: service, hostName: "raspberrypi.local.", port: 23,
                    addresses: ["198.18.0.7", "fe80::1%eth0"], txtRecord: txt))
        #expect(
            resolved
                != ResolvedService(
                    service: service, hostName: "raspberrypi.local.", port: 22,
                    addresses: ["198.18.0.7"], txtRecord: txt))
        #expect(
            resolved
                != ResolvedService(
                    service: service, hostName: "raspberrypi.local.", port: 22,
                    addresses: ["198.18.0.7", "fe80::1%eth0"], txtRecord: .empty))
    }
}
