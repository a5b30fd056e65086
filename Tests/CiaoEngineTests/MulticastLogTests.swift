@testable import CiaoEngine
import CiaoWire
import Testing

/// The multicast log alone: times per record and family, moved only later, and forgotten past
/// the QU rule's horizon (RFC 6762 §5.4, §6).
@Suite struct MulticastLogTests {
    private let start = Instant.zero + .seconds(10)

    private func key(_ name: String) -> RecordKey {
        RecordKey(ResourceRecord(name: DomainName(name)!, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1))))
    }

    @Test func timesAreKeptPerFamilyAndMovedOnlyLater() {
        var log = MulticastLog()
        log.note(key("a.local."), over: .v4, at: start)
        #expect(log.lastMulticast(of: key("a.local."), over: .v4) == start)
        #expect(log.lastMulticast(of: key("a.local."), over: .v6) == nil)
        log.moveLater(key("a.local."), over: .v4, to: start + .milliseconds(3))
        log.moveLater(key("a.local."), over: .v4, to: start + .milliseconds(1))
        // Never sent over IPv6: nothing to move.
        log.moveLater(key("a.local."), over: .v6, to: start + .milliseconds(3))
        #expect(log.lastMulticast(of: key("a.local."), over: .v4) == start + .milliseconds(3))
        #expect(log.lastMulticast(of: key("a.local."), over: .v6) == nil && log.count == 1)
    }

    @Test func timesOlderThanTheMemoryAreForgotten() {
        var log = MulticastLog()
        log.note(key("old.local."), over: .v4, at: start)
        log.note(key("both.local."), over: .v4, at: start)
        let later = start + MulticastLog.memory + .seconds(1)
        log.note(key("both.local."), over: .v6, at: later)
        log.forgetOld(at: later - .seconds(1))
        #expect(log.count == 2)
        log.forgetOld(at: later)
        #expect(log.count == 1)
        #expect(log.lastMulticast(of: key("both.local."), over: .v4) == nil)
        #expect(log.lastMulticast(of: key("both.local."), over: .v6) == later)
    }
}
