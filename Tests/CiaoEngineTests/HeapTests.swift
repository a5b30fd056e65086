@testable import CiaoEngine
import Testing

/// The binary heap alone: whatever the order elements come in, pushed one by one or built at
/// once, they come out least first.
@Suite struct HeapTests {
    @Test(arguments: [0, 1, 2, 7, 64, 1000])
    func elementsComeOutLeastFirst(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 1)
        let elements = (0..<count).map { _ in Int.random(in: 0..<50, using: &random) }
        var pushed = Heap<Int>()
        for element in elements { pushed.push(element) }
        var built = Heap(elements)
        #expect(pushed.count == count && built.count == count)
        #expect(pushed.top == elements.min() && built.top == elements.min())
        var fromPushed: [Int] = []
        while let element = pushed.pop() { fromPushed.append(element) }
        var fromBuilt: [Int] = []
        while let element = built.pop() { fromBuilt.append(element) }
        #expect(fromPushed == elements.sorted())
        #expect(fromBuilt == elements.sorted())
        #expect(pushed.pop() == nil && pushed.top == nil)
    }

    @Test func pushesBetweenPopsKeepTheOrder() {
        var heap = Heap([5, 3, 8])
        #expect(heap.pop() == 3)
        heap.push(1)
        heap.push(9)
        #expect(heap.pop() == 1)
        heap.push(4)
        var rest: [Int] = []
        while let element = heap.pop() { rest.append(element) }
        #expect(rest == [4, 5, 8, 9])
    }
}
