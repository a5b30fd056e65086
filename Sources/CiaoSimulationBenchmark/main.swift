// A large, long virtual run: many hosts publishing on one link, some browsing, with churn.
// Run: swift run -c release CiaoSimulationBenchmark [HOSTS] [VIRTUAL-MINUTES] [BROWSERS] [SEED]
// Or the responder's engine cost per query (ResponderScenario): SRV queries for one instance each,
// or a new browser's QU PTR query for all of them:
//      swift run -c release CiaoSimulationBenchmark responder [srv|browse] [SERVICES] [QUERIES]
// Or a new browser of SERVICES services over a link losing PERCENT % of datagrams, one run per
// seed 1…SEEDS (LossScenario):
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

/// Runs the responder scenario; true when every query was answered.
func runResponder(_ arguments: ArraySlice<String>) -> Bool {
    var arguments = arguments
    let named = arguments.first.flatMap(ResponderScenario.Question.init(rawValue:))
    if named != nil { arguments = arguments.dropFirst() }
    let question = named ?? .instanceSRV
    let numbers = arguments.map { Int($0) }
    let scenario = ResponderScenario(
        services: max(1, numbers.first.flatMap { $0 } ?? 1000),
        queries: numbers.dropFirst().first.flatMap { $0 } ?? question.defaultQueries, question: question)
    let result = scenario.run()
    let wall = seconds(result.wallTime)
    print("""
        responder: \(scenario.services) services, \(scenario.queries) \(question.label) queries, \(result.responses) response datagrams
        engine time: \(String(format: "%.3f", wall)) s, \(String(format: "%.2f", wall / Double(scenario.queries) * 1e6)) µs per query
        """)
    return question.answeredEvery(scenario.queries, with: result.responses)
}

/// Runs the loss scenario once per seed and prints each run and the spread over them.
func runLoss(_ arguments: ArraySlice<String>) {
    let numbers = arguments.map { Int($0) }
    let percentLost = min(max(numbers.first.flatMap { $0 } ?? 30, 0), 99)
    let scenario = LossScenario(services: max(1, numbers.dropFirst().first.flatMap { $0 } ?? 200),
                                loss: Double(percentLost) / 100)
    let seedCount = max(1, numbers.dropFirst(2).first.flatMap { $0 } ?? 30)
    print("loss: \(scenario.services) services, \(percentLost) % of datagrams lost, seeds 1–\(seedCount), \(scenario.limit) of virtual time each")
    var runs: [LossScenario.Run] = []
    for seed in 1...UInt64(seedCount) {
        let run = scenario.run(seed: seed)
        runs.append(run)
        let all = run.resolvedAfter.count == scenario.services ? run.resolvedAfter.last.map { String(format: "%.2f s", seconds($0)) } : nil
        print("seed \(seed): \(percent(run.share(of: scenario.services, within: .seconds(10)))) within 10 s, "
              + "\(percent(run.share(of: scenario.services, within: .seconds(30)))) within 30 s, "
              + "all resolved \(all.map { "after \($0)" } ?? "not within \(scenario.limit)"), \(run.datagrams) datagrams")
    }
    for limit in [Duration.seconds(10), .seconds(30)] {
        let shares = runs.map { $0.share(of: scenario.services, within: limit) }.sorted()
        print("within \(limit): median \(percent(shares[shares.count / 2])), lowest \(percent(shares[0])); "
              + "\(shares.filter { $0 == 1 }.count) of \(seedCount) seeds resolved all")
    }
    let allAfter = runs.map { $0.resolvedAfter.count == scenario.services ? seconds($0.resolvedAfter.last!) : .infinity }.sorted()
    func format(_ value: Double) -> String { value.isFinite ? String(format: "%.2f s", value) : "not within \(scenario.limit)" }
    print("all resolved: median \(format(allAfter[allAfter.count / 2])), "
          + "90th percentile \(format(allAfter[min(allAfter.count - 1, allAfter.count * 9 / 10)])), slowest \(format(allAfter.last!))")
}

/// Runs the churn scenario; true when every browser ends with the published set.
func runChurn(_ arguments: ArraySlice<String>) -> Bool {
    let numbers = arguments.map { Int($0) }
    let hostCount = numbers.first.flatMap { $0 } ?? 1000
    let minutes = numbers.dropFirst().first.flatMap { $0 } ?? 60
    let browserCount = numbers.dropFirst(2).first.flatMap { $0 } ?? 10
    let seed = UInt64(numbers.dropFirst(3).first.flatMap { $0 } ?? 1)

    let scenario = ChurnScenario(hosts: hostCount, browsers: browserCount, seed: seed)
    var result = ChurnScenario.Result()
    let wall = ContinuousClock().measure {
        var run = scenario.makeNetwork()
        result = scenario.run(&run, for: .seconds(Int64(minutes) * 60))
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print("""
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
case "loss": runLoss(arguments.dropFirst())
default: exit(runChurn(arguments) ? 0 : 1)
}
