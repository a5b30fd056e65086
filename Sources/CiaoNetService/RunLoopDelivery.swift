import Foundation

/// Where a `NetService` or `NetServiceBrowser` calls its delegate: on the run loop it was
/// scheduled in, the main one by default, as Foundation does on Apple platforms.
///
/// For the main run loop the callback goes through the main dispatch queue, which both
/// `RunLoop.main.run()` and `dispatchMain()` drain; another run loop gets it with `perform`.
struct RunLoopDelivery: @unchecked Sendable {
    // RunLoop is not Sendable; it is only used here to hand it a block, which it allows from any thread.
    var runLoop: RunLoop
    var modes: [RunLoop.Mode]

    static let main = RunLoopDelivery(runLoop: .main, modes: [.default])

    func deliver(_ body: @escaping @Sendable () -> Void) {
        if runLoop === RunLoop.main {
            DispatchQueue.main.async(execute: body)
        } else {
            runLoop.perform(inModes: modes, block: body)
        }
    }
}

/// A non-Sendable object handed to the run loop it belongs to. NetService objects, like
/// Foundation's, are used from the thread of the run loop they are scheduled in; the async work
/// behind them only ever touches them there, through ``RunLoopDelivery``.
struct RunLoopBound<Object: AnyObject>: @unchecked Sendable {
    let object: Object
}
