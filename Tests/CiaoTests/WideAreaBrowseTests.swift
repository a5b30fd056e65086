import Ciao
import Testing

/// When a wide-area browse asks again: 80 % of the TTL, 10 s to an hour, plus up to 10 %.
@Suite struct WideAreaBrowseTests {
    @Test(arguments: [
        (UInt32(0), 10.0), (UInt32(5), 10.0), (UInt32(100), 80.0), (UInt32(120), 96.0), (UInt32(4500), 3600.0),
        (UInt32(604_800), 3600.0),
    ])
    func theNextRoundComesAtEightyPercentOfTheTTLWithinBounds(ttl: UInt32, base: Double) {
        for _ in 0..<50 {
            let wait = WideAreaBrowse.wait(forTTL: ttl)
            #expect(wait >= .seconds(base) && wait <= .seconds(base * 1.1))
        }
    }

    /// `ciao resolve --timeout 3` against a server that never answers took the queries' 10 s: the
    /// timeout must not wait for work that ignores cancellation. Here the work ends only once
    /// `first` has returned, so a `first` that waited for it would never return.
    @Test(.timeLimit(.minutes(1))) func theTimeoutDoesNotWaitForWorkThatIgnoresCancellation() async {
        let (gate, open) = AsyncStream<Never>.makeStream()
        let result = await WideAreaBrowse.first(
            of: {
                // a detached wait is not cancelled with its awaiting task, as a pending query is not
                await Task.detached { for await _ in gate {} }.value
                return "work"
            }, orAfter: .milliseconds(100), "late")
        open.finish()
        #expect(result == "late")
    }

    @Test func workThatEndsInTimeWins() async {
        let result = await WideAreaBrowse.first(of: { "work" }, orAfter: .seconds(10), "late")
        #expect(result == "work")
    }

    /// A trigger ends a wait, whether fired during the wait or before it (once: the wait after
    /// that one lasts its time and says it was not fired); a fire within a second of the last one
    /// honoured is ignored; a cancelled wait ends too, not fired. (A wait that was not fired
    /// returns false: the results say which ended it, without timing anything.)
    @Test func aTriggerBringsTheNextRoundForward() async {
        let trigger = RoundTrigger(minimumInterval: .zero)
        let waiting = Task { await trigger.wait(for: .seconds(5)) }
        try? await Task.sleep(for: .milliseconds(50))
        trigger.fire()
        #expect(await waiting.value)
        trigger.fire()
        #expect(await trigger.wait(for: .seconds(5)))
        #expect(await !trigger.wait(for: .milliseconds(200)))
        let limited = RoundTrigger(minimumInterval: .seconds(3600))
        limited.fire()
        #expect(await limited.wait(for: .seconds(5)))
        limited.fire()
        #expect(await !limited.wait(for: .milliseconds(200)), "a second fire within the interval")
        let cancelled = Task { await trigger.wait(for: .seconds(3600)) }
        cancelled.cancel()
        #expect(await !cancelled.value)
    }
}
