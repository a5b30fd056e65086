import Testing

@testable import Ciao

@Suite struct ValueWatchersTests {
    /// A watcher hears the value when it starts, then each change.
    @Test func aWatcherHearsTheValueThenEachChange() async {
        let watchers = ValueWatchers(0)
        var heard = watchers.watch().makeAsyncIterator()
        #expect(await heard.next() == 0)
        watchers.set(1)
        #expect(await heard.next() == 1)
        watchers.set(1)
        watchers.set(2)
        #expect(await heard.next() == 2)
        #expect(watchers.value == 2)
    }

    /// Setting the value it has is no change, and tells no watcher.
    @Test func theSameValueAgainIsNoChange() async {
        let watchers = ValueWatchers(0)
        var heard = watchers.watch().makeAsyncIterator()
        #expect(await heard.next() == 0)
        #expect(!watchers.set(0))
        #expect(watchers.set(1))
        #expect(await heard.next() == 1)
    }

    /// One that lags hears only the latest value; one that starts late hears the value then.
    @Test func aLaggingWatcherHearsTheLatestAndALateOneTheValueNow() async {
        let watchers = ValueWatchers("a")
        var early = watchers.watch().makeAsyncIterator()
        for value in ["b", "c", "d"] { watchers.set(value) }
        #expect(await early.next() == "d")
        var late = watchers.watch().makeAsyncIterator()
        #expect(await late.next() == "d")
        watchers.set("e")
        #expect(await early.next() == "e")
        #expect(await late.next() == "e")
    }

    /// A watcher whose task is cancelled is let go.
    @Test func aCancelledWatcherIsLetGo() async {
        let watchers = ValueWatchers(0)
        let started = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var count = 0
            for await _ in watchers.watch() {
                count += 1
                started.continuation.yield()
            }
            return count
        }
        var signals = started.stream.makeAsyncIterator()
        await signals.next()
        task.cancel()
        #expect(await task.value == 1)
        #expect(watchers.watcherCount == 0)
    }
}
