import Dispatch
import Glibc

/// Turns SIGINT and SIGTERM into an `AsyncStream` so a task can await them and shut down in
/// order (the default action would kill the process before Ciao could send its goodbyes).
///
/// Keep the watcher alive for as long as the signals should be caught: it owns the Dispatch
/// sources.
final class SignalWatcher {
    /// The signal numbers, as they arrive.
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
        let (signals, sink) = AsyncStream<Int32>.makeStream()
        self.signals = signals
        let queue = DispatchQueue(label: "chat.signals")
        sources = numbers.map { number in
            signal(number, SIG_IGN)  // delivered to the source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { sink.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
