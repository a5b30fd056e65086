import Foundation
import Synchronization

/// Where a `NetService` or `NetServiceBrowser` calls its delegate: on the run loop it was
/// scheduled in, the main one by default, as Foundation does on Apple platforms. Callbacks run
/// in the order they were delivered.
///
/// For the main run loop the callback goes through the main dispatch queue, which both
/// `RunLoop.main.run()` and `dispatchMain()` drain. Another run loop gets it from a timer due at
/// once: on Linux, `RunLoop.perform` does not wake a run loop that sleeps, a timer does.
struct RunLoopDelivery: @unchecked Sendable {
    // RunLoop is not Sendable; it is only used here to add a timer, which CFRunLoop allows from any thread.
    var runLoop: RunLoop
    var modes: [RunLoop.Mode]
    /// The callbacks not yet run, oldest first; shared by the copies of this delivery.
    private let pending = PendingCallbacks()

    init(runLoop: RunLoop, modes: [RunLoop.Mode]) {
        self.runLoop = runLoop
        self.modes = modes
    }

    static let main = RunLoopDelivery(runLoop: .main, modes: [.default])

    func deliver(_ body: @escaping @Sendable () -> Void) {
        if runLoop === RunLoop.main {
            DispatchQueue.main.async(execute: body)
            return
        }
        pending.append(body)
        let timer = Timer(fire: Date(), interval: 0, repeats: false) { [pending] _ in pending.runAll() }
        for mode in modes { runLoop.add(timer, forMode: mode) }
    }
}

/// Callbacks waiting for their run loop, run in the order they came (timers due at the same
/// moment need not fire in the order they were added).
private final class PendingCallbacks: Sendable {
    private let callbacks = Mutex<[@Sendable () -> Void]>([])

    func append(_ callback: @escaping @Sendable () -> Void) {
        callbacks.withLock { $0.append(callback) }
    }

    /// Runs every callback waiting, oldest first, including those added meanwhile.
    func runAll() {
        while let next = callbacks.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { next() }
    }
}

/// A non-Sendable object handed to the run loop it belongs to. NetService objects, like
/// Foundation's, are used from the thread of the run loop they are scheduled in; the async work
/// behind them only ever touches them there, through ``RunLoopDelivery``.
struct RunLoopBound<Object: AnyObject>: @unchecked Sendable {
    let object: Object
}
