#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Operations per second of `body`, the best of three runs of about `seconds` each.
func measure(seconds: Double, _ body: () -> Void) -> Double {
    for _ in 0..<1000 { body() }
    var best = 0.0
    for _ in 0..<3 {
        var iterations = 0
        let start = now()
        var elapsed = 0.0
        while elapsed < seconds {
            for _ in 0..<100 { body() }
            iterations += 100
            elapsed = now() - start
        }
        best = max(best, Double(iterations) / elapsed)
    }
    return best
}

/// Monotonic time in seconds.
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Keeps the optimizer from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func format(_ rate: Double) -> String {
    rate >= 1e6 ? String(format2: rate / 1e6) + " M" : String(format2: rate / 1e3) + " k"
}

func nanoseconds(_ rate: Double) -> String {
    String(format2: 1e9 / rate)
}

extension String {
    /// Two decimals without Foundation.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
