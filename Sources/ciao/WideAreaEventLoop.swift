import Ciao

/// The loop of a `ciao` command listening to one wide-area stream (types, domains): each event to
/// `handle` until SIGINT or SIGTERM, or with `terminate` until the first round has settled.
enum WideAreaEventLoop {
    /// Returns 1 when a round failed before the first one settled, else 0; `what` names the
    /// stream in the error printed for a failed round.
    static func run(
        _ events: AsyncStream<WideAreaBrowse.Event>, terminate: Bool, what: String,
        handle: (WideAreaBrowse.Event) -> Void
    ) async -> Int32 {
        let (inputs, feed) = AsyncStream<WideAreaBrowse.Event?>.makeStream()
        let tasks = [
            Task { for await event in events { feed.yield(event) } },
            Task {
                for await _ in SignalMonitor.interruptions() {
                    feed.yield(nil)
                    return
                }
            },
        ]
        defer { for task in tasks { task.cancel() } }
        var status: Int32 = 0
        var settled = false
        for await input in inputs {
            guard let event = input else { break }
            switch event {
            case .failed(let error):
                CommandLineTool.printError("\(what): \(error)")
                if !settled { status = 1 }
            case .settled: settled = true
            default: handle(event)
            }
            if terminate && settled { break }
        }
        return status
    }
}
