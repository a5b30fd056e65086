/// Offsets of the name suffixes already written to a message, for name compression
/// (RFC 1035 §4.1.4). Keys are 64-bit hashes of a suffix's exact bytes; callers verify a hit
/// against the message itself, so a collision costs only a missed compression.
///
/// Open addressing with linear probing in a table sized once for the message, so lookups do not
/// allocate. Entries are removed in the reverse order of insertion (``truncate(to:)``), which keeps
/// every remaining probe sequence intact.
struct CompressionTable {
    private var keys: [UInt64]
    private var offsets: [UInt16]
    /// Slots in insertion order, for rollback.
    private var log: [Int] = []
    private let mask: Int

    /// A table for at least `capacity` entries.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = Array(repeating: 0, count: size)
        offsets = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// Number of entries, usable as a rollback mark.
    var count: Int { log.count }

    /// Every offset stored under `key`, most recent first, until `body` returns true.
    func forEachOffset(of key: UInt64, _ body: (Int) -> Bool) {
        var slot = Int(truncatingIfNeeded: key) & mask
        while offsets[slot] != 0 {
            if keys[slot] == key && body(Int(offsets[slot])) { return }
            slot = (slot + 1) & mask
        }
    }

    /// Records that the suffix with `key` starts at `offset` (which must be 12 ..< 0x4000).
    /// Does nothing when the table is full.
    mutating func insert(_ key: UInt64, offset: Int) {
        guard log.count * 2 < keys.count else { return }
        var slot = Int(truncatingIfNeeded: key) & mask
        while offsets[slot] != 0 { slot = (slot + 1) & mask }
        keys[slot] = key
        offsets[slot] = UInt16(offset)
        log.append(slot)
    }

    /// Removes the entries added after the table had `count` entries.
    mutating func truncate(to count: Int) {
        while log.count > count {
            offsets[log.removeLast()] = 0
        }
    }
}
