/// A point in time for the engine, in nanoseconds since an arbitrary origin chosen by the caller.
///
/// The engine has no clock of its own: the runtime passes the monotonic time, and tests pass
/// virtual time, so every timing rule can be checked deterministically.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The origin, for tests and simulations that start at zero.
    public static let zero = Instant(nanoseconds: 0)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(lhs.nanoseconds - rhs.nanoseconds)
    }

    /// Seconds with millisecond precision, e.g. `12.345s`.
    public var description: String {
        let milliseconds = nanoseconds / 1_000_000
        let fraction = abs(milliseconds % 1000)
        return "\(milliseconds / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)s"
    }
}

extension Duration {
    /// The duration in whole nanoseconds (sub-nanosecond parts are dropped).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Scales by a factor, e.g. 0.8 of a TTL.
    public func scaled(by factor: Double) -> Duration {
        .nanoseconds(Int64((Double(nanoseconds) * factor).rounded()))
    }
}
