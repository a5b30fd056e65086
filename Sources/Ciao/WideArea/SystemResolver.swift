import CiaoUnicastDNS
import Synchronization

/// The unicast DNS servers the process asks for domains other than `local.` and for names outside
/// it: those `/etc/resolv.conf` names when the first such question is asked, unless a command line
/// chose others before (`ciao query --server`).
package enum SystemResolver {
    private static let choice = Mutex(Choice())

    private struct Choice {
        var servers: [DNSServer]?
        /// Whether ``loop`` has started, after which the servers stay as they are.
        var isMade = false
    }

    /// Asks `servers` instead of those of `/etc/resolv.conf`; false, changing nothing, once the
    /// process has asked its first unicast question.
    package static func use(servers: [DNSServer]) -> Bool {
        choice.withLock { choice in
            guard !choice.isMade else { return false }
            choice.servers = servers
            return true
        }
    }

    /// The process's loop, started at its first use.
    static let loop = Result { () throws(CiaoError) in
        let servers = choice.withLock { choice in
            choice.isMade = true
            return choice.servers
        }
        if let servers { return try UnicastDNSLoop(configuration: ResolverConfiguration(servers: servers)) }
        return try UnicastDNSLoop(configuration: .system())
    }
}
