import Testing

@testable import Ciao

/// One sleeping task runs every timeout of the API: in deadline order, never early, never once
/// cancelled, and re-armed when an earlier deadline arrives.
@Suite struct DeadlineSchedulerTests {
    private let scheduler = DeadlineScheduler()
    private let ran = Observed<[(label: String, at: ContinuousClock.Instant)]>([])

    private func schedule(_ label: String, after delay: Duration) -> DeadlineScheduler.Token {
        let ran = self.ran
        return scheduler.schedule(after: delay) { ran.update { $0.append((label, .now)) } }
    }

    @Test func actionsRunInDeadlineOrderAndNotBefore() async throws {
        let start = ContinuousClock.now
        _ = schedule("60", after: .milliseconds(60))
        _ = schedule("20", after: .milliseconds(20))
        _ = schedule("40", after: .milliseconds(40))
        _ = schedule("20 too", after: .milliseconds(20))
        try await ran.wait("four actions", within: .seconds(30)) { $0.count == 4 }
        let runs = ran.value
        #expect(runs.map(\.label) == ["20", "20 too", "40", "60"])
        for run in runs {
            let delay = Duration.milliseconds(Int(run.label.prefix(2))!)
            #expect(run.at - start >= delay, "\(run.label) ran after \(run.at - start)")
        }
    }

    @Test func cancelledActionsNeverRun() async throws {
        let first = schedule("cancelled", after: .milliseconds(30))
        var others = (0..<999).map { schedule("cancelled \($0)", after: .milliseconds(30)) }
        _ = schedule("kept", after: .milliseconds(30))
        others.append(first)
        for token in others { scheduler.cancel(token) }
        scheduler.cancel(first)
        try await ran.wait("the kept action", within: .seconds(30)) { !$0.isEmpty }
        try await Task.sleep(for: .milliseconds(100))
        #expect(ran.value.map(\.label) == ["kept"])
    }

    /// The later deadline is an hour away and the bound ten minutes: beside the suite's heavy
    /// synchronous tests the cooperative pool can be busy for half a minute, which a tighter pair
    /// (60 s and 30 s) mistook for the scheduler waiting.
    @Test func anEarlierDeadlineIsNotKeptWaitingByALaterOne() async throws {
        let late = schedule("late", after: .seconds(3600))
        let start = ContinuousClock.now
        _ = schedule("soon", after: .milliseconds(20))
        try await ran.wait("the earlier action", within: .seconds(600)) { !$0.isEmpty }
        #expect(ran.value.map(\.label) == ["soon"])
        #expect(ContinuousClock.now - start < .seconds(600))
        scheduler.cancel(late)
    }
}
