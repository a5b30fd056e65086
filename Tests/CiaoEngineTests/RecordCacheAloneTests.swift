@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The record cache alone, without an engine: what each insertion did, goodbyes and cache
/// flushes a second later and only over the family a record came over, the TTL cap, refreshes at
/// 80–95 % of the TTL, eviction from a full cache, and Passive Observation Of Failures
/// (RFC 6762 §5.2, §10.1, §10.2, §10.5).
@Suite struct RecordCacheAloneTests {
    static let t = Instant.zero + .seconds(1000)
    static let peer = IPAddress.v4(IPv4Address(198, 18, 0, 7))
    static let otherPeer = IPAddress.v4(IPv4Address(198, 18, 0, 8))
    static let hostName = Names.name("printer.local.")
    static let instance = Names.instance("Printer")

    /// An A record of `printer.local.` (or `host`) for 198.18.0.`last`.
    static func a(_ last: UInt8, host: DomainName = hostName, ttl: UInt32 = 120, flush: Bool = true) -> ResourceRecord {
        ResourceRecord(name: host, cacheFlush: flush, ttl: ttl, data: .a(IPv4Address(198, 18, 0, last)))
    }

    static func txt(_ text: String, ttl: UInt32 = 4500) -> ResourceRecord {
        ResourceRecord(
            name: instance, cacheFlush: true, ttl: ttl, data: .txt(try! TXTData(strings: [Array(text.utf8)])))
    }

    /// A cache, the randomness it draws refresh jitter from, and which RRsets active queries ask for.
    struct Fixture {
        var cache: RecordCache
        var random = SplitMix64(seed: 7)
        var asked: Set<RRSetKey> = []

        init(capacity: Int = 64) {
            cache = RecordCache(capacity: capacity)
        }

        @discardableResult
        mutating func insert(
            _ record: ResourceRecord, from source: IPAddress = peer, over family: IPFamily = .v4,
            at now: Instant, asked isAsked: Bool = false
        ) -> (RecordCache.Insertion, evicted: [ResourceRecord]) {
            if isAsked { asked.insert(RecordKey(record).rrset) }
            let asked = self.asked
            return cache.insert(
                record, from: source, over: family, multicast: true, at: now, random: &random,
                isWatched: { asked.contains($0) })
        }

        mutating func removeExpired(at now: Instant) -> Set<ResourceRecord> {
            Set(cache.removeExpired(at: now))
        }

        mutating func dueRefreshes(at now: Instant) -> Set<RRSetKey> {
            let asked = self.asked
            return cache.takeDueRefreshes(at: now, random: &random, isQueried: { asked.contains($0) })
        }
    }

    @Test func aRecordIsAddedThenRefreshedThenHeardOverItsSecondFamily() {
        var cache = Fixture()
        #expect(cache.insert(Self.a(5), at: Self.t).0 == .added)
        #expect(cache.insert(Self.a(5), at: Self.t + .seconds(10)).0 == .refreshed)
        #expect(cache.cache.remainingTTL(of: RecordKey(Self.a(5)), at: Self.t + .seconds(10)) == 120)
        #expect(cache.insert(Self.a(5), over: .v6, at: Self.t + .seconds(11)).0 == .refreshedOverNewFamily)
        #expect(cache.insert(Self.a(5), over: .v6, at: Self.t + .seconds(12)).0 == .refreshed)
        #expect(cache.cache.count == 1)
    }

    @Test func aGoodbyeRemovesTheRecordASecondLaterAndOnlyOverAFamilyItCameOver() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        #expect(cache.insert(Self.a(6, ttl: 0), at: Self.t).0 == .ignored)
        #expect(cache.insert(Self.a(5, ttl: 0), over: .v6, at: Self.t + .seconds(5)).0 == .ignored)
        #expect(cache.removeExpired(at: Self.t + .seconds(7)).isEmpty)
        #expect(cache.insert(Self.a(5, ttl: 0), at: Self.t + .seconds(10)).0 == .refreshed)
        #expect(cache.removeExpired(at: Self.t + .milliseconds(10_999)).isEmpty)
        #expect(cache.removeExpired(at: Self.t + .seconds(11)) == [Self.a(5)])
        #expect(cache.cache.count == 0)
    }

    @Test func aCacheFlushRemovesMembersOlderThanASecondThatCameOverItsFamily() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        cache.insert(Self.a(6), at: Self.t + .milliseconds(500))
        #expect(cache.removeExpired(at: Self.t + .seconds(3)).isEmpty)
        cache.insert(Self.a(7), over: .v6, at: Self.t + .seconds(3))
        #expect(cache.removeExpired(at: Self.t + .seconds(5)).isEmpty)
        cache.insert(Self.a(8), at: Self.t + .seconds(5))
        #expect(cache.removeExpired(at: Self.t + .seconds(6)) == [Self.a(5), Self.a(6)])
        let left = cache.cache.records(named: Self.hostName, type: .a).map(\.record)
        #expect(Set(left) == [Self.a(7), Self.a(8)])
    }

    @Test func aNewRecordReplacingTheOnlyMemberOfItsRRsetGoesUnreported() {
        var cache = Fixture()
        cache.insert(Self.txt("v=1"), at: Self.t)
        #expect(cache.insert(Self.txt("v=2"), at: Self.t + .seconds(5)).0 == .replaced)
        #expect(cache.removeExpired(at: Self.t + .seconds(6)).isEmpty)
        #expect(cache.cache.records(named: Self.instance, type: .txt).map(\.record) == [Self.txt("v=2")])
    }

    @Test func aTTLIsCutTo4500Seconds() {
        var cache = Fixture()
        cache.insert(Self.txt("v=1", ttl: 1_000_000), at: Self.t)
        #expect(cache.cache.remainingTTL(of: RecordKey(Self.txt("v=1")), at: Self.t) == 4500)
        #expect(cache.removeExpired(at: Self.t + .seconds(4500)) == [Self.txt("v=1", ttl: 4500)])
    }

    @Test func anAskedRecordIsRefreshedAtEightyEightyFiveNinetyAndNinetyFivePercent() {
        var cache = Fixture()
        cache.insert(Self.a(5, ttl: 100), at: Self.t, asked: true)
        var refreshes: [Duration] = []
        while let next = cache.cache.nextRefresh {
            #expect(cache.dueRefreshes(at: next) == [RecordKey(Self.a(5)).rrset])
            refreshes.append(next - Self.t)
        }
        #expect(refreshes.count == 4)
        for (refresh, percent) in zip(refreshes, [80, 85, 90, 95]) {
            #expect(refresh >= .seconds(percent) && refresh <= .seconds(percent + 2))
        }
    }

    @Test func onlyWatchedRecordsAreRefreshedAndOnlyWhileAQueryAsks() throws {
        var cache = Fixture()
        cache.insert(Self.a(5, ttl: 100), at: Self.t)
        #expect(cache.cache.nextRefresh == nil)
        cache.cache.watch(name: Self.hostName, type: .a, at: Self.t + .seconds(1), random: &cache.random)
        let first = try #require(cache.cache.nextRefresh)
        #expect(first >= Self.t + .seconds(80) && first <= Self.t + .seconds(82))
        #expect(cache.dueRefreshes(at: first).isEmpty)
        #expect(cache.cache.nextRefresh == nil)
        #expect(cache.cache.entry(RecordKey(Self.a(5, ttl: 100)))?.watched == false)
    }

    @Test func aFullCacheEvictsUnaskedRecordsSoonestToExpireFirstWithoutReportingThem() {
        var cache = Fixture(capacity: 8)
        for index in 1...8 {
            let host = Names.name("host\(index).local.")
            cache.insert(
                Self.a(UInt8(index), host: host, ttl: UInt32(1000 - index)),
                from: .v4(IPv4Address(198, 18, 1, UInt8(index))), at: Self.t)
        }
        let (insertion, evicted) = cache.insert(Self.a(9), at: Self.t, asked: true)
        #expect(insertion == .added && evicted.isEmpty)
        // Down to 7/8 of the capacity: the two unasked records that expire first have gone.
        #expect(cache.cache.count == 7)
        let names = Set(cache.cache.records.map(\.name.description))
        #expect(!names.contains("host8.local.") && !names.contains("host7.local."))
        #expect(names.contains("host6.local.") && names.contains("printer.local."))
    }

    @Test func aFullCacheOfAskedRecordsReportsTheNewestOfTheSourceHoldingMost() {
        var cache = Fixture(capacity: 4)
        let other1 = Self.a(20, host: Names.name("other1.local."))
        cache.insert(other1, from: Self.otherPeer, at: Self.t, asked: true)
        for index in 1...3 {
            cache.insert(Self.a(UInt8(index), flush: false), at: Self.t + .seconds(index), asked: true)
        }
        let other2 = Self.a(21, host: Names.name("other2.local."))
        let (insertion, evicted) = cache.insert(other2, from: Self.otherPeer, at: Self.t + .seconds(10), asked: true)
        #expect(insertion == .added)
        #expect(evicted == [Self.a(3, flush: false)])
        #expect(cache.cache.count == 4)
    }

    @Test func aSourceHoldingHalfAFullCacheIsTurnedAwayUnlessAQueryAsksForItsRecord() {
        var cache = Fixture(capacity: 4)
        cache.insert(Self.a(20, host: Names.name("other.local.")), from: Self.otherPeer, at: Self.t)
        for index in 1...3 {
            cache.insert(Self.a(UInt8(index)), at: Self.t)
        }
        #expect(cache.insert(Self.a(4), at: Self.t + .seconds(1)).0 == .refused)
        #expect(cache.cache.count == 4)
        let asked = Self.a(5, host: Names.name("asked.local."))
        #expect(cache.insert(asked, at: Self.t + .seconds(1), asked: true).0 == .added)
        #expect(cache.cache.entry(RecordKey(asked)) != nil)
        // An unasked record made room for it.
        #expect(cache.cache.count == 4)
    }

    @Test func twoUnansweredQueriesRemoveARecordTenSecondsAfterTheFirst() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        cache.insert(Self.txt("v=1"), at: Self.t)
        let holdsTXT = ListedAnswers([Self.txt("v=1", ttl: 3000)])
        for second in [2, 4] {
            cache.cache.noteUnansweredQuery(
                name: Self.hostName, type: .a, knownAnswers: ListedAnswers([]), over: .v4,
                at: Self.t + .seconds(second))
            // A querier that lists the TXT record with over half its TTL expects no answer (§7.1).
            cache.cache.noteUnansweredQuery(
                name: Self.instance, type: .txt, knownAnswers: holdsTXT, over: .v4, at: Self.t + .seconds(second))
        }
        #expect(cache.removeExpired(at: Self.t + .milliseconds(11_999)).isEmpty)
        #expect(cache.removeExpired(at: Self.t + .seconds(12)) == [Self.a(5)])
        #expect(cache.cache.entry(RecordKey(Self.txt("v=1"))) != nil)
    }

    @Test func oneUnansweredQueryIsNoFailure() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        cache.cache.noteUnansweredQuery(
            name: Self.hostName, type: .a, knownAnswers: ListedAnswers([]), over: .v4, at: Self.t + .seconds(2))
        #expect(cache.removeExpired(at: Self.t + .seconds(60)).isEmpty)
    }

    @Test func aQueryWithinASecondOfTheRecordsMulticastCountsNothing() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        for milliseconds in [200, 900] {
            cache.cache.noteUnansweredQuery(
                name: Self.hostName, type: .a, knownAnswers: ListedAnswers([]), over: .v4,
                at: Self.t + .milliseconds(milliseconds))
        }
        #expect(cache.removeExpired(at: Self.t + .seconds(60)).isEmpty)
    }

    @Test func removingEverythingReportsAllButReplacedRecords() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        cache.insert(Self.txt("v=1"), at: Self.t)
        cache.insert(Self.txt("v=2"), at: Self.t + .seconds(2))
        #expect(Set(cache.cache.removeAll()) == [Self.a(5), Self.txt("v=2")])
        #expect(cache.cache.count == 0 && cache.cache.nextExpiry == nil)
    }

    // MARK: Reconfirmation (§10.4)

    /// A reconfirmed record that no query watches is asked for at once and two seconds later, and
    /// then no more, and goes ten seconds on; one heard within the last second is left alone; a
    /// second call changes nothing.
    @Test func aReconfirmedRecordIsAskedForTwiceThenGoes() {
        var cache = Fixture()
        let rrset = RecordKey(Self.a(5)).rrset
        cache.insert(Self.a(5), at: Self.t)
        cache.cache.reconfirm(name: Self.hostName, type: .a, data: nil, at: Self.t + .milliseconds(500))
        #expect(cache.cache.nextRefresh == nil, "heard half a second ago")
        let start = Self.t + .seconds(5)
        cache.cache.reconfirm(name: Self.hostName, type: .a, data: nil, at: start)
        #expect(cache.cache.nextExpiry == start + .seconds(10))
        #expect(cache.dueRefreshes(at: start) == [rrset])
        cache.cache.reconfirm(name: Self.hostName, type: .a, data: nil, at: start + .seconds(1))
        #expect(cache.cache.nextRefresh == start + .seconds(2))
        #expect(cache.cache.nextExpiry == start + .seconds(10))
        #expect(cache.dueRefreshes(at: start + .seconds(2)) == [rrset])
        #expect(cache.cache.nextRefresh == nil, "not watched: no refresh after the reconfirmations")
        #expect(cache.removeExpired(at: start + .milliseconds(9_999)).isEmpty)
        #expect(cache.removeExpired(at: start + .seconds(10)) == [Self.a(5)])
    }

    /// An answer ends a reconfirmation: the record stays for its TTL and is not asked for again.
    @Test func anAnswerEndsAReconfirmation() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        let start = Self.t + .seconds(5)
        cache.cache.reconfirm(name: Self.hostName, type: .a, data: nil, at: start)
        _ = cache.dueRefreshes(at: start)
        cache.insert(Self.a(5), at: start + .milliseconds(100))
        #expect(cache.cache.nextRefresh == nil)
        #expect(cache.cache.nextExpiry == start + .milliseconds(100) + .seconds(120))
    }

    /// A record POOF suspects that no query watches is still asked for when reconfirmed, and
    /// keeps the deadline POOF gave it; only the record with the data given is reconfirmed.
    @Test func aRecordPOOFSuspectsIsAskedForWhenReconfirmed() {
        var cache = Fixture()
        cache.insert(Self.a(5), at: Self.t)
        cache.insert(Self.a(6), at: Self.t)
        for second in [3, 4] {
            cache.cache.noteUnansweredQuery(
                name: Self.hostName, type: .a, knownAnswers: ListedAnswers([]), over: .v4,
                at: Self.t + .seconds(Int64(second)))
        }
        #expect(cache.cache.nextRefresh == nil, "POOF asks itself only for a watched record")
        let deadline = cache.cache.nextExpiry
        cache.cache.reconfirm(name: Self.hostName, type: .a, data: Self.a(6).data, at: Self.t + .seconds(5))
        #expect(cache.dueRefreshes(at: Self.t + .seconds(5)) == [RecordKey(Self.a(6)).rrset])
        #expect(cache.cache.nextRefresh == Self.t + .seconds(7))
        #expect(cache.cache.nextExpiry == deadline)
        #expect(cache.removeExpired(at: Self.t + .seconds(14)) == [Self.a(5), Self.a(6)])
    }
}
