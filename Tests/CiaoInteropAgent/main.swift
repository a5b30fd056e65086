// CiaoInteropAgent: drives Ciao's public API from JSON commands on stdin and prints JSON events
// on stdout, one per line, each with "t" (CLOCK_MONOTONIC seconds) — for Scripts/interop.sh,
// which runs it inside a network namespace beside avahi-daemon and python-zeroconf.
//
// Options: --interface NAME (repeatable), -4, -6. See Tests/Interop/README.md for the protocol.
import Ciao
import CiaoTransport
import Dispatch
import Foundation

// A test tool: it must never speak mDNS on the machine's own interfaces (DESIGN.md §6).
guard NetworkNamespace.isPrivate else {
    FileHandle.standardError.write(Data("CiaoInteropAgent: run me inside a network namespace (ip netns exec ...)\n".utf8))
    exit(2)
}

var interfaces: Set<String> = []
var families: Set<NetworkScope.AddressFamily> = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--interface":
        guard let name = arguments.popFirst() else { fatalError("--interface needs a name") }
        interfaces.insert(name)
    case "-4": families.insert(.ipv4)
    case "-6": families.insert(.ipv6)
    default:
        FileHandle.standardError.write(Data("usage: CiaoInteropAgent [--interface NAME]... [-4] [-6]\n".utf8))
        exit(2)
    }
}
do {
    try NetworkScope.use(
        NetworkScope(interfaces: interfaces.isEmpty ? nil : interfaces, families: families.isEmpty ? [.ipv4, .ipv6] : families))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

let agent = InteropAgent()
let lines = AsyncStream<String> { continuation in
    Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }
}
// SIGTERM quits like the quit command: goodbyes first. The handler runs on a Dispatch queue.
signal(SIGTERM, SIG_IGN)
let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
termination.setEventHandler { @Sendable [agent] in Task { await agent.quit() } }
termination.resume()

for await line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
    await agent.handle(line)
}
await agent.quit()
