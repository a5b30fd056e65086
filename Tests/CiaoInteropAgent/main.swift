// CiaoInteropAgent: drives Ciao's public API from JSON commands on stdin and prints JSON events
// on stdout, one per line, each with "t" (CLOCK_MONOTONIC seconds) — for Scripts/interop.sh,
// which runs it inside a network namespace beside avahi-daemon and python-zeroconf.
//
// Options: --interface NAME (repeatable), -4, -6. See Tests/Interop/README.md for the protocol.
//
// Like an application using Ciao, it imports FoundationEssentials rather than all of Foundation,
// so the memory the benchmark measures is not Foundation's.
#if canImport(Glibc)
import Glibc
#endif
import Ciao
import CiaoTransport
import Dispatch

// A test tool: it must never speak mDNS on the machine's own interfaces (see NetworkNamespace).
guard NetworkNamespace.isPrivate else {
    StandardStream.error.write("CiaoInteropAgent: run me inside a network namespace (ip netns exec ...)\n")
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
        StandardStream.error.write("usage: CiaoInteropAgent [--interface NAME]... [-4] [-6]\n")
        exit(2)
    }
}
do {
    try NetworkScope.use(
        NetworkScope(
            interfaces: interfaces.isEmpty ? nil : interfaces, families: families.isEmpty ? [.ipv4, .ipv6] : families))
} catch {
    StandardStream.error.write("\(error)\n")
    exit(2)
}

let agent = InteropAgent()
// SIGTERM quits like the quit command: goodbyes first. The handler runs on a Dispatch queue.
signal(SIGTERM, SIG_IGN)
let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
termination.setEventHandler { @Sendable [agent] in Task { await agent.quit() } }
termination.resume()

// Commands in order, each handled before the next is read. The main thread waits in read(2)
// between them; nothing else runs on it, the agent and Ciao run elsewhere.
while let line = readLine() {
    guard line.contains(where: { !$0.isWhitespace }) else { continue }
    await agent.handle(line)
}
await agent.quit()
