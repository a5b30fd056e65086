import Ciao
import Testing
@testable import ciao

/// `ciao browse -p` prints a line per protocol a service's records came over, each once: a
/// record's later first arrival over IPv6 adds the IPv6 lines then.
@Suite struct FamilyLedgerTests {
    let service = Fixture.service

    @Test func aProtocolHeardLaterAddsItsLinesOnce() {
        var ledger = FamilyLedger()
        #expect(ledger.found(service, heard: [.ipv4], fallback: [.ipv4, .ipv6]) == [.ipv4])
        var resolved = Fixture.resolved
        resolved.addressesHeardOver = [.ipv4: ["198.18.0.1"]]
        #expect(ledger.resolved(resolved, isNews: true) == [.ipv4])

        #expect(ledger.found(service, heard: [.ipv4, .ipv6], fallback: []) == [.ipv6])
        #expect(ledger.found(service, heard: [.ipv4, .ipv6], fallback: []) == [])
        #expect(ledger.resolved(resolved, isNews: false) == [], "no address came over IPv6 yet")
        resolved.addressesHeardOver[.ipv6] = ["fd00:198:18::1"]
        #expect(ledger.resolved(resolved, isNews: false) == [.ipv6])
        #expect(ledger.resolved(resolved, isNews: false) == [])
        #expect(ledger.resolved(resolved, isNews: true) == [.ipv6, .ipv4], "a change prints every protocol")
        #expect(ledger.lastResolved(service) == resolved)
        #expect(ledger.removed(service, fallback: []) == [.ipv6, .ipv4])
        #expect(ledger.lastResolved(service) == nil)
    }

    @Test func aServiceHeardOverNoFamilyFallsBackToTheInterfaces() {
        var ledger = FamilyLedger()
        #expect(ledger.found(service, heard: [], fallback: [.ipv4, .ipv6]) == [.ipv6, .ipv4])
        #expect(ledger.removed(service, fallback: [.ipv4]) == [.ipv6, .ipv4])
        #expect(ledger.removed(service, fallback: [.ipv4]) == [.ipv4])
    }
}
