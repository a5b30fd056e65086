import Synchronization

/// Runs actions at deadlines with one sleeping task for all of them: the API's timers (a start's
/// timeout, a lookup's, a wide-area automatic resolution's) are many and mostly cancelled, and a
/// task per timer would hold a suspended task, about 2 KiB, for each while it waits.
///
/// Actions run on a task of the scheduler's, outside its lock, at or after their deadline, in
/// deadline order. A cancelled action never runs.
final class DeadlineScheduler: Sendable {
    static let shared = DeadlineScheduler()

    /// Names a scheduled action, to cancel it.
    struct Token: Hashable, Sendable {
        fileprivate let rawValue: UInt64
    }

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var token: Token
    }

    private struct State {
        /// Deadlines in order; entries whose action was cancelled stay until they reach the front.
        var entries: [Entry] = []
        var actions: [Token: @Sendable () -> Void] = [:]
        var nextToken: UInt64 = 0
        /// The task sleeping until `armedFor`, the first deadline of an action not cancelled.
        var timer: Task<Void, Never>?
        var armedFor: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// Runs `action` once `delay` has passed, unless cancelled first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = ContinuousClock.now + delay
        return state.withLock { state in
            let token = Token(rawValue: state.nextToken)
            state.nextToken += 1
            state.actions[token] = action
            // After every entry with the same or an earlier deadline: equal deadlines run in order.
            var low = 0, high = state.entries.count
            while low < high {
                let middle = (low + high) / 2
                if state.entries[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
            }
            state.entries.insert(Entry(deadline: deadline, token: token), at: low)
            if state.armedFor.map({ deadline < $0 }) ?? true { arm(&state) }
            return token
        }
    }

    /// Forgets the action of `token`; it will not run. Cancelling twice, after it ran, or nil (no
    /// timeout was scheduled) does nothing.
    func cancel(_ token: Token?) {
        guard let token else { return }
        state.withLock { state in _ = state.actions.removeValue(forKey: token) }
    }

    /// Drops the cancelled entries at the front, then sleeps until the first deadline left.
    private func arm(_ state: inout State) {
        let actions = state.actions
        state.entries.removeFirst(state.entries.prefix { actions[$0.token] == nil }.count)
        state.timer?.cancel()
        state.timer = nil
        state.armedFor = state.entries.first?.deadline
        guard let deadline = state.armedFor else { return }
        state.timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            self?.runDueActions()
        }
    }

    private func runDueActions() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let count = state.entries.prefix { $0.deadline <= now }.count
            let tokens = state.entries.prefix(count).map(\.token)
            state.entries.removeFirst(count)
            let actions = tokens.compactMap { state.actions.removeValue(forKey: $0) }
            // This task is ending: arming must not cancel it.
            state.timer = nil
            arm(&state)
            return actions
        }
        for action in due { action() }
    }
}
