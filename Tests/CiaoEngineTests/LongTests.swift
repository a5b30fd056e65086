#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Whether the long tests run: those of many seconds each (a 600,000-record flood, a thousand
/// seeds, ten virtual minutes of 200 services). Plain `swift test` skips them; `.ci/run` runs them
/// with `CIAO_LONG_TESTS=1 swift test --filter CiaoEngineTests`.
let runsLongTests = getenv("CIAO_LONG_TESTS") != nil

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `CIAO_LONG_TESTS` is set.
    static var long: Self { .enabled(if: runsLongTests, "a long test: set CIAO_LONG_TESTS=1 to run it") }
}
