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
        // The mDNS protocol as a sans-I/O state machine: bytes and time in, datagrams and events out.
        .target(name: "CiaoEngine", dependencies: ["CiaoWire"]),
        // The public API (DESIGN.md §2).
        .target(name: "Ciao", dependencies: ["CiaoWire"]),
        // The command-line tool.
        .executableTarget(name: "ciao", dependencies: ["Ciao", "CiaoWire"]),
        // Codec throughput benchmark; run with `swift run -c release CiaoCodecBenchmark`.
        .executableTarget(name: "CiaoCodecBenchmark", dependencies: ["CiaoWire"]),
        // Many-host churn run in virtual time; run with `swift run -c release CiaoSimulationBenchmark`.
        .executableTarget(name: "CiaoSimulationBenchmark", dependencies: ["CiaoEngine", "CiaoSimulation", "CiaoWire"]),
        // Test support: many engines on a simulated network in virtual time.
        .target(name: "CiaoSimulation", dependencies: ["CiaoEngine", "CiaoWire"], path: "Tests/CiaoSimulation"),
        .testTarget(name: "CiaoEngineTests", dependencies: ["CiaoEngine", "CiaoSimulation", "CiaoWire"]),
        .testTarget(name: "CiaoWireTests", dependencies: ["CiaoWire"], resources: [.copy("Captures")]),
        .testTarget(name: "CiaoTests", dependencies: ["Ciao"]),
        .testTarget(name: "CiaoCommandTests", dependencies: ["ciao", "CiaoWire"]),
    ],
    swiftLanguageModes: [.v6]
)
