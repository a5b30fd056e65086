// A large, long virtual run: many hosts publishing on one link, some browsing, with churn.
// Run: swift run -c release CiaoSimulationBenchmark [HOSTS] [VIRTUAL-MINUTES] [BROWSERS] [SEED]
// Or the responder's engine cost per query (ResponderScenario): SRV queries for one instance each,
// or a new browser's QU PTR query for all of them:
//      swift run -c release CiaoSimulationBenchmark responder [srv|browse] [SERVICES] [QUERIES]
import CiaoEngine
import CiaoSimulation
import CiaoWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

if CommandLine.arguments.dropFirst().first == "responder" {
    var arguments = CommandLine.arguments.dropFirst(2)
    let named = arguments.first.flatMap(ResponderScenario.Question.init(rawValue:))
    if named != nil { arguments = arguments.dropFirst() }
    let question = named ?? .instanceSRV
    let numbers = arguments.map { Int($0) }
    let scenario = ResponderScenario(
        services: max(1, numbers.first.flatMap { $0 } ?? 1000),
        queries: numbers.dropFirst().first.flatMap { $0 } ?? question.defaultQueries, question: question)
    let result = scenario.run()
    let seconds = Double(result.wallTime.components.seconds) + Double(result.wallTime.components.attoseconds) / 1e18
    print("""
        responder: \(scenario.services) services, \(scenario.queries) \(question.label) queries, \(result.responses) response datagrams
        engine time: \(String(format: "%.3f", seconds)) s, \(String(format: "%.2f", seconds / Double(scenario.queries) * 1e6)) µs per query
        """)
    exit(question.answeredEvery(scenario.queries, with: result.responses) ? 0 : 1)
}

let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
let hostCount = arguments.first.flatMap { $0 } ?? 1000
let minutes = arguments.dropFirst().first.flatMap { $0 } ?? 60
let browserCount = arguments.dropFirst(2).first.flatMap { $0 } ?? 10
let seed = UInt64(arguments.dropFirst(3).first.flatMap { $0 } ?? 1)

let scenario = ChurnScenario(hosts: hostCount, browsers: browserCount, seed: seed)
var result = ChurnScenario.Result()
let wall = ContinuousClock().measure {
    var run = scenario.makeNetwork()
    result = scenario.run(&run, for: .seconds(Int64(minutes) * 60))
}
let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18

var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("""
    hosts: \(hostCount) (\(browserCount) browsing), virtual time: \(minutes) min, seed \(seed)
    churn: \(result.churnEvents) deregistrations/re-registrations
    datagrams sent: \(result.datagrams), delivered copies: about \(result.datagrams * (hostCount - 1))
    engine events: \(result.events)
    browsers agree with the published set at the end: \(result.browsersConverged) of \(browserCount)
    wall time: \(String(format: "%.1f", wallSeconds)) s, peak resident memory: \(usage.ru_maxrss / 1024) MiB
    """)
if result.browsersConverged != browserCount { exit(1) }

