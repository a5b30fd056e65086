/// When a listing has settled, for `--terminate` (like `avahi-browse -t`): nothing new for one
/// second, and at least 1.5 s since the start so that the first queries' answers are in.
struct QuietPeriod {
    static let settleTime: Duration = .seconds(1)
    static let minimumRun: Duration = .milliseconds(1500)

    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastNews: ContinuousClock.Instant

    init() {
        start = clock.now
        lastNews = start
    }

    mutating func noteNews() {
        lastNews = clock.now
    }

    var hasSettled: Bool {
        let now = clock.now
        return now - start >= Self.minimumRun && now - lastNews >= Self.settleTime
    }

    /// Ticks every 100 ms, for a loop that checks ``hasSettled``.
    static func ticks() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let task = Task {
                while (try? await Task.sleep(for: .milliseconds(100))) != nil { continuation.yield() }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
