import CiaoUnicastDNS
import CiaoWire
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Browses a service type in a unicast DNS domain (RFC 6763 §4, §7.1, §12) without server push:
/// asks for the type's PTR RRset, resolves each instance (SRV and TXT, then the target's A and
/// AAAA: servers such as BIND add no additional records, so each is asked), and asks again at
/// 80 % of the shortest TTL (10 s at least, an hour at most, with up to 10 % jitter), reporting
/// what was added, removed or changed as `local.` browsing does.
package struct WideAreaBrowse: Sendable {
    /// What the browse sees.
    package enum Event: Hashable, Sendable {
        case found(Service)
        case removed(Service)
        /// An instance's host, port, addresses or TXT, the first time and each time they change.
        case resolved(ResolvedService)
        case resolutionFailed(Service, CiaoError)
        /// A service type the domain lists (RFC 6763 §9), each once.
        case typeFound(ServiceType)
        /// A domain the network recommends (RFC 6763 §11), with a trailing dot; default when a
        /// `db` or `dr` answer names it.
        case domainFound(String, isDefault: Bool)
        /// No answer names the domain any more.
        case domainRemoved(String)
        /// The first round is complete: every instance found then is reported and resolved.
        case settled
        /// The changes to the records a lookup asked for, in one round.
        case records([RecordEvent])
        /// A question of a browse, type or domain round could not be asked; it is asked again in
        /// the next round.
        case failed(CiaoError)
        /// A lookup's question for a type could not be asked; it is asked again in the next round.
        case questionFailed(RecordType, CiaoError)
    }

    /// The shortest and longest wait between two rounds.
    package static let refreshBounds: ClosedRange<Duration> = .seconds(10) ... .seconds(3600)

    private let loop: UnicastDNSLoop

    /// A browse asking the servers of `configuration`; starts its thread.
    package init(configuration: ResolverConfiguration) throws(CiaoError) {
        self.init(loop: try UnicastDNSLoop(configuration: configuration))
    }

    /// A browse asking through `loop`, which other browses and publications may share.
    init(loop: UnicastDNSLoop) {
        self.loop = loop
    }

    /// The events of browsing `type` (under `subtype` if given) in `domain`, until the stream is
    /// cancelled; with `resolving`, each instance is resolved as it is found. Firing `trigger`
    /// asks the server for the PTR records again at once, rather than at 80 % of the TTL.
    package func events(
        type: ServiceType, subtype: String?, domain: String, resolving: Bool, trigger: RoundTrigger? = nil
    ) throws(CiaoError) -> AsyncStream<Event> {
        let domainName: DomainName
        let typeName: DomainName
        let queryName: DomainName
        do {
            domainName = try DomainName(parsing: domain)
            typeName = try type.domainName(in: domainName)
            queryName = try subtype.map { try typeName.subtypeName($0) } ?? typeName
        } catch {
            throw .invalidConfiguration("cannot browse \(type) in \"\(domain)\": \(error)")
        }
        let round = BrowseRound(loop: loop, type: type, typeName: typeName, domain: domain, resolving: resolving)
        return Self.polling(round, trigger: trigger) { round, cacheUse, report in
            await round.run(queryName: queryName, cacheUse: cacheUse, report: report)
        }
    }

    /// The service types `domain` lists under `_services._dns-sd._udp` (RFC 6763 §9), each once,
    /// asked for again as a browse asks, until the stream is cancelled.
    package func typeEvents(domain: String) throws(CiaoError) -> AsyncStream<Event> {
        let domainName: DomainName
        let queryName: DomainName
        do {
            domainName = try DomainName(parsing: domain)
            queryName = try DomainName.serviceTypeEnumerationName(in: domainName)
        } catch {
            throw .invalidConfiguration("cannot list the service types of \"\(domain)\": \(error)")
        }
        let loop = loop
        return Self.polling(Set<ServiceType>()) { seen, cacheUse, report in
            switch await loop.query(queryName, .ptr, cacheUse: cacheUse) {
            case .success(let answer):
                for record in answer.records where record.name == queryName {
                    // a type is `_name._proto` directly under the domain
                    guard case .ptr(let target) = record.data, target.parent.parent == domainName,
                        let type = try? ServiceType(
                            observed: target.labels.prefix(2).map { String(decoding: $0, as: UTF8.self) }
                                .joined(separator: ".")),
                        seen.insert(type).inserted
                    else { continue }
                    report(.typeFound(type))
                }
                return answer.ttl
            case .failure(let error):
                report(.failed(.network(error.description)))
                return 0
            }
        }
    }

    /// The domains the network recommends for `kinds` (RFC 6763 §11): the PTR answers under each
    /// search domain and under the reverse name of each global network, asked for again as a
    /// browse asks. A name nobody serves is no error; `failed` when no question of a round was
    /// answered at all.
    package func domainEvents(
        _ kinds: [DomainEnumeration.Kind], searchDomains: [DomainName], networks: [DomainEnumeration.Network]
    ) -> AsyncStream<Event> {
        let questions = kinds.flatMap { kind in
            DomainEnumeration.queryNames(kind, searchDomains: searchDomains, networks: networks).map { (kind, $0) }
        }
        let loop = loop
        return Self.polling([String: Bool]()) { known, cacheUse, report in
            var current: [(domain: String, isDefault: Bool)] = []
            var ttl = UInt32.max
            var lastError: UnicastDNSError?
            var answered = false
            for (kind, name) in questions {
                switch await loop.query(name, .ptr, cacheUse: cacheUse) {
                case .success(let answer):
                    answered = true
                    ttl = min(ttl, answer.ttl)
                    let isDefault = kind == .defaultBrowse || kind == .defaultRegistration
                    // local. is multicast DNS's own, whoever lists it
                    for domain in DomainEnumeration.domains(in: answer.records, for: name)
                    where !Service.isLocalDomain(domain.description) {
                        if let index = current.firstIndex(where: { $0.domain == domain.description }) {
                            current[index].isDefault = current[index].isDefault || isDefault
                        } else {
                            current.append((domain.description, isDefault))
                        }
                    }
                case .failure(let error):
                    lastError = error
                }
            }
            if !answered, let lastError {
                report(.failed(.network(lastError.description)))
                return 0
            }
            for domain in known.keys.sorted() where !current.contains(where: { $0.domain == domain }) {
                known[domain] = nil
                report(.domainRemoved(domain))
            }
            for (domain, isDefault) in current where known[domain] == nil {
                known[domain] = isDefault
                report(.domainFound(domain, isDefault: isDefault))
            }
            return ttl == .max ? 0 : ttl
        }
    }

    /// The records answering `lookup`, its types asked for together, and asked for again as a
    /// browse asks, until the stream is cancelled: each answer's changes as one `records` event
    /// as it comes; a question no server answered as `questionFailed`, with the removal of its records
    /// whose TTLs have run out.
    func lookupEvents(_ lookup: RecordLookup) -> AsyncStream<Event> {
        let loop = loop
        return Self.polling(UnicastRecordSet()) { reported, cacheUse, report in
            await withTaskGroup(of: (RecordType, Result<DNSAnswer, UnicastDNSError>).self) { questions in
                for type in lookup.types {
                    questions.addTask { (type, await loop.query(lookup.name, type, cacheUse: cacheUse)) }
                }
                var ttl = UInt32.max
                for await (type, result) in questions {
                    let changes: [RecordEvent]
                    switch result {
                    case .success(let answer):
                        changes = reported.take(answer, at: .now)
                        ttl = min(ttl, answer.ttl)
                    case .failure(let error):
                        report(.questionFailed(type, .network(error.description)))
                        changes = reported.expire(type, at: .now)
                        ttl = 0
                    }
                    if !changes.isEmpty { report(.records(changes)) }
                }
                return ttl
            }
        }
    }

    /// Runs `round` until the stream is cancelled, waiting after each for the TTL it returns, or
    /// until `trigger` fires: the first round may take cached answers, later ones ask again what
    /// has lived 75 % of its TTL, and a round that `trigger` brought forward asks the servers;
    /// `settled` follows the first.
    private static func polling<State: Sendable>(
        _ initial: State, trigger: RoundTrigger? = nil,
        round:
            @escaping @Sendable (inout State, _ cacheUse: CacheUse, _ report: (Event) -> Void) async ->
            UInt32
    ) -> AsyncStream<Event> {
        AsyncStream { continuation in
            let task = Task {
                var state = initial
                var cacheUse = CacheUse.any
                var first = true
                while !Task.isCancelled {
                    let ttl = await round(&state, cacheUse) { continuation.yield($0) }
                    if first { continuation.yield(.settled) }
                    first = false
                    let waitTime = wait(forTTL: ttl)
                    if let trigger {
                        cacheUse = await trigger.wait(for: waitTime) ? .none : .unlessDue
                    } else {
                        try? await Task.sleep(for: waitTime)
                        cacheUse = .unlessDue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Resolves `service` continuously (RFC 6763 §6, §12): `resolved` the first time its SRV, TXT
    /// and addresses are known and each time they change, asked for again as a browse asks;
    /// a failed round is `resolutionFailed`, and retried. Until the stream is cancelled. Firing
    /// `trigger` brings the next round forward, asking the servers rather than the cache.
    package func resolveEvents(_ service: Service, trigger: RoundTrigger? = nil) throws(CiaoError) -> AsyncStream<Event>
    {
        let (name, round) = try resolution(of: service)
        return Self.polling(ResolvedService?.none, trigger: trigger) { latest, cacheUse, report in
            switch await round.resolve(name, service, cacheUse: cacheUse) {
            case .success(let (resolved, ttl)):
                if latest != resolved {
                    latest = resolved
                    report(.resolved(resolved))
                }
                return ttl
            case .failure(let error):
                report(.resolutionFailed(service, error))
                return 0
            }
        }
    }

    /// Resolves one service of a unicast DNS domain (RFC 6763 §6, §12): its SRV and TXT, then
    /// its target's addresses; `timedOut` when that takes longer than `timeout`.
    package func resolve(_ service: Service, timeout: Duration) async -> Result<ResolvedService, CiaoError> {
        let name: DomainName
        let round: BrowseRound
        do throws(CiaoError) {
            (name, round) = try resolution(of: service)
        } catch {
            return .failure(error)
        }
        // not a task group: that would wait for the queries, which wait out their attempts whatever
        // `timeout` says (a server that never answers kept `ciao resolve --timeout 3` for 10 s)
        return await Self.first(
            of: { await round.resolve(name, service, cacheUse: .any).map(\.0) },
            orAfter: timeout, .failure(.timedOut))
    }

    /// What `work` returns, or `late` once `timeout` has passed, whichever comes first. Unlike a
    /// task group this does not wait for the loser: `work` is cancelled at the timeout and, if it
    /// does not heed that, runs on unawaited and its result is dropped. The caller's own
    /// cancellation is not passed on.
    package static func first<T: Sendable>(
        of work: @escaping @Sendable () async -> T, orAfter timeout: Duration, _ late: T
    ) async -> T {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let worker = Task { once.resume(await work()) }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                worker.cancel()
                once.resume(late)
            }
            Task {
                _ = await worker.value
                timer.cancel()
            }
        }
    }

    /// The instance name of `service` and a round that resolves it.
    private func resolution(of service: Service) throws(CiaoError) -> (DomainName, BrowseRound) {
        let name: DomainName
        do {
            name = try service.type.domainName(in: DomainName(parsing: service.domain))
                .prepending(label: Array(service.name.utf8))
        } catch {
            throw .invalidConfiguration("cannot resolve \(service): \(error)")
        }
        let round = BrowseRound(
            loop: loop, type: service.type, typeName: name.parent, domain: service.domain, resolving: true)
        return (name, round)
    }

    /// The wait before the next round: 80 % of `ttl`, within ``refreshBounds``, plus up to 10 %.
    package static func wait(forTTL ttl: UInt32) -> Duration {
        let base = min(max(.seconds(Double(ttl) * 0.8), refreshBounds.lowerBound), refreshBounds.upperBound)
        return base * Double.random(in: 1.0...1.1)
    }
}

/// One browse's knowledge between rounds: the instances and what they resolved to.
private struct BrowseRound {
    let loop: UnicastDNSLoop
    let type: ServiceType
    let typeName: DomainName
    let domain: String
    let resolving: Bool
    var instances: [DomainName: Service] = [:]
    var resolutions: [DomainName: ResolvedService] = [:]

    init(loop: UnicastDNSLoop, type: ServiceType, typeName: DomainName, domain: String, resolving: Bool) {
        self.loop = loop
        self.type = type
        self.typeName = typeName
        self.domain = domain
        self.resolving = resolving
    }

    /// Asks for the PTR RRset, reports additions and removals, resolves; returns the shortest TTL
    /// seen, which sets when to ask again.
    mutating func run(
        queryName: DomainName, cacheUse: CacheUse, report: (WideAreaBrowse.Event) -> Void
    ) async -> UInt32 {
        let answer: DNSAnswer
        switch await loop.query(queryName, .ptr, cacheUse: cacheUse) {
        case .success(let got): answer = got
        case .failure(let error):
            report(.failed(.network(error.description)))
            return 0
        }
        var ttl = answer.ttl
        // Only PTRs of the question that name an instance of this type in this domain count
        // (RFC 6763 §4.1): a PTR pointing elsewhere is ignored.
        var current: [DomainName: Service] = [:]
        for record in answer.records where record.name == queryName {
            guard case .ptr(let instance) = record.data, instance.parent == typeName,
                let label = instance.firstLabel
            else { continue }
            current[instance] = Service(name: String(decoding: label, as: UTF8.self), type: type, domain: domain)
        }
        for (name, service) in instances where current[name] == nil {
            instances[name] = nil
            resolutions[name] = nil
            report(.removed(service))
        }
        for (name, service) in current.sorted(by: { $0.value.name < $1.value.name }) where instances[name] == nil {
            instances[name] = service
            report(.found(service))
        }
        guard resolving else { return ttl }
        for (name, service) in instances.sorted(by: { $0.value.name < $1.value.name }) {
            // Only the PTR records are asked for afresh: what a trigger questions is the instances.
            switch await resolve(name, service, cacheUse: cacheUse == .none ? .unlessDue : cacheUse) {
            case .success(let (resolved, resolvedTTL)):
                ttl = min(ttl, resolvedTTL)
                if resolutions[name] != resolved {
                    resolutions[name] = resolved
                    report(.resolved(resolved))
                }
            case .failure(let error):
                if resolutions[name] == nil { report(.resolutionFailed(service, error)) }
            }
        }
        return ttl
    }

    /// SRV and TXT of the instance, then its target's addresses (IPv4 first).
    func resolve(_ name: DomainName, _ service: Service, cacheUse: CacheUse) async -> Result<
        (ResolvedService, UInt32), CiaoError
    > {
        async let srvAnswer = loop.query(name, .srv, cacheUse: cacheUse)
        async let txtAnswer = loop.query(name, .txt, cacheUse: cacheUse)
        let (srvResult, txtResult) = await (srvAnswer, txtAnswer)
        guard case .success(let srvSet) = srvResult,
            let srv = srvSet.records.lazy.compactMap({ record -> SRVData? in
                if case .srv(let srv) = record.data { srv } else { nil }
            }).first
        else {
            let reason =
                switch srvResult {
                case .success: "no SRV record"
                case .failure(let error): error.description
                }
            return .failure(.network("cannot resolve \(service): \(reason)"))
        }
        var txtRecord = TXTRecord.empty
        var ttl = srvSet.ttl
        if case .success(let txtSet) = txtResult, let record = txtSet.records.first, case .txt(let txt) = record.data {
            txtRecord = TXTRecord(txt)
            ttl = min(ttl, txtSet.ttl)
        }
        async let aAnswer = loop.query(srv.target, .a, cacheUse: cacheUse)
        async let aaaaAnswer = loop.query(srv.target, .aaaa, cacheUse: cacheUse)
        var addresses: [String] = []
        for result in await [aAnswer, aaaaAnswer] {
            guard case .success(let set) = result else { continue }
            if !set.records.isEmpty { ttl = min(ttl, set.ttl) }
            for record in set.records {
                switch record.data {
                case .a(let address): addresses.append(address.description)
                case .aaaa(let address): addresses.append(address.description)
                default: continue
                }
            }
        }
        let resolved = ResolvedService(
            service: service, hostName: srv.target.description, port: srv.port, addresses: addresses,
            txtRecord: txtRecord)
        return .success((resolved, ttl))
    }
}

/// A continuation resumed by the first of several tasks; the later ones are dropped.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
