@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The answers listed in a message alone: known-answer suppression at half the TTL (RFC 6762
/// §7.1) and a copy of our answer at its full TTL (§7.4), a record listed twice at its longer TTL.
@Suite struct ListedAnswersTests {
    private let ptr = ResourceRecord(
        name: DomainName("_http._tcp.local.")!, ttl: 4500, data: .ptr(DomainName("A._http._tcp.local.")!))

    private func listed(_ ttls: UInt32...) -> ListedAnswers {
        ListedAnswers(
            ttls.map { ttl in
                var record = ptr
                record.ttl = ttl
                return record
            })
    }

    @Test func aKnownAnswerSuppressesFromHalfItsTTL() {
        #expect(ListedAnswers([]).isEmpty)
        #expect(listed(2250).holdsAtLeastHalf(of: RecordKey(ptr), ttl: ptr.ttl))
        #expect(!listed(2249).holdsAtLeastHalf(of: RecordKey(ptr), ttl: ptr.ttl))
        #expect(listed(2249, 2250).holdsAtLeastHalf(of: RecordKey(ptr), ttl: ptr.ttl))
        var other = ptr
        other.data = .ptr(DomainName("B._http._tcp.local.")!)
        #expect(!listed(4500).holdsAtLeastHalf(of: RecordKey(other), ttl: other.ttl))
    }

    @Test func aCopyOfOurAnswerHasAtLeastItsTTL() {
        #expect(listed(4500).copies(ptr))
        #expect(!listed(4499).copies(ptr))
        #expect(listed(4499, 4500).copies(ptr))
        #expect(!ListedAnswers([]).copies(ptr))
    }
}
