#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each case's packet to `directory/<slug>.bin`, and `directory/cases.tsv` with one line
/// per case, `slug TAB decode|decode+encode TAB name`, in benchmark order, so that a peer's
/// benchmark can decode (and re-encode) the very same bytes and label its rows the same way.
/// Creates `directory` if it does not exist.
func dump(_ cases: [BenchmarkCase], to directory: String) throws {
    if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw DumpError(path: directory, errno: errno) }
    var manifest = ""
    for benchmarkCase in cases {
        let path = directory + "/" + benchmarkCase.slug + ".bin"
        try write(benchmarkCase.packet(), to: path)
        print(path)
        manifest +=
            "\(benchmarkCase.slug)\t\(benchmarkCase.encodes ? "decode+encode" : "decode")\t\(benchmarkCase.name)\n"
    }
    try write(Array(manifest.utf8), to: directory + "/cases.tsv")
}

/// `dump(_:to:)`, then exits: status 0, or 1 after printing the error to standard error.
func dumpAndExit(_ cases: [BenchmarkCase], to directory: String) -> Never {
    do {
        try dump(cases, to: directory)
    } catch {
        printError("CiaoCodecBenchmark: \(error)\n")
        exit(1)
    }
    exit(0)
}

struct DumpError: Error, CustomStringConvertible {
    var path: String
    var errno: Int32
    var description: String { "\(path): \(String(cString: strerror(errno)))" }
}

private func write(_ bytes: [UInt8], to path: String) throws {
    guard let file = fopen(path, "wb") else { throw DumpError(path: path, errno: errno) }
    let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    if fclose(file) != 0 || written != bytes.count { throw DumpError(path: path, errno: errno) }
}
