#if canImport(Glibc)
import Glibc
#endif

/// A detached POSIX thread of its own, outside the Swift concurrency pool, for a runtime loop
/// that blocks in poll(2).
enum DetachedThread {
    /// Runs `body` on a new detached thread; `what` names it in the error.
    static func start(_ what: String, _ body: @escaping @Sendable () -> Never) throws(CiaoError) {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw .network("cannot start the \(what) thread: \(String(cString: strerror(result)))")
        }
        pthread_detach(thread)
    }
}

/// A thread's body, passed through pthread_create's context pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Never

    init(_ body: @escaping @Sendable () -> Never) {
        self.body = body
    }
}
