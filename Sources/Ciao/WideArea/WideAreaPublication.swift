import CiaoEngine
import CiaoTransport
import CiaoUnicastDNS
import CiaoWire
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One service registered in a unicast DNS domain (RFC 6763 over RFC 2136, signed with TSIG,
/// RFC 8945): finds the zone and its update server (``UpdateServerLocator``), registers the
/// service with its host's global addresses (``WideAreaRegistration``), renames it on a conflict
/// unless renaming is off, and deletes exactly its records on ``stop()``.
package final class WideAreaPublication: Sendable {
    /// What becomes of the publication.
    package enum Event: Hashable, Sendable {
        /// In the zone as `name`, its SRV pointing at `hostName`; `lease` is what the server granted.
        case registered(name: String, hostName: String, port: UInt16, lease: UInt32?)
        case failed(CiaoError)
        /// Its records are gone from the zone.
        case deregistered
    }

    /// The events, in order; finishes after `deregistered` or `failed`.
    package let events: AsyncStream<Event>
    private let loop: UnicastDNSLoop
    private let state = Mutex(State())

    /// What the caller's thread and the loop's thread share.
    private struct State {
        /// The registration the loop runs, once the zone and its server are found.
        var handle: RegistrationHandle?
        var stopped = false
        /// A TXT record given before there was a registration to carry it.
        var pendingTXT: TXTData?
    }
    private let sink: AsyncStream<Event>.Continuation

    /// Starts publishing `configuration`, whose ``PublicationConfiguration/wideArea`` holds the key;
    /// DNS questions go to the servers of `resolver`.
    package convenience init(_ configuration: PublicationConfiguration, resolver: ResolverConfiguration)
        throws(CiaoError)
    {
        try configuration.validate()
        guard let options = configuration.wideArea else {
            throw .invalidConfiguration("publishing in \(configuration.domain) needs wideArea (a key)")
        }
        try self.init(
            Publication(configuration, port: configuration.port), domain: configuration.domain, options: options,
            loop: try UnicastDNSLoop(configuration: resolver))
    }

    /// Starts publishing `publication` in `domain`, signed with the key of `options`; DNS
    /// questions go through `loop`.
    init(_ publication: Publication, domain: String, options: WideAreaOptions, loop: UnicastDNSLoop)
        throws(CiaoError)
    {
        let records = try Self.records(publication, domain: domain, options: options)
        let explicitServer: DNSServer?
        if let text = options.server {
            guard let server = DNSServer(parsing: text) else {
                throw .invalidConfiguration("the update server \"\(text)\" is not an address with an optional #PORT")
            }
            explicitServer = server
        } else {
            explicitServer = nil
        }
        self.loop = loop
        (events, sink) = AsyncStream.makeStream()
        let task = Task { [self] in
            await locateAndRegister(
                records, key: options.key.tsigKey, server: explicitServer, allowsRenaming: publication.allowsRenaming)
        }
        sink.onTermination = { _ in task.cancel() }
    }

    /// Replaces the TXT record in the zone (the whole RRset, RFC 2136 §2.5); before the
    /// registration is under way, the registration carries it.
    func updateTXT(_ txtRecord: TXTRecord) {
        let txt = txtRecord.txtData
        let handle = state.withLock { state in
            if state.handle == nil { state.pendingTXT = txt }
            return state.handle
        }
        if let handle { loop.updateTXT(handle, txt) }
    }

    /// Deletes the records (once registered; before that, nothing was written).
    package func stop() {
        let handle = state.withLock { state in
            state.stopped = true
            return state.handle
        }
        if let handle {
            loop.deregister(handle)
        } else {
            finish(.deregistered)
        }
    }

    private func locateAndRegister(
        _ records: ServiceRegistrationRecords, key: TSIGKey, server: DNSServer?, allowsRenaming: Bool
    ) async {
        var locator = UpdateServerLocator(name: records.serviceType, server: server)
        var step = locator.firstStep
        while case .query(let name, let type) = step {
            step = locator.answered(await loop.query(name, type))
        }
        guard case .found(let zone, let updateServer) = step else {
            if case .failed(let error) = step { finish(.failed(.network(error.description))) }
            return
        }
        let (stoppedEarly, earlyTXT) = state.withLock { state in
            defer { state.pendingTXT = nil }
            return (state.stopped, state.pendingTXT)
        }
        guard !stoppedEarly else { return }  // stop() has finished the events
        let records = earlyTXT.map { records.replacingTXT(with: $0) } ?? records
        let registration = WideAreaRegistration(
            records: records, zone: zone, server: updateServer.description, key: key, allowsRenaming: allowsRenaming)
        let handle = loop.register(registration, server: updateServer) { [self] event in
            handleEvent(event, records: records)
        }
        let (stopNow, lateTXT) = state.withLock { state in
            state.handle = handle
            defer { state.pendingTXT = nil }
            return (state.stopped, state.pendingTXT)
        }
        if let lateTXT { loop.updateTXT(handle, lateTXT) }
        if stopNow { loop.deregister(handle) }
    }

    /// Called on the loop's thread.
    private func handleEvent(_ event: WideAreaRegistration.Event, records: ServiceRegistrationRecords) {
        switch event {
        case .registered(let name, let lease):
            sink.yield(
                .registered(name: name, hostName: records.srv.target.description, port: records.srv.port, lease: lease))
        case .nameInUse(let name):
            if let handle = state.withLock({ $0.handle }) {
                loop.rename(handle, to: InstanceNamer.nextInstanceName(after: name))
            }
        case .txtUpdated, .refreshed: break
        case .deregistered: finish(.deregistered)
        case .failed(let error): finish(.failed(CiaoError(error)))
        }
    }

    private func finish(_ event: Event) {
        sink.yield(event)
        sink.finish()
    }

    /// The records of `publication` in `domain`: the SRV target is the given host name, or this
    /// machine's in the domain, with this host's global addresses (never link-local or loopback).
    static func records(_ publication: Publication, domain: String, options: WideAreaOptions) throws(CiaoError)
        -> ServiceRegistrationRecords
    {
        do {
            let domain = try DomainName(parsing: Service.normalisedDomain(domain))
            let typeName = try publication.type.domainName(in: domain)
            let hostLabel = options.hostName ?? MDNSRuntime.defaultHostLabel()
            let host = try DomainName(labels: [hostLabel]).appending(domain)
            var ipv4: [IPv4Address] = []
            var ipv6: [IPv6Address] = []
            // global as domain enumeration counts them: no loopback, link-local or unspecified
            for network in try DomainEnumeration.Network.ofThisHost() where network.isGlobal {
                switch network {
                case .v4(let v4, _): if !ipv4.contains(v4) { ipv4.append(v4) }
                case .v6(let v6, _): if !ipv6.contains(v6) { ipv6.append(v6) }
                }
            }
            let name = publication.instanceName(hostLabel: hostLabel)
            return try ServiceRegistrationRecords(
                instanceName: name, serviceType: typeName, subtypes: publication.subtypes,
                srv: SRVData(port: publication.port, target: host),
                txt: publication.txtRecord.txtData, ipv4Addresses: ipv4,
                ipv6Addresses: ipv6)
        } catch {
            throw .invalidConfiguration("cannot register \(publication.name) in \(domain): \(error)")
        }
    }
}

extension CiaoError {
    /// A registration's failure as the API reports it: a name taken with renaming off is the
    /// conflict DNS-SD reports (−65548), as for `local.`; the rest say what went wrong.
    init(_ error: RegistrationError) {
        switch error {
        case .nameInUse: self = .dnsService(Code.nameConflict)
        default: self = .network(error.description)
        }
    }
}
