/// The slots of one RRset or of one name. Most hold a single record (a service's SRV, TXT or NSEC,
/// each the only record of its RRset), kept without an allocation of its own: with a thousand
/// services cached, a set each would cost more than the records.
enum SlotSet: Sequence {
    case none
    case one(Int)
    case many(Set<Int>)

    var isEmpty: Bool {
        if case .none = self { true } else { false }
    }

    mutating func insert(_ slot: Int) {
        switch self {
        case .none:
            self = .one(slot)
        case .one(let existing):
            if existing != slot { self = .many([existing, slot]) }
        case .many(var slots):
            self = .none  // so that `slots` is the set's only reference and grows in place
            slots.insert(slot)
            self = .many(slots)
        }
    }

    mutating func remove(_ slot: Int) {
        switch self {
        case .none:
            break
        case .one(let existing):
            if existing == slot { self = .none }
        case .many(var slots):
            self = .none
            slots.remove(slot)
            self = slots.count == 1 ? .one(slots.first!) : .many(slots)
        }
    }

    func makeIterator() -> Iterator {
        switch self {
        case .none: Iterator(single: nil, many: nil)
        case .one(let slot): Iterator(single: slot, many: nil)
        case .many(let slots): Iterator(single: nil, many: slots.makeIterator())
        }
    }

    struct Iterator: IteratorProtocol {
        var single: Int?
        var many: Set<Int>.Iterator?

        mutating func next() -> Int? {
            if let slot = single {
                single = nil
                return slot
            }
            return many?.next()
        }
    }
}
