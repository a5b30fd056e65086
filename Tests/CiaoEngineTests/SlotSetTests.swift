@testable import CiaoEngine
import Testing

/// The cache's slot set alone: one slot kept inline, two or more in a set, back to one and to
/// none as slots leave, each slot once.
@Suite struct SlotSetTests {
    @Test func slotsComeAndGoThroughOneAndMany() {
        var slots = SlotSet.none
        #expect(slots.isEmpty && Array(slots).isEmpty)
        slots.insert(4)
        slots.insert(4)
        guard case .one(4) = slots else {
            Issue.record("one slot is kept inline, not \(slots)")
            return
        }
        slots.insert(9)
        slots.insert(2)
        #expect(Set(slots) == [2, 4, 9] && Array(slots).count == 3)
        slots.remove(4)
        slots.remove(7)
        #expect(Set(slots) == [2, 9])
        slots.remove(2)
        guard case .one(9) = slots else {
            Issue.record("a last slot goes back inline, not \(slots)")
            return
        }
        slots.remove(3)
        #expect(Array(slots) == [9])
        slots.remove(9)
        #expect(slots.isEmpty && Array(slots).isEmpty)
    }
}
