#if canImport(Glibc)
import Glibc
#endif

/// The local time of day to the millisecond, `HH:MM:SS.mmm`, as `dns-sd` stamps its lines.
enum TimeOfDay {
    static func now() -> String {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        var parts = tm()
        var seconds = clock.tv_sec
        localtime_r(&seconds, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
            + ".\(padded(clock.tv_nsec / 1_000_000, 3))"
    }
}
