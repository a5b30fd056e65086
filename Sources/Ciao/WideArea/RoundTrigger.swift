import Synchronization

/// Brings the next round of a polling browse or resolution forward: ``fire()`` ends the wait
/// between two rounds at once, or, fired during a round, the next wait as soon as it starts. One
/// task waits at a time. A fire within ``minimumInterval`` (a second) of the last one honoured is
/// ignored, so that a caller firing in a loop makes at most a round a second.
package final class RoundTrigger: Sendable {
    /// The task waiting, and the deadline that ends its wait unless a fire or a cancellation
    /// comes first.
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
        var timeout: DeadlineScheduler.Token
    }

    private struct State {
        /// Fired with no task waiting: the next wait ends at once.
        var fired = false
        var waiter: Waiter?
        var nextWaiterID: UInt64 = 0
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
        let waiter = state.withLock { state -> Waiter? in
            if let last = state.lastHonoured, now - last < minimumInterval { return nil }
            state.lastHonoured = now
            guard let waiter = state.waiter else {
                state.fired = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        guard let waiter else { return }
        DeadlineScheduler.shared.cancel(waiter.timeout)
        waiter.continuation.resume(returning: true)
    }

    /// Waits `duration`, less when fired meanwhile or before, and no longer once the task is
    /// cancelled; returns whether it was fired. Whichever comes first ends the wait, under the
    /// lock: a fire that comes after the deadline ends the next wait.
    package func wait(for duration: Duration) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { state -> Bool? in
                    if state.fired {
                        state.fired = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    // Scheduled under this lock: the deadline's action, which takes it, finds the
                    // waiter in place. The scheduler runs actions outside its own lock.
                    let timeout = DeadlineScheduler.shared.schedule(after: duration) { [self] in
                        endWait(id)
                    }
                    state.waiter = Waiter(id: id, continuation: continuation, timeout: timeout)
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            endWait(id)
        }
    }

    /// Ends wait `id`, not fired, if it is still waiting: its deadline came or its task was
    /// cancelled.
    private func endWait(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        guard let waiter else { return }
        DeadlineScheduler.shared.cancel(waiter.timeout)
        waiter.continuation.resume(returning: false)
    }
}
