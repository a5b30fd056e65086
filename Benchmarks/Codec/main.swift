// Codec throughput benchmark.
// Run: swift run -c release CiaoCodecBenchmark [SECONDS-PER-CASE] [CASE-NAME-FILTER] [--dump DIR]
//
// With `--dump DIR`, writes each selected case's packet to DIR/<slug>.bin plus DIR/cases.tsv (see
// `dump(_:to:)` in Dump.swift), prints the paths and exits WITHOUT benchmarking, so that a peer's
// codec can be measured on the very same bytes (Benchmarks/codec-benchmark.sh and
// Benchmarks/Codec/peer_codec_benchmark.py compare against python-zeroconf).
import CiaoWire

let options = Options(Array(CommandLine.arguments.dropFirst()))
let cases = BenchmarkCase.all.filter { options.filter.map($0.name.contains) ?? true }

if let directory = options.dumpDirectory { dumpAndExit(cases, to: directory) }

print("Ciao codec benchmark: one core, \(options.secondsPerCase) s per case, best of 3 runs")
print("")
print("| case | bytes | decode/s | ns/decode | encode/s | ns/encode |")
print("|---|---:|---:|---:|---:|---:|")
for benchmarkCase in cases {
    let bytes = try benchmarkCase.packet()
    let decodeRate = measure(seconds: options.secondsPerCase) { blackHole(try! Message(decoding: bytes)) }
    let encodeRate =
        benchmarkCase.encodes
        ? measure(seconds: options.secondsPerCase) { blackHole(try! benchmarkCase.message.encoded()) } : nil
    print(
        "| \(benchmarkCase.name) | \(bytes.count) | \(format(decodeRate)) | \(nanoseconds(decodeRate)) | "
            + "\(encodeRate.map(format) ?? "–") | \(encodeRate.map(nanoseconds) ?? "–") |")
}
