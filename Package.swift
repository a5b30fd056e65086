// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Ciao",
    products: [
        .library(name: "Ciao", targets: ["Ciao"]),
        .library(name: "CiaoWire", targets: ["CiaoWire"]),
        .library(name: "CiaoNetService", targets: ["CiaoNetService"]),
        .executable(name: "ciao", targets: ["ciao"]),
    ],
    targets: [
        // DNS wire format: names, records, messages, encoder and decoder. No I/O.
        .target(name: "CiaoWire"),
        // What the engine, the transport and the runtime share: interfaces, addresses, datagrams, time.
        .target(name: "CiaoNetwork", dependencies: ["CiaoWire"]),
        // The mDNS protocol as a sans-I/O state machine: bytes and time in, datagrams and events out.
        .target(name: "CiaoEngine", dependencies: ["CiaoWire", "CiaoNetwork"]),
        // A unicast DNS stub resolver as a sans-I/O state machine, and resolv.conf's settings.
        .target(name: "CiaoUnicastDNS", dependencies: ["CiaoWire"]),
        // What Glibc does not import: CMSG and netlink macros as functions.
        .target(name: "CCiaoShim"),
        // POSIX I/O: mDNS multicast sockets, the interface list and the netlink change monitor.
        .target(name: "CiaoTransport", dependencies: ["CiaoNetwork", "CCiaoShim"]),
        // The public API and the runtime binding engine to transport.
        .target(name: "Ciao", dependencies: ["CiaoWire", "CiaoEngine", "CiaoTransport", "CiaoUnicastDNS"]),
        // Foundation's NetService and NetServiceBrowser for Linux, on the public API.
        .target(name: "CiaoNetService", dependencies: ["Ciao"]),
        // The command-line tool.
        .executableTarget(
            name: "ciao", dependencies: ["Ciao", "CiaoEngine", "CiaoTransport", "CiaoUnicastDNS", "CiaoWire"]),
        // Examples: a chat over TCP found with Bonjour, and a program written against NetService.
        .executableTarget(name: "Chat", dependencies: ["Ciao"], path: "Examples/Chat"),
        .executableTarget(name: "NetServiceDemo", dependencies: ["CiaoNetService"], path: "Examples/NetServiceDemo"),
        // Many engines on a simulated network in virtual time, for the tests and the benchmarks.
        .target(name: "CiaoSimulation", dependencies: ["CiaoEngine", "CiaoWire"]),
        // Benchmarks, in Benchmarks/ beside their runners and the Python of the codec, wire and soak
        // benchmarks; they depend on Sources/ only. Codec throughput: `swift run -c release
        // CiaoCodecBenchmark` (python-zeroconf's beside it: `Benchmarks/codec-benchmark.sh`).
        .executableTarget(
            name: "CiaoCodecBenchmark", dependencies: ["CiaoWire"], path: "Benchmarks/Codec",
            exclude: ["peer_codec_benchmark.py"]),
        // Many-host churn in virtual time: `swift run -c release CiaoSimulationBenchmark`.
        .executableTarget(
            name: "CiaoSimulationBenchmark", dependencies: ["CiaoEngine", "CiaoSimulation", "CiaoWire"],
            path: "Benchmarks/Simulation"),
        // What every test target builds its names, services, messages and simulated traffic with.
        .target(
            name: "CiaoTestFixtures", dependencies: ["CiaoEngine", "CiaoSimulation", "CiaoWire"],
            path: "Tests/CiaoTestFixtures"),
        .testTarget(
            name: "CiaoEngineTests", dependencies: ["CiaoEngine", "CiaoSimulation", "CiaoTestFixtures", "CiaoWire"]),
        .testTarget(
            name: "CiaoWireTests", dependencies: ["CiaoEngine", "CiaoTestFixtures", "CiaoWire"],
            resources: [.copy("Captures")]),
        .testTarget(
            name: "CiaoUnicastDNSTests", dependencies: ["CiaoUnicastDNS", "CiaoEngine", "CiaoTestFixtures", "CiaoWire"]),
        .testTarget(
            name: "CiaoTests",
            dependencies: [
                "Ciao", "CiaoEngine", "CiaoSimulation", "CiaoTestFixtures", "CiaoTransport", "CiaoUnicastDNS",
                "CiaoWire",
            ]),
        // Socket tests; they run only inside the namespace Scripts/transport-tests.sh creates.
        .testTarget(name: "CiaoTransportTests", dependencies: ["CiaoTransport", "CiaoNetwork", "CiaoWire"]),
        // Drives the public API from JSON lines for the interop suite (Scripts/interop.sh).
        .executableTarget(
            name: "CiaoInteropAgent", dependencies: ["Ciao", "CiaoTransport"], path: "Tests/CiaoInteropAgent"),
        .testTarget(name: "CiaoNetServiceTests", dependencies: ["CiaoNetService", "Ciao"]),
        .testTarget(
            name: "CiaoCommandTests", dependencies: ["ciao", "CiaoTestFixtures", "CiaoUnicastDNS", "CiaoWire"]),
    ],
    swiftLanguageModes: [.v6]
)
