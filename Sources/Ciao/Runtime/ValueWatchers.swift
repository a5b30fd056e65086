import Synchronization

/// A value set in one place and watched from others: each watcher's stream yields the value when
/// it starts watching and again at each change, the latest only if it lags, until it stops
/// iterating.
final class ValueWatchers<Value: Equatable & Sendable>: Sendable {
    private struct State {
        var value: Value
        var watchers: [UInt64: AsyncStream<Value>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now.
    var value: Value { state.withLock { $0.value } }

    /// How many streams watch it now: the tests see watchers let go.
    var watcherCount: Int { state.withLock { $0.watchers.count } }

    /// Sets the value; watchers hear of it when it differs from the last. Returns whether it did.
    @discardableResult
    func set(_ value: Value) -> Bool {
        state.withLock { state in
            guard value != state.value else { return false }
            state.value = value
            for watcher in state.watchers.values { watcher.yield(value) }
            return true
        }
    }

    /// The value now, then each change.
    func watch() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = continuation
            continuation.yield(state.value)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}
