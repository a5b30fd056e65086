import CiaoWire

/// The querier side: continuous queries with known answers, and the cache fed by responses
/// (RFC 6762 §5, §7, §10).
extension MDNSEngine {
    /// Sends the continuous queries and cache refreshes due on each interface, one message per
    /// interface and family (split with TC when the known answers do not fit, §7.2).
    mutating func sendDueQueries(at now: Instant) {
        for interfaceID in interfaces.keys.sorted() {
            var questions: [Question] = []
            for id in queries.keys.sorted() where queries[id]!.isDue(on: interfaceID, at: now) {
                questions.append(queries[id]!.question)
                queries[id]!.markSent(on: interfaceID, at: now)
            }
            // Refresh records that answer active queries at 80–95 % of their TTL (§5.2).
            let refreshes = interfaces[interfaceID]!.cache.takeDueRefreshes(at: now, random: &random)
            for rrset in refreshes.sorted(by: { $0.name.description < $1.name.description })
            where isQueried(rrset, on: interfaceID) {
                let question = Question(name: rrset.name, type: rrset.type)
                if !questions.contains(question) { questions.append(question) }
            }
            guard !questions.isEmpty, let state = interfaces[interfaceID] else { continue }
            let message = Message(questions: questions, answers: knownAnswers(for: questions, in: state.cache, at: now))
            multicast(message, on: state.interface)
        }
    }

    /// Cached answers to `questions` with more than half their TTL left, with the TTL they have
    /// left (§7.1).
    func knownAnswers(for questions: [Question], in cache: RecordCache, at now: Instant) -> [ResourceRecord] {
        var answers: [ResourceRecord] = []
        for question in questions {
            for entry in cache.records(named: question.name, type: question.type) {
                guard let remaining = cache.remainingTTL(of: RecordKey(entry.record), at: now),
                    UInt64(remaining) * 2 > UInt64(entry.record.ttl)
                else { continue }
                var record = entry.record
                record.ttl = remaining
                record.cacheFlush = false
                answers.append(record)
            }
        }
        return answers.sorted { $0.description < $1.description }
    }

    /// Caches the answers and additional records of a response and reports changes (§10).
    mutating func cacheResponse(_ message: Message, on interfaceID: InterfaceID, at now: Instant) {
        for record in message.answers + message.additionals where record.type != .opt {
            guard var state = interfaces[interfaceID] else { return }
            let queried = queries
            let (insertion, evicted) = state.cache.insert(record, at: now, random: &random) { rrset in
                queried.values.contains { $0.appliesTo(interfaceID) && $0.name == rrset.name && ($0.type == rrset.type || $0.type == .any) }
            }
            interfaces[interfaceID] = state
            switch insertion {
            case .added: report(.added, record, on: interfaceID)
            case .replaced: report(.updated, record, on: interfaceID)
            case .refreshed, .ignored: break
            }
            for record in evicted { report(.removed, record, on: interfaceID) }
        }
    }

    /// From another host's query: POOF bookkeeping (§10.5) and duplicate question suppression (§7.3).
    mutating func observeQuery(_ message: Message, on interfaceID: InterfaceID, at now: Instant) {
        guard var state = interfaces[interfaceID] else { return }
        let known = Set(message.answers.map(RecordKey.init))
        for question in message.questions {
            state.cache.noteUnansweredQuery(name: question.name, type: question.type, knownAnswers: known, at: now)
        }
        interfaces[interfaceID] = state
        guard !message.header.isTruncated else { return }
        for id in queries.keys.sorted() {
            guard let query = queries[id], query.appliesTo(interfaceID),
                message.questions.contains(where: { $0 == query.question })
            else { continue }
            // Suppress ours only if theirs holds no known answer we would not send ourselves:
            // otherwise answers we still need would be suppressed.
            let ours = Set(knownAnswers(for: [query.question], in: state.cache, at: now).map(RecordKey.init))
            let theirs = message.answers.filter(query.matches).map(RecordKey.init)
            if theirs.allSatisfy(ours.contains) {
                queries[id]!.markSent(on: interfaceID, at: now)
            }
        }
    }

    /// Removes expired, flushed and POOFed records and reports them.
    mutating func expireCachedRecords(at now: Instant) {
        for interfaceID in interfaces.keys.sorted() {
            for record in interfaces[interfaceID]!.cache.removeExpired(at: now) {
                report(.removed, record, on: interfaceID)
            }
        }
    }
}
