import Ciao
import Synchronization

/// `-v` / `--verbose`: every diagnostic of the runtimes (multicast and unicast DNS) on standard
/// error as it happens, one line each led by the time of day, and the mDNS runtime's counters
/// when the command ends.
enum Verbose {
    private static let isOn = Atomic<Bool>(false)

    static func start() {
        isOn.store(true, ordering: .relaxed)
        CiaoDiagnostics.setHandler(level: .debug) { diagnostic in
            CommandLineTool.printError("\(TimeOfDay.now()) \(diagnostic)")
        }
    }

    /// With `-v`, the runtime's counters, one line per interface and family and per socket.
    static func printStatistics() async {
        guard isOn.load(ordering: .relaxed) else { return }
        let statistics = await CiaoDiagnostics.statistics()
        for counters in statistics.interfaces {
            let family = counters.family == .ipv4 ? "IPv4" : "IPv6"
            CommandLineTool.printError(
                "statistics \(counters.interface) \(family): received \(counters.packetsReceived) packets "
                    + "(\(counters.bytesReceived) bytes; \(counters.ownPacketsIgnored) our own looped back, "
                    + "\(counters.undecodable) undecodable, \(counters.offLink) off-link, \(counters.otherDropped) other dropped), "
                    + "sent \(counters.packetsSent) (\(counters.bytesSent) bytes), \(counters.sendFailures) send failures"
            )
        }
        for socket in statistics.sockets {
            let family = socket.family == .ipv4 ? "IPv4" : "IPv6"
            CommandLineTool.printError(
                "statistics \(family) socket: \(socket.kernelDrops) dropped by the kernel, \(socket.truncated) too long, "
                    + "\(socket.receiveFailures) failed reads")
        }
    }
}
