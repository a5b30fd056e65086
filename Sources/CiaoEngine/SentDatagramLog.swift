/// The datagrams the engine sent in the last few seconds, by content, so that it can recognise its
/// own multicast when the kernel loops it back (``DropReason/ownMulticast``).
///
/// Looping back is needed (another responder on this host, such as avahi-daemon, must hear us),
/// but our own probes, announcements and queries are not news to the engine that sent them. By
/// content alone, however many copies come back and on whichever interface: our multicast heard
/// again over another interface on the same link is ours too. So a byte-identical datagram that
/// another responder on this host sends within the two seconds is taken for ours.
/// Bounded: entries older than ``lifetime`` go, and at most ``capacity`` are kept.
struct SentDatagramLog {
    static let lifetime: Duration = .seconds(2)
    static let capacity = 4096

    private var entries: [(fingerprint: Int, sentAt: Instant)] = []
    private var start = 0
    private var counts: [Int: Int] = [:]

    mutating func record(_ bytes: [UInt8], at now: Instant) {
        expire(at: now)
        if entries.count - start >= Self.capacity { dropOldest() }
        let fingerprint = Self.fingerprint(bytes)
        entries.append((fingerprint, now))
        counts[fingerprint, default: 0] += 1
    }

    mutating func contains(_ bytes: [UInt8], at now: Instant) -> Bool {
        expire(at: now)
        return counts[Self.fingerprint(bytes)] != nil
    }

    private mutating func expire(at now: Instant) {
        while start < entries.count, now - entries[start].sentAt > Self.lifetime { dropOldest() }
        if start > 1024 && start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
    }

    private mutating func dropOldest() {
        let fingerprint = entries[start].fingerprint
        start += 1
        if counts[fingerprint] == 1 { counts[fingerprint] = nil } else { counts[fingerprint]! -= 1 }
    }

    private static func fingerprint(_ bytes: [UInt8]) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }
}
