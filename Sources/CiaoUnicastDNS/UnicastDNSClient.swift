import CiaoWire

/// A stub resolver as a state machine with no I/O (RFC 1035 §7, RFC 7766, RFC 2308): questions
/// and received bytes in, query messages, finished attempts and answers out, time supplied by the
/// caller. Each attempt has a fresh random ID and its own socket; a reply counts only if it matches
/// the attempt exactly (source, ID, QR, OPCODE 0, the one question with its name case-insensitively,
/// type and class), so an off-path forger must guess both the port and the ID.
public struct UnicastDNSClient<Random: RandomNumberGenerator & Sendable>: Sendable {
    /// A handle for one question.
    public struct QueryID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt64
        public var description: String { "query \(rawValue)" }
    }

    /// The outcome of one question.
    public struct Completion: Sendable {
        public var query: QueryID
        public var result: Result<DNSAnswer, UnicastDNSError>
    }

    /// The UDP payload offered in the EDNS(0) OPT record (RFC 6891 §6.2.5; the 2020 DNS flag
    /// day's value, which avoids IP fragmentation).
    public static var udpPayloadSize: UInt16 { 1232 }
    /// CNAMEs followed inside one reply; a longer chain (or a loop) ends as NODATA.
    public static var maximumCNAMEChain: Int { 8 }
    /// TTLs are capped here, positive and negative alike, so a huge TTL cannot pin an answer.
    public static var maximumTTL: UInt32 { 3600 }
    /// Questions outstanding at once; past this a new one fails with `tooManyQueries`.
    public static var maximumPendingQueries: Int { 1024 }
    /// Answers cached at once.
    public static var cacheCapacity: Int { 4096 }

    public var configuration: ResolverConfiguration
    private var random: Random
    private var cache = DNSCache(capacity: cacheCapacity)
    private var pending: [QueryID: PendingQuery] = [:]
    private var queriesByAttempt: [Attempt: QueryID] = [:]
    private var lastQueryID: UInt64 = 0
    private var lastAttempt: UInt64 = 0
    private var transmissions: [Transmission] = []
    private var finishedAttempts: [Attempt] = []
    private var completions: [Completion] = []
    /// Replies dropped because they matched no outstanding attempt (wrong source, ID, question, or
    /// undecodable), for diagnostics.
    public private(set) var ignoredReplies = 0

    public init(configuration: ResolverConfiguration, random: Random) {
        self.configuration = configuration
        self.random = random
    }

    /// The questions not yet answered.
    public var pendingCount: Int { pending.count }

    /// When ``advance(to:)`` must be called next: the earliest attempt's deadline.
    public var nextDeadline: Duration? { pending.values.map(\.deadline).min() }

    /// Asks for `type` at `name`. A cached answer, as `cacheUse` allows, completes at once.
    @discardableResult
    public mutating func query(
        _ name: DomainName, type: RecordType, cacheUse: CacheUse = .any, at now: Duration
    ) -> QueryID {
        lastQueryID += 1
        let id = QueryID(rawValue: lastQueryID)
        if cacheUse != .none,
            let answer = cache.answer(name: name, type: type, unlessDue: cacheUse == .unlessDue, at: now)
        {
            completions.append(Completion(query: id, result: .success(answer)))
        } else if configuration.servers.isEmpty {
            completions.append(Completion(query: id, result: .failure(.noServers)))
        } else if pending.count >= Self.maximumPendingQueries {
            completions.append(
                Completion(query: id, result: .failure(.tooManyQueries(limit: Self.maximumPendingQueries))))
        } else {
            let server = configuration.servers[0]
            var query = PendingQuery(
                question: Question(name: name, type: type), attempt: Attempt(rawValue: 0), server: server,
                transport: .udp, messageID: 0, deadline: now)
            startAttempt(&query, id: id, over: .udp, at: now)
            pending[id] = query
        }
        return id
    }

    /// Gives up a question; its socket is listed as finished and no completion follows.
    public mutating func cancel(_ id: QueryID) {
        guard let query = pending.removeValue(forKey: id) else { return }
        finish(query.attempt)
    }

    /// Moves every attempt whose deadline has passed on to the next server, or fails its question
    /// once all attempts are spent.
    public mutating func advance(to now: Duration) {
        for (id, query) in pending where query.deadline <= now {
            nextAttempt(id, query, at: now)
        }
    }

    /// The socket of `attempt` failed (ICMP unreachable, a TCP reset or refusal) for `reason`: its
    /// question goes on to the next server at once, and fails with `unreachable(reason)` if no
    /// later server says otherwise.
    public mutating func attemptFailed(_ attempt: Attempt, because reason: String, at now: Duration) {
        guard let id = queriesByAttempt[attempt], var query = pending[id], query.attempt == attempt else { return }
        query.lastError = .unreachable(reason)
        nextAttempt(id, query, at: now)
    }

    /// A reply arrived on the socket of `attempt` from `source`. Anything that does not match the
    /// attempt exactly is ignored (and counted), never an error: a forger must not be able to fail a
    /// question.
    public mutating func receive(_ bytes: [UInt8], on attempt: Attempt, from source: DNSServer, at now: Duration) {
        guard let id = queriesByAttempt[attempt], var query = pending[id], query.attempt == attempt,
            source == query.server, let message = try? Message.decode(bytes, limits: .unicast).message,
            Self.matches(message, query)
        else {
            ignoredReplies += 1
            return
        }
        if message.header.isTruncated {
            guard query.transport == .udp else {
                query.lastError = .truncatedOverTCP
                nextAttempt(id, query, at: now)
                return
            }
            finish(query.attempt)
            startAttempt(&query, id: id, over: .tcp, at: now)
            pending[id] = query
            return
        }
        switch message.header.rcode {
        case 0, 3:
            let answer = Self.answer(to: query.question, in: message)
            cache.store(answer, at: now)
            pending[id] = nil
            finish(query.attempt)
            completions.append(Completion(query: id, result: .success(answer)))
        case 5:
            query.lastError = .refused
            nextAttempt(id, query, at: now)
        case let rcode:
            query.lastError = .serverFailure(rcode: rcode)
            nextAttempt(id, query, at: now)
        }
    }

    /// Forgets the cached answer to a question.
    public mutating func forget(_ name: DomainName, type: RecordType) {
        cache.remove(name: name, type: type)
    }

    /// Query messages to send, in order.
    public mutating func takeTransmissions() -> [Transmission] {
        defer { transmissions = [] }
        return transmissions
    }

    /// Attempts whose sockets are to be closed.
    public mutating func takeFinishedAttempts() -> [Attempt] {
        defer { finishedAttempts = [] }
        return finishedAttempts
    }

    /// Questions answered or failed, in order.
    public mutating func takeCompletions() -> [Completion] {
        defer { completions = [] }
        return completions
    }

    // MARK: Attempts

    private mutating func startAttempt(
        _ query: inout PendingQuery, id: QueryID, over transport: Transport, at now: Duration
    ) {
        lastAttempt += 1
        let attempt = Attempt(rawValue: lastAttempt)
        query.attempt = attempt
        query.transport = transport
        query.messageID = UInt16.random(in: .min ... .max, using: &random)
        query.deadline = now + configuration.timeout
        queriesByAttempt[attempt] = id
        let message = Message(
            header: MessageHeader(id: query.messageID, flags: 0x0100),
            questions: [query.question],
            additionals: [.opt(udpPayloadSize: Self.udpPayloadSize)])
        // A question of at most 255 bytes and an empty OPT always fit.
        let bytes = (try? message.encoded()) ?? []
        transmissions.append(Transmission(attempt: attempt, server: query.server, transport: transport, message: bytes))
    }

    private mutating func nextAttempt(_ id: QueryID, _ failed: PendingQuery, at now: Duration) {
        var query = failed
        finish(query.attempt)
        query.attemptIndex += 1
        let servers = configuration.servers
        guard query.attemptIndex < servers.count * max(configuration.attempts, 1) else {
            pending[id] = nil
            let error = query.lastError ?? .timedOut(name: query.question.name, type: query.question.type)
            completions.append(Completion(query: id, result: .failure(error)))
            return
        }
        query.server = servers[query.attemptIndex % servers.count]
        startAttempt(&query, id: id, over: .udp, at: now)
        pending[id] = query
    }

    private mutating func finish(_ attempt: Attempt) {
        guard queriesByAttempt.removeValue(forKey: attempt) != nil else { return }
        finishedAttempts.append(attempt)
    }

    // MARK: Replies

    /// A reply to our query: QR set, OPCODE 0, our ID, and exactly our question back.
    private static func matches(_ message: Message, _ query: PendingQuery) -> Bool {
        guard message.header.isResponse, message.header.opcode == 0, message.header.id == query.messageID,
            message.questions.count == 1, let question = message.questions.first
        else { return false }
        return question.name == query.question.name && question.type == query.question.type
            && question.qClass == query.question.qClass
    }

    /// The answer a matching reply gives: the RRset of the question's type at the end of the
    /// CNAME chain that starts at the question's name (at most ``maximumCNAMEChain`` links), or
    /// for ANY every record at the name, however few the server chose to give (RFC 8482); every
    /// record off that chain is ignored. With none, NODATA or NXDOMAIN, cached for the SOA's TTL
    /// bounded by its MINIMUM (RFC 2308 §5).
    static func answer(to question: Question, in message: Message) -> DNSAnswer {
        var owner = question.name
        var records: [ResourceRecord] = []
        for _ in 0...maximumCNAMEChain {
            records = message.answers.filter {
                $0.name == owner && $0.rrClass == .internet && (question.type == .any || $0.type == question.type)
            }
            guard records.isEmpty, question.type != .cname, question.type != .any,
                let next = message.answers.first(where: {
                    $0.name == owner && $0.rrClass == .internet && $0.type == .cname
                })?.data.canonicalName
            else { break }
            owner = next
        }
        if !records.isEmpty {
            var unique: [ResourceRecord] = []
            for var record in records {
                record.ttl = min(record.ttl, maximumTTL)
                if !unique.contains(where: { $0.type == record.type && $0.data == record.data }) {
                    unique.append(record)
                }
            }
            return DNSAnswer(
                name: question.name, type: question.type, outcome: .records, records: unique,
                ttl: unique.map(\.ttl).min() ?? 0)
        }
        var soa = message.authorities.first { $0.type == .soa && (owner == $0.name || owner.isSubdomain(of: $0.name)) }
        let negativeTTL = soa.flatMap { record in record.data.soa.map { min(record.ttl, $0.minimum, maximumTTL) } }
        // An SOA whose data does not parse gives no negative TTL, and is not the answer's.
        if let negativeTTL { soa?.ttl = negativeTTL } else { soa = nil }
        return DNSAnswer(
            name: question.name, type: question.type,
            outcome: message.header.rcode == 3 ? .nameError : .noData, records: [], ttl: negativeTTL ?? 0, soa: soa)
    }
}
