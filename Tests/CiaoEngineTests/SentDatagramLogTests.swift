@testable import CiaoEngine
import Testing

/// The log of what the engine sent: known for two seconds, at most `capacity` entries.
@Suite struct SentDatagramLogTests {
    private let start = Instant.zero + .seconds(10)

    private func bytes(_ index: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(index)) { Array($0) } }

    @Test func aSentDatagramIsKnownForTwoSeconds() {
        var log = SentDatagramLog()
        log.record([1, 2, 3], at: start)
        let atTwoSeconds = log.contains([1, 2, 3], at: start + .seconds(2))
        let otherBytes = log.contains([1, 2, 4], at: start + .seconds(2))
        let pastTwoSeconds = log.contains([1, 2, 3], at: start + .seconds(2) + .milliseconds(1))
        #expect(atTwoSeconds && !otherBytes && !pastTwoSeconds)
    }

    /// The same bytes sent twice stay known until the later sending is two seconds old.
    @Test func theSameBytesSentAgainAreKnownFromTheLaterSending() {
        var log = SentDatagramLog()
        log.record([7], at: start)
        log.record([7], at: start + .seconds(1))
        let afterTheFirstExpired = log.contains([7], at: start + .milliseconds(2500))
        let afterBothExpired = log.contains([7], at: start + .milliseconds(3001))
        #expect(afterTheFirstExpired && !afterBothExpired)
    }

    /// Past the capacity the oldest entries go first, however recent.
    @Test func theOldestGoPastTheCapacity() {
        var log = SentDatagramLog()
        for index in 0...SentDatagramLog.capacity { log.record(bytes(index), at: start) }
        let oldest = log.contains(bytes(0), at: start)
        let second = log.contains(bytes(1), at: start)
        let newest = log.contains(bytes(SentDatagramLog.capacity), at: start)
        #expect(!oldest && second && newest)
    }
}
