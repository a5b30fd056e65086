// Codec throughput benchmark.
// Run: swift run -c release CiaoCodecBenchmark [SECONDS-PER-CASE] [CASE-NAME-FILTER]
import CiaoWire

let arguments = CommandLine.arguments.dropFirst()
let secondsPerCase = arguments.first.flatMap(Double.init) ?? 1.0
let filter = arguments.dropFirst().first

print("Ciao codec benchmark: one core, \(secondsPerCase) s per case, best of 3 runs")
print("")
print("| case | bytes | decode/s | ns/decode | encode/s | ns/encode |")
print("|---|---:|---:|---:|---:|---:|")
for benchmarkCase in BenchmarkCase.all where filter.map(benchmarkCase.name.contains) ?? true {
    let bytes = try benchmarkCase.bytes ?? benchmarkCase.message.encoded()
    let decodeRate = measure(seconds: secondsPerCase) { blackHole(try! Message(decoding: bytes)) }
    // Packets our encoder would not produce are only decoded.
    let encodeRate = benchmarkCase.bytes == nil
        ? measure(seconds: secondsPerCase) { blackHole(try! benchmarkCase.message.encoded()) } : nil
    print("| \(benchmarkCase.name) | \(bytes.count) | \(format(decodeRate)) | \(nanoseconds(decodeRate)) | "
        + "\(encodeRate.map(format) ?? "–") | \(encodeRate.map(nanoseconds) ?? "–") |")
}
