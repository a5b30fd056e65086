import CiaoWire

/// When each record was last multicast on one interface, per family, for the once-a-second rule,
/// probe defence and the QU quarter-TTL rule (RFC 6762 §5.4, §6). Times older than
/// ``memory`` go when ``forgetOld(at:)`` is called.
struct MulticastLog {
    /// As far back as any rule looks: a quarter of the longest TTL we publish (the QU rule, §5.4).
    static let memory: Duration = .seconds(Int64(Registration.otherRecordTTL / 4))

    private var times: [RecordKey: MulticastTimes] = [:]

    /// How many records have a time kept.
    var count: Int { times.count }

    /// When `key`'s record last went out over `family`; nil if it never did or its time was
    /// forgotten. A time older than ``memory`` stays until ``forgetOld(at:)``.
    func lastMulticast(of key: RecordKey, over family: IPFamily) -> Instant? {
        times[key]?[family]
    }

    /// Notes that `key`'s record went out over `family` at `time`.
    mutating func note(_ key: RecordKey, over family: IPFamily, at time: Instant) {
        times[key, default: MulticastTimes()][family] = time
    }

    /// Moves `key`'s time over `family` to `time` when it is earlier: the record left after it was
    /// made (§6).
    mutating func moveLater(_ key: RecordKey, over family: IPFamily, to time: Instant) {
        guard let made = times[key]?[family], made < time else { return }
        times[key]?[family] = time
    }

    /// Forgets the times older than ``memory``.
    mutating func forgetOld(at now: Instant) {
        let since = now - Self.memory
        times = times.compactMapValues { $0.keeping(since: since) }
    }
}
