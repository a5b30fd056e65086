/// Deadlines of items whose deadline may move or go before it is due, in time order (then `ID`
/// order). Nothing is removed from the middle: the holder schedules each new deadline and
/// discards, when it comes first, one that its item no longer has (``discardFirst(while:)``).
/// Once ``needsRebuild(liveCount:)``, the holder builds the queue again from its live deadlines.
package struct DeadlineQueue<ID: Comparable> {
    private struct Deadline: Comparable {
        var time: Instant
        var id: ID

        static func < (lhs: Deadline, rhs: Deadline) -> Bool { (lhs.time, lhs.id) < (rhs.time, rhs.id) }
    }

    private var heap: Heap<Deadline>

    package init() {
        heap = Heap()
    }

    /// A queue of `deadlines`, built in O(n).
    package init(_ deadlines: [(id: ID, time: Instant)]) {
        heap = Heap(deadlines.map { Deadline(time: $0.time, id: $0.id) })
    }

    /// The earliest deadline kept, which its item may no longer have.
    package var first: (id: ID, time: Instant)? { heap.top.map { ($0.id, $0.time) } }

    /// How many deadlines are kept, those items no longer have included.
    package var count: Int { heap.count }

    package mutating func schedule(_ id: ID, at time: Instant) {
        heap.push(Deadline(time: time, id: id))
    }

    package mutating func removeFirst() {
        heap.pop()
    }

    /// Removes the first deadlines while `isStale` says their item no longer has them; returns the
    /// earliest deadline left.
    @discardableResult
    package mutating func discardFirst(while isStale: (ID, Instant) -> Bool) -> (id: ID, time: Instant)? {
        while let top = heap.top, isStale(top.id, top.time) { heap.pop() }
        return first
    }

    /// True when the deadlines kept outnumber twice the `liveCount` the items have (and a few):
    /// rebuilt then, the queue stays within a constant factor of what is live.
    package func needsRebuild(liveCount: Int) -> Bool {
        heap.count > 2 * liveCount + 64
    }
}
