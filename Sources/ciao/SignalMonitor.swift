import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signals as an async sequence, so that a command can stop cleanly (goodbyes sent) instead of
/// dying: SIGINT and SIGTERM by default, or those given (SIGHUP, SIGWINCH).
enum SignalMonitor {
    static func interruptions(_ signals: [Int32] = [SIGINT, SIGTERM]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = SignalSources(
                sources: signals.map { number in
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                    source.setEventHandler { continuation.yield(number) }
                    source.resume()
                    return source
                })
            continuation.onTermination = { _ in sources.cancel() }
        }
    }
}

/// Dispatch sources are safe to cancel from any thread; the overlay does not say so.
private struct SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]

    func cancel() {
        for source in sources { source.cancel() }
    }
}
