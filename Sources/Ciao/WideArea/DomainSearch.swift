import CiaoEngine
import CiaoTransport
import CiaoUnicastDNS
import CiaoWire

/// Domain enumeration for this host (RFC 6763 §11): the PTR questions under the search list of
/// `/etc/resolv.conf` and under the reverse names of the networks of this host's global addresses.
package enum DomainSearch {
    /// What the domains are for.
    package enum Purpose: Hashable, Sendable {
        /// Domains to browse in: `b`, `db` (the default) and `lb` answers.
        case browsing
        /// Domains to register in: `r` and `dr` (the default) answers.
        case registration

        var kinds: [DomainEnumeration.Kind] {
            switch self {
            case .browsing: [.browse, .defaultBrowse, .legacyBrowse]
            case .registration: [.registration, .defaultRegistration]
            }
        }
    }

    /// The domains for `purpose` until the stream is cancelled, asking through the process's
    /// unicast DNS loop, or through the servers of `servers` when given.
    package static func events(for purpose: Purpose, servers: [DNSServer]? = nil) throws(CiaoError)
        -> AsyncStream<WideAreaBrowse.Event>
    {
        var configuration = try ResolverConfiguration.system()
        let loop: UnicastDNSLoop
        if let servers {
            configuration.servers = servers
            loop = try UnicastDNSLoop(configuration: configuration)
        } else {
            loop = try SystemResolver.loop.get()
        }
        return WideAreaBrowse(loop: loop).domainEvents(
            purpose.kinds, searchDomains: configuration.searchDomains,
            networks: try DomainEnumeration.Network.ofThisHost())
    }
}

extension DomainEnumeration.Network {
    /// The networks of this host's addresses now, each once, link-local and loopback included
    /// (``isGlobal`` tells them apart).
    static func ofThisHost() throws(CiaoError) -> [DomainEnumeration.Network] {
        let interfaces: [NetworkInterface]
        do {
            interfaces = try InterfaceScanner.current()
        } catch {
            throw .network("cannot list this host's addresses: \(error)")
        }
        var networks: [DomainEnumeration.Network] = []
        for address in interfaces.flatMap(\.addresses) {
            let network: DomainEnumeration.Network =
                switch address.address {
                case .v4(let v4): .v4(v4, prefixLength: address.prefixLength)
                case .v6(let v6): .v6(v6, prefixLength: address.prefixLength)
                }
            if !networks.contains(network) { networks.append(network) }
        }
        return networks
    }
}
