/// A binary min-heap: the engine's deadline queues, and the simulator's event queues.
package struct Heap<Element: Comparable> {
    private var elements: [Element] = []

    package init() {}

    /// A heap of `elements`, built in O(n).
    package init(_ elements: [Element]) {
        self.elements = elements
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The least element.
    package var top: Element? { elements.first }
    package var count: Int { elements.count }

    package mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the least element.
    @discardableResult
    package mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        siftDown(0)
        return top
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count && elements[left] < elements[smallest] { smallest = left }
            if right < elements.count && elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
