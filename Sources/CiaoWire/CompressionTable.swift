/// Offsets of the name suffixes already written to a message, for name compression
/// (RFC 1035 §4.1.4). Keys are 64-bit hashes of a suffix's exact bytes; callers verify a hit
/// against the message itself, so a collision costs only a missed compression.
///
/// Open addressing with linear probing. Each entry packs the key's top 48 bits (which also pick
/// its slot) with the 14-bit offset; 0 marks an empty slot, since no name starts inside the header.
/// Entries are logged in insertion order and removed in reverse (``truncate(to:)``), and growing
/// re-inserts them in that order, so every remaining probe sequence stays intact.
struct CompressionTable {
    private var slots: [UInt64]
    private var log: [UInt64] = []

    /// A table that holds `capacity` entries before it first grows.
    init(capacity: Int) {
        var slotCount = 16
        while slotCount < capacity * 2 { slotCount <<= 1 }
        slots = Array(repeating: 0, count: slotCount)
        log.reserveCapacity(slotCount / 2)
    }

    /// Number of entries, usable as a rollback mark.
    var count: Int { log.count }

    /// Every offset stored under `key`, most recent first, until `body` returns true.
    @inline(__always)
    func forEachOffset(of key: UInt64, _ body: (Int) -> Bool) {
        let tag = key & ~0xFFFF
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key >> 16) & mask
        while slots[slot] != 0 {
            if slots[slot] & ~0xFFFF == tag && body(Int(slots[slot] & 0xFFFF)) { return }
            slot = (slot + 1) & mask
        }
    }

    /// Records that the suffix with `key` starts at `offset` (12 ..< 0x4000).
    mutating func insert(_ key: UInt64, offset: Int) {
        if (log.count + 1) * 2 > slots.count {
            slots = Array(repeating: 0, count: slots.count * 2)
            for entry in log { place(entry) }
        }
        let entry = key & ~0xFFFF | UInt64(offset)
        place(entry)
        log.append(entry)
    }

    /// Removes the entries added after the table had `count` entries.
    mutating func truncate(to count: Int) {
        let mask = slots.count - 1
        while log.count > count {
            let entry = log.removeLast()
            var slot = Int(truncatingIfNeeded: entry >> 16) & mask
            while slots[slot] != entry { slot = (slot + 1) & mask }
            slots[slot] = 0
        }
    }

    private mutating func place(_ entry: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: entry >> 16) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }
}
