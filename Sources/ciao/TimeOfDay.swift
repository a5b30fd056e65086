#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Times of day in local time, as the command prints them.
enum TimeOfDay {
    /// Now to the millisecond, `HH:MM:SS.mmm`, as `dns-sd` stamps its lines.
    static func now() -> String {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        return text(of: clock.tv_sec) + ".\(padded(clock.tv_nsec / 1_000_000, 3))"
    }

    /// `date` to the second, `HH:MM:SS`.
    static func of(_ date: Date) -> String {
        text(of: time_t(date.timeIntervalSince1970.rounded(.down)))
    }

    private static func text(of seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        localtime_r(&seconds, &parts)
        return "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
