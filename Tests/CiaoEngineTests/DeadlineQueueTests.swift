@testable import CiaoEngine
import Testing

/// The deadline queue alone: time order then ID order, deadlines an item no longer has left for
/// the holder to discard, and the rebuild threshold.
@Suite struct DeadlineQueueTests {
    private let t = Instant.zero + .seconds(100)

    @Test func deadlinesComeInTimeOrderThenIDOrder() {
        var queue = DeadlineQueue<Int>()
        queue.schedule(3, at: t + .seconds(2))
        queue.schedule(2, at: t + .seconds(1))
        queue.schedule(1, at: t + .seconds(2))
        queue.schedule(4, at: t)
        var order: [Int] = []
        while let first = queue.first {
            order.append(first.id)
            queue.removeFirst()
        }
        #expect(order == [4, 2, 1, 3])
        #expect(queue.count == 0)
    }

    @Test func aMovedDeadlineIsKeptTwiceUntilTheHolderDiscardsTheOldOne() {
        var deadline = [7: t + .seconds(5)]
        var queue = DeadlineQueue<Int>()
        queue.schedule(7, at: t + .seconds(5))
        deadline[7] = t + .seconds(9)
        queue.schedule(7, at: t + .seconds(9))
        #expect(queue.count == 2)
        #expect(queue.first?.time == t + .seconds(5))
        let live = queue.discardFirst { deadline[$0] != $1 }
        #expect(live?.id == 7 && live?.time == t + .seconds(9))
        #expect(queue.count == 1)
        deadline[7] = nil
        #expect(queue.discardFirst { deadline[$0] != $1 } == nil)
        #expect(queue.count == 0)
    }

    @Test func aRebuildIsDueOnceDeadDeadlinesOutnumberTheLiveOnes() {
        var queue = DeadlineQueue<Int>()
        for id in 0..<84 { queue.schedule(id, at: t) }
        #expect(!queue.needsRebuild(liveCount: 10))
        queue.schedule(84, at: t)
        #expect(queue.needsRebuild(liveCount: 10))
        let rebuilt = DeadlineQueue([(id: 2, time: t + .seconds(1)), (id: 1, time: t + .seconds(1))])
        #expect(rebuilt.count == 2 && rebuilt.first?.id == 1)
    }
}
