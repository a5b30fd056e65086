// A large, long virtual run: many hosts publishing on one link, some browsing, with churn.
// Run: swift run -c release CiaoSimulationBenchmark [HOSTS] [VIRTUAL-MINUTES] [BROWSERS] [SEED]
import CiaoEngine
import CiaoSimulation
import CiaoWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
let hostCount = arguments.first.flatMap { $0 } ?? 1000
let minutes = arguments.dropFirst().first.flatMap { $0 } ?? 60
let browserCount = arguments.dropFirst(2).first.flatMap { $0 } ?? 10
let seed = UInt64(arguments.dropFirst(3).first.flatMap { $0 } ?? 1)

let start = monotonicSeconds()
let scenario = ChurnScenario(hosts: hostCount, browsers: browserCount, seed: seed)
var run = scenario.makeNetwork()
let result = scenario.run(&run, for: .seconds(Int64(minutes) * 60))
let wall = monotonicSeconds() - start

var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("""
    hosts: \(hostCount) (\(browserCount) browsing), virtual time: \(minutes) min, seed \(seed)
    churn: \(result.churnEvents) deregistrations/re-registrations
    datagrams sent: \(result.datagrams), delivered copies: about \(result.datagrams * (hostCount - 1))
    engine events: \(result.events)
    browsers agree with the published set at the end: \(result.browsersConverged) of \(browserCount)
    wall time: \(String(format1: wall)) s, peak resident memory: \(usage.ru_maxrss / 1024) MiB
    """)
if result.browsersConverged != browserCount { exit(1) }

func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
