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
}
