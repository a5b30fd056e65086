import CiaoUnicastDNS
import Synchronization

/// The unicast DNS servers the process asks for domains other than `local.` and for names outside
/// it: those `/etc/resolv.conf` names when the first such question is asked, unless a command line
/// chose others before (`ciao query --server`).
package enum SystemResolver {
    private static let chosenServers = Mutex<[DNSServer]?>(nil)

    /// Asks `servers` instead of those of `/etc/resolv.conf`; takes effect only before the first
    /// unicast question of the process.
    package static func use(servers: [DNSServer]) {
        chosenServers.withLock { $0 = servers }
    }

    /// The process's loop, started at its first use.
    static let loop = Result { () throws(CiaoError) in
        if let servers = chosenServers.withLock({ $0 }) {
            return try UnicastDNSLoop(configuration: ResolverConfiguration(servers: servers))
        }
        return try UnicastDNSLoop(configuration: .system())
    }
}
