/// Elements grouped by key, the groups in the order their keys first came and each group's
/// elements in the order they were appended: one batch per browse or lookup for a round of
/// engine events.
struct OrderedGroups<Key: Hashable, Element> {
    /// The keys, in the order of their first element.
    private(set) var keys: [Key] = []
    private var groups: [Key: [Element]] = [:]

    /// The elements appended to `key`, in order; empty if none were.
    subscript(key: Key) -> [Element] { groups[key] ?? [] }

    /// Adds `element` at the end of `key`'s group, which comes after every earlier key's.
    mutating func append(_ element: Element, to key: Key) {
        if groups[key] == nil { keys.append(key) }
        groups[key, default: []].append(element)
    }
}
