/// When one record was last multicast over each IP family of an interface, for the
/// once-a-second rule, probe defence and the QU quarter-TTL rule (RFC 6762 §5.4, §6).
///
/// One value per record for both families keeps the table at one entry per record rather than
/// one per record and family: most records go out over both.
struct MulticastTimes {
    private var v4: Int64 = Self.never
    private var v6: Int64 = Self.never

    private static let never = Int64.min

    /// When the record last went out over `family`, or nil if it never did.
    subscript(family: IPFamily) -> Instant? {
        get {
            let nanoseconds = family == .v4 ? v4 : v6
            return nanoseconds == Self.never ? nil : Instant(nanoseconds: nanoseconds)
        }
        set {
            let nanoseconds = newValue?.nanoseconds ?? Self.never
            if family == .v4 { v4 = nanoseconds } else { v6 = nanoseconds }
        }
    }

    /// These times without those older than `oldest`; nil when none is left.
    func keeping(since oldest: Instant) -> MulticastTimes? {
        var kept = MulticastTimes()
        for family in IPFamily.allCases {
            if let last = self[family], last >= oldest { kept[family] = last }
        }
        return kept.v4 == Self.never && kept.v6 == Self.never ? nil : kept
    }
}
