// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Ciao",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Ciao", targets: ["Ciao"]),
        .library(name: "CiaoWire", targets: ["CiaoWire"]),
        .executable(name: "ciao", targets: ["ciao"]),
    ],
    targets: [
        // DNS wire format: names, records, messages, encoder and decoder. No I/O.
        .target(name: "CiaoWire"),
        // The public API (DESIGN.md §2).
        .target(name: "Ciao", dependencies: ["CiaoWire"]),
        // The command-line tool.
        .executableTarget(name: "ciao", dependencies: ["Ciao", "CiaoWire"]),
        // Codec throughput benchmark; run with `swift run -c release CiaoCodecBenchmark`.
        .executableTarget(name: "CiaoCodecBenchmark", dependencies: ["CiaoWire"]),
        .testTarget(name: "CiaoWireTests", dependencies: ["CiaoWire"], resources: [.copy("Captures")]),
        .testTarget(name: "CiaoTests", dependencies: ["Ciao"]),
        .testTarget(name: "CiaoCommandTests", dependencies: ["ciao", "CiaoWire"]),
    ],
    swiftLanguageModes: [.v6]
)
