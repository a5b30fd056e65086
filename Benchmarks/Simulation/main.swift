// A large, long virtual run: many hosts publishing on one link, some browsing, with churn.
// Run: swift run -c release CiaoSimulationBenchmark [HOSTS] [VIRTUAL-MINUTES] [BROWSERS] [SEED]
// Or the responder's engine cost per query (ResponderScenario): SRV queries for one instance each,
// or a new browser's QU PTR query for all of them:
//      swift run -c release CiaoSimulationBenchmark responder [srv|browse] [SERVICES] [QUERIES]
// Or a new browser of SERVICES services over a link losing PERCENT % of datagrams, one run per
// seed 1…SEEDS (LossScenario); fails if a seed does not resolve all within 30 s:
//      swift run -c release CiaoSimulationBenchmark loss [PERCENT] [SERVICES] [SEEDS]
import CiaoEngine
import CiaoSimulation
import CiaoWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }

/// The number at `index` among the command's numeric arguments, or `value` if it has none there.
func number(_ numbers: [Int?], at index: Int, default value: Int) -> Int {
    numbers.dropFirst(index).first.flatMap { $0 } ?? value
}

/// Runs the responder scenario; true when every query was answered.
func runResponder(_ arguments: ArraySlice<String>) -> Bool {
    var arguments = arguments
    let named = arguments.first.flatMap(ResponderScenario.Question.init(rawValue:))
    if named != nil { arguments = arguments.dropFirst() }
    let question = named ?? .instanceSRV
    let numbers = arguments.map { Int($0) }
    let scenario = ResponderScenario(
        services: max(1, number(numbers, at: 0, default: 1000)),
        queries: number(numbers, at: 1, default: question.defaultQueries), question: question)
    let result = scenario.run()
    let wall = seconds(result.wallTime)
    print(
        """
        responder: \(scenario.services) services, \(scenario.queries) \(question.label) queries, \(result.responses) response datagrams
        engine time: \(String(format: "%.3f", wall)) s, \(String(format: "%.2f", wall / Double(scenario.queries) * 1e6)) µs per query
        """)
    return question.answeredEvery(scenario.queries, with: result.responses)
}

/// The value at `percentile` of `sorted` by nearest rank: the smallest value at least that
/// share of them do not exceed.
func nearestRank<Value>(_ percentile: Int, of sorted: [Value]) -> Value {
    sorted[max(0, (percentile * sorted.count + 99) / 100 - 1)]
}

/// Runs the loss scenario once per seed and prints each run and the spread over them; true when
/// every seed resolved every service within the limit. Nil for arguments out of range.
func runLoss(_ arguments: ArraySlice<String>) -> Bool? {
    let numbers = arguments.map { Int($0) }
    guard numbers.allSatisfy({ $0 != nil }) else { return nil }
    let percentLost = number(numbers, at: 0, default: 30)
    let services = number(numbers, at: 1, default: 200)
    let seedCount = number(numbers, at: 2, default: 30)
    guard (0...100).contains(percentLost), services >= 1, seedCount >= 1 else { return nil }
    let scenario = LossScenario(services: services, loss: Double(percentLost) / 100)
    let limit = LossScenario.limit
    /// A time in seconds, or infinity for services not all resolved.
    func format(_ value: Double) -> String { value.isFinite ? String(format: "%.2f s", value) : "not within \(limit)" }
    print(
        "loss: \(services) services, \(percentLost) % of datagrams lost, seeds 1–\(seedCount), each watched until all are resolved or \(limit) of virtual time"
    )
    var runs: [LossScenario.Run] = []
    for seed in 1...UInt64(seedCount) {
        let run = scenario.run(seed: seed)
        runs.append(run)
        print(
            "seed \(seed): \(percent(run.share(within: .seconds(10)))) within 10 s, "
                + "\(percent(run.share(within: limit))) within \(limit), "
                + "all resolved: \(format(run.allResolvedAfter.map(seconds) ?? .infinity)), \(run.datagrams) datagrams")
    }
    for window in [Duration.seconds(10), limit] {
        let shares = runs.map { $0.share(within: window) }.sorted()
        print(
            "within \(window): median \(percent(nearestRank(50, of: shares))), lowest \(percent(shares[0])); "
                + "\(shares.filter { $0 == 1 }.count) of \(seedCount) seeds resolved all")
    }
    let allAfter = runs.map { $0.allResolvedAfter.map(seconds) ?? .infinity }.sorted()
    print(
        "all resolved (nearest rank): median \(format(nearestRank(50, of: allAfter))), "
            + "90th percentile \(format(nearestRank(90, of: allAfter))), slowest \(format(allAfter.last!))")
    return allAfter.last!.isFinite
}

/// Runs the churn scenario; true when every browser ends with the published set.
func runChurn(_ arguments: ArraySlice<String>) -> Bool {
    let numbers = arguments.map { Int($0) }
    let hostCount = number(numbers, at: 0, default: 1000)
    let minutes = number(numbers, at: 1, default: 60)
    let browserCount = number(numbers, at: 2, default: 10)
    let seed = UInt64(number(numbers, at: 3, default: 1))

    let scenario = ChurnScenario(hosts: hostCount, browsers: browserCount, seed: seed)
    var result = ChurnScenario.Result()
    let wall = ContinuousClock().measure {
        var run = scenario.makeNetwork()
        result = scenario.run(&run, for: .seconds(Int64(minutes) * 60))
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print(
        """
        hosts: \(hostCount) (\(browserCount) browsing), virtual time: \(minutes) min, seed \(seed)
        churn: \(result.churnEvents) deregistrations/re-registrations
        datagrams sent: \(result.datagrams), delivered copies: about \(result.datagrams * (hostCount - 1))
        engine events: \(result.events)
        browsers agree with the published set at the end: \(result.browsersConverged) of \(browserCount)
        wall time: \(String(format: "%.1f", seconds(wall))) s, peak resident memory: \(usage.ru_maxrss / 1024) MiB
        """)
    return result.browsersConverged == browserCount
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "responder": exit(runResponder(arguments.dropFirst()) ? 0 : 1)
case "loss":
    guard let allResolved = runLoss(arguments.dropFirst()) else {
        FileHandle.standardError.write(
            Data("usage: CiaoSimulationBenchmark loss [PERCENT 0–100] [SERVICES ≥ 1] [SEEDS ≥ 1]\n".utf8))
        exit(2)
    }
    exit(allResolved ? 0 : 1)
default: exit(runChurn(arguments) ? 0 : 1)
}
