import CiaoWire

/// The querier side: continuous queries with known answers, and the cache fed by responses
/// (RFC 6762 §5, §7, §10).
extension MDNSEngine {
    /// When a new continuous query first asks on `interface`: 20–120 ms from now (§5.2), or when
    /// the queries started moments ago first ask, if that is still 20–120 ms away, so that queries
    /// started together (a resolution's SRV and TXT, its A and AAAA) share one packet and one
    /// schedule from then on.
    mutating func firstQueryTime(on interface: InterfaceID, at now: Instant) -> Instant {
        if let shared = interfaces[interface]?.sharedFirstQueryTime, ContinuousQuery.firstDelay.contains(shared - now) {
            return shared
        }
        let first = now + random.duration(in: ContinuousQuery.firstDelay)
        interfaces[interface]?.sharedFirstQueryTime = first
        return first
    }

    /// Sends the continuous queries and cache refreshes due on each interface, one message per
    /// interface and family (split with TC when the known answers do not fit, §7.2).
    mutating func sendDueQueries(at now: Instant) {
        let due = queries.due(at: now, isPresent: interfaces.contains)
        for interfaceID in interfaces.ids
        where due[interfaceID] != nil || interfaces[interfaceID]?.cache.hasDueRefresh(at: now) == true {
            guard let interface = interfaces[interfaceID]?.interface else { continue }
            // The questions in the order first asked, and the families each is asked over.
            var questions: [Question] = []
            var askedOver: [Question: Set<IPFamily>] = [:]
            // Asked over IPv6 as a first IPv6 query after IPv4's, or otherwise.
            var askedAfterIPv4: Set<Question> = []
            var askedOtherwise: Set<Question> = []
            // The families each question goes over again, not for the first time: only a first
            // query asks for unicast replies (§5.4).
            var askedAgainOver: [Question: Set<IPFamily>] = [:]
            func ask(_ question: Question, _ send: ContinuousQuery.Send, first: Bool = false) {
                let sendFamilies = send.families(of: interface)
                guard !sendFamilies.isEmpty else { return }
                if askedOver[question] == nil { questions.append(question) }
                askedOver[question, default: []].formUnion(sendFamilies)
                if send == .ipv6AfterIPv4 { askedAfterIPv4.insert(question) } else { askedOtherwise.insert(question) }
                if !first { askedAgainOver[question, default: []].formUnion(sendFamilies) }
            }
            /// QU when every query asking it over `family` (one at least, as the message is built
            /// from those asked) asks it for the first time, and unicast replies over `family` reach us.
            func asked(_ question: Question, over family: IPFamily) -> Question {
                var asked = question
                asked.unicastResponse =
                    unicastReplyFamilies.contains(family)
                    && askedAgainOver[question]?.contains(family) != true
                return asked
            }
            for id in due[interfaceID] ?? [] {
                guard let query = queries[id] else { continue }
                // A unique answer is cached (it came in since the query was scheduled, or the
                // query started with it): the cache's refresh queries at 80–95 % of its TTL keep
                // it (§5.2), so the query itself asks again only if it expires (§7.1).
                if let expiry = uniqueAnswerExpiry(for: query, on: interfaceID) {
                    interfaces[interfaceID]?.cache.watch(name: query.name, type: query.type, at: now, random: &random)
                    queries[id]?.schedule(on: interfaceID, firstAt: expiry)
                    continue
                }
                if let send = queries[id]?.takeDue(on: interfaceID, families: interface.families, at: now) {
                    ask(query.question, send, first: send == .ipv6AfterIPv4 || !query.hasBeenAsked(on: interfaceID))
                }
            }
            // The records these questions ask for are refreshed from now on (§5.2).
            for question in questions {
                interfaces[interfaceID]?.cache.watch(name: question.name, type: question.type, at: now, random: &random)
            }
            // Refresh records that answer active queries at 80–95 % of their TTL (§5.2).
            var refreshes: Set<RRSetKey> = []
            if interfaces[interfaceID]?.cache.hasDueRefresh(at: now) == true {
                let watched = watchedQuestions(on: interfaceID)
                refreshes =
                    interfaces[interfaceID]?.cache.takeDueRefreshes(
                        at: now, random: &random, isQueried: watched.contains) ?? []
            }
            for rrset in refreshes.sorted(by: {
                ($0.name.description, $0.type.rawValue) < ($1.name.description, $1.type.rawValue)
            }) {
                ask(Question(name: rrset.name, type: rrset.type), .allFamilies)
            }
            // A first IPv6 query after IPv4's need not list what has come over IPv6 since: a
            // responder that multicast it there will not repeat it within the second (§6), and the
            // next query, a second later, lists everything.
            let omittingRecentIPv6 = askedAfterIPv4.subtracting(askedOtherwise)
            // Over both families the questions are mostly the same: one message serves both,
            // unless each family lists only the known answers that came over it.
            var sent: (questions: [Question], omitting: Set<Question>, message: Message)?
            for family in interface.families {
                let familyQuestions = questions.filter { askedOver[$0]!.contains(family) }
                guard !familyQuestions.isEmpty else { continue }
                let omitting = family == .v6 ? omittingRecentIPv6 : []
                let asking = familyQuestions.map { asked($0, over: family) }
                if sent?.questions != asking || sent?.omitting != omitting || configuration.knownAnswersPerFamily {
                    let answers = knownAnswers(
                        for: familyQuestions, on: interface, at: now, omittingRecentIPv6For: omitting, over: family)
                    sent = (asking, omitting, Message(questions: asking, answers: answers))
                }
                send(sent!.message, on: interfaceID, to: .multicast(family), purpose: .query)
            }
        }
    }

    /// When the last cached answer to a query for a unique record type (SRV, TXT, A, AAAA) expires,
    /// if there is one; nil for shared types and when nothing is cached. With
    /// ``Configuration/knownAnswersPerFamily``, nil too until an answer has come over every family
    /// of the interface: the query asks on, over every family, with its backoff.
    func uniqueAnswerExpiry(for query: ContinuousQuery, on interface: InterfaceID) -> Instant? {
        guard [.srv, .txt, .a, .aaaa].contains(query.type), let state = interfaces[interface] else { return nil }
        let answers = state.cache.records(named: query.name, type: query.type).filter {
            $0.record.cacheFlush && !$0.isLeaving
        }
        if configuration.knownAnswersPerFamily,
            !state.interface.families.allSatisfy({ family in answers.contains { $0.wasHeard(over: family) } })
        {
            return nil
        }
        return answers.map(\.expiry).max()
    }

    /// Cached answers to `questions` with more than half their TTL left, with the TTL they have
    /// left (§7.1); for the questions in `recentIPv6`, not those multicast over IPv6 since the
    /// first IPv4 query (``ContinuousQuery/ipv6FirstQueryLag`` ago); for a query over `family`
    /// with ``Configuration/knownAnswersPerFamily``, only records that came over it.
    ///
    /// Our answering records count as known answers too: otherwise every
    /// other host would see our queries go unanswered and remove them from its cache (§10.5).
    func knownAnswers(
        for questions: [Question], on interface: NetworkInterface, at now: Instant,
        omittingRecentIPv6For recentIPv6: Set<Question> = [], over family: IPFamily? = nil
    ) -> [ResourceRecord] {
        let heardOver = configuration.knownAnswersPerFamily ? family : nil
        guard let cache = interfaces[interface.id]?.cache else { return [] }
        var answers: [ResourceRecord] = []
        for question in questions {
            for record in answeringRecords(for: question, on: interface) {
                var known = record
                known.cacheFlush = false
                answers.append(known)
            }
            let omitsRecentIPv6 = recentIPv6.contains(question)
            for entry in cache.records(named: question.name, type: question.type) {
                // A record POOF suspects is asked for afresh: listed, its responder would stay silent.
                guard !entry.isSuspected, heardOver.map(entry.wasHeard) ?? true,
                    let remaining = cache.remainingTTL(of: entry.key, at: now),
                    UInt64(remaining) * 2 > UInt64(entry.record.ttl),
                    !omitsRecentIPv6
                        || entry.multicastOver[.v6].map({ now - $0 >= ContinuousQuery.ipv6FirstQueryLag }) ?? true
                else { continue }
                var record = entry.record
                record.ttl = remaining
                record.cacheFlush = false
                answers.append(record)
            }
        }
        // A stable order (the cache's is a hash order), each description made once.
        return answers.map { ($0.description, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// From another host's query, multicast over `family`: POOF bookkeeping (§10.5) and duplicate
    /// question suppression (§7.3).
    mutating func observeQuery(_ message: Message, on interfaceID: InterfaceID, over family: IPFamily, at now: Instant)
    {
        // A truncated query's known answers continue in later packets (§7.2): judged on the first
        // packet alone, every record listed later would look unanswered and be POOFed.
        guard !message.header.isTruncated, interfaces.contains(interfaceID) else { return }
        let known = ListedAnswers(message.answers)
        // A QU question may be answered by unicast, out of our sight (§5.4): it proves nothing.
        for question in message.questions where !question.unicastResponse {
            interfaces[interfaceID]?.cache.noteUnansweredQuery(
                name: question.name, type: question.type, knownAnswers: known, over: family, at: now)
        }
        guard let state = interfaces[interfaceID] else { return }
        // One margin for the whole message: queries that share a schedule keep sharing it. Only
        // queries of the questions' names can match, found through the index, in ID order.
        var margin: Duration?
        var candidates: [QueryID] = []
        for question in message.questions { candidates += queries.asking(question.name) }
        for id in Set(candidates).sorted() {
            guard let query = queries[id], query.appliesTo(interfaceID),
                message.questions.contains(where: { $0 == query.question })
            else { continue }
            // Suppress ours only if theirs holds no known answer we would not send ourselves:
            // otherwise answers we still need would be suppressed.
            let ours = Set(
                knownAnswers(for: [query.question], on: state.interface, at: now, over: family).map(RecordKey.init))
            let theirs = message.answers.filter(query.matches).map(RecordKey.init)
            if theirs.allSatisfy(ours.contains) {
                if margin == nil { margin = random.duration(in: ContinuousQuery.standInMargin) }
                queries[id]?.noteAskedByAnother(on: interfaceID, over: family, at: now, margin: margin!)
            }
        }
    }

    /// Where `record`, as reported on `interface`, came from: one of our own records, or one
    /// cached there; nil for a record no longer known there.
    public func arrival(of record: ResourceRecord, on interface: InterfaceID) -> RecordArrival? {
        guard let state = interfaces[interface] else { return nil }
        let question = Question(name: record.name, type: record.type)
        if answeringRecords(for: question, on: state.interface).contains(where: { $0.data == record.data }) {
            return RecordArrival(isFromThisHost: true, families: state.interface.families)
        }
        guard let entry = state.cache.entry(RecordKey(record)) else { return nil }
        return RecordArrival(
            isFromThisHost: interfaces.owns(entry.source),
            families: IPFamily.allCases.filter(entry.wasHeard))
    }

    /// Removes expired, cache-flushed and POOFed records and reports them.
    mutating func expireCachedRecords(at now: Instant) {
        for interfaceID in interfaces.ids where interfaces[interfaceID]?.cache.hasExpiry(at: now) == true {
            for record in interfaces[interfaceID]?.cache.removeExpired(at: now) ?? [] {
                report(.removed, record, on: interfaceID)
            }
        }
    }
}

/// The questions active queries ask on one interface, for constant-time "does a query want this
/// RRset" checks while caching.
struct WatchedQuestions {
    /// RRsets of class IN asked for by type.
    private var exact: Set<RRSetKey> = []
    /// Names asked with type ANY: every type matches.
    private var anyNames: Set<NameKey> = []
    /// Names asked for a type an NSEC can deny: other than ANY and NSEC.
    private var deniableNames: Set<NameKey> = []

    init(_ queries: some Sequence<ContinuousQuery>, on interface: InterfaceID) {
        for query in queries where query.appliesTo(interface) {
            if query.type == .any {
                anyNames.insert(NameKey(query.name))
            } else {
                exact.insert(RRSetKey(name: query.name, type: query.type, rrClass: .internet))
                if query.type != .nsec { deniableNames.insert(NameKey(query.name)) }
            }
        }
    }

    /// Whether `rrset` holds NSEC records that may deny a type a query asks for (RFC 6762 §6.1).
    func mayDeny(_ rrset: RRSetKey) -> Bool {
        rrset.type == .nsec && deniableNames.contains(rrset.nameKey)
    }

    var isEmpty: Bool { exact.isEmpty && anyNames.isEmpty }

    func contains(_ rrset: RRSetKey) -> Bool {
        guard !isEmpty else { return false }
        let asked =
            rrset.rrClass == .internet ? rrset : RRSetKey(name: rrset.name, type: rrset.type, rrClass: .internet)
        return exact.contains(asked) || anyNames.contains(rrset.nameKey)
    }
}

extension MDNSEngine {
    func watchedQuestions(on interface: InterfaceID) -> WatchedQuestions {
        WatchedQuestions(queries.values, on: interface)
    }
}
