import Synchronization

/// Brings a polling browse's next round forward: ``fire()`` ends the wait between two rounds at
/// once, or, fired during a round, the next wait as soon as it starts. One task waits at a time.
/// A fire within ``minimumInterval`` (a second) of the last one honoured is ignored, so that a
/// caller firing in a loop makes at most a round a second.
package final class RoundTrigger: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Bool, Never>?
        var lastHonoured: ContinuousClock.Instant?
    }

    /// How long after a fire honoured the next is ignored.
    package let minimumInterval: Duration

    private let state = Mutex(State())

    package init(minimumInterval: Duration = .seconds(1)) {
        self.minimumInterval = minimumInterval
    }

    /// Ends the current wait, or the next one; ignored within ``minimumInterval`` of the last
    /// fire honoured.
    package func fire() {
        let now = ContinuousClock.now
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if let last = state.lastHonoured, now - last < minimumInterval { return nil }
            state.lastHonoured = now
            guard let waiter = state.waiter else {
                state.fired = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits `duration`, less when fired meanwhile or before, and no longer once the task is
    /// cancelled; returns whether it was fired.
    package func wait(for duration: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(for: duration)
                return false
            }
            group.addTask { await self.waitUntilFired() }
            var fired = await group.next() ?? false
            group.cancelAll()
            // A fire that came as the sleep ended is not lost.
            for await other in group { fired = fired || other }
            return fired
        }
    }

    /// Returns true once fired (at once if fired since the last wait), false once cancelled.
    private func waitUntilFired() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { state -> Bool? in
                    if state.fired {
                        state.fired = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiter = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
