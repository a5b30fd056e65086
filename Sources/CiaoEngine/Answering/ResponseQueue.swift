import CiaoWire

/// What waits to be answered on one interface: multicast responses being aggregated (RFC 6762 §6)
/// and truncated queries held for the rest of their known answers (§7.2).
struct ResponseQueue {
    /// Truncated queries held at once, one per source; a further source's is not answered.
    static let maximumHeldQueries = 64
    /// Known answers kept for one held query, however many packets bring them.
    static let maximumKnownAnswersPerQuery = 4096

    private var responses: [ResponseSlot: PendingResponse] = [:]
    private var heldQueries: [SocketAddress: TruncatedQuery] = [:]

    /// When the next response or held query is due; nil when nothing waits.
    var nextDue: Instant? {
        let response = responses.values.lazy.map(\.sendAt).min()
        return earlier(response, heldQueries.values.lazy.map(\.answerAt).min())
    }

    /// True when a response or a held query is due at `now`.
    func hasDue(at now: Instant) -> Bool {
        nextDue.map { $0 <= now } ?? false
    }

    // MARK: Responses

    /// Adds `answers` to the response waiting in `slot`, or starts one due at `sendAt`. Aggregating
    /// (§6), the earlier answers may wait for the later ones up to the first plan's `latest`, so
    /// each answer still goes out at least its own delay after its query.
    mutating func schedule(_ answers: [ResourceRecord], in slot: ResponseSlot, sendAt: Instant, latest: Instant) {
        var pending = responses[slot] ?? PendingResponse(sendAt: sendAt, latest: latest, answers: [])
        pending.sendAt = min(max(pending.sendAt, sendAt), pending.latest)
        var gathered = UniqueRecords(pending.answers)
        for record in answers { gathered.insert(record) }
        pending.answers = gathered.records
        responses[slot] = pending
    }

    /// Takes the answers `isTaken` picks out of the responses waiting in `slots`, and returns
    /// them; a response left without answers is dropped.
    @discardableResult
    mutating func takeAnswers(
        from slots: [ResponseSlot] = ResponseSlot.allCases, where isTaken: (ResourceRecord) -> Bool
    ) -> [ResourceRecord] {
        var taken: [ResourceRecord] = []
        for slot in slots {
            guard var pending = responses[slot] else { continue }
            taken += pending.answers.filter(isTaken)
            pending.answers.removeAll(where: isTaken)
            responses[slot] = pending.answers.isEmpty ? nil : pending
        }
        return taken
    }

    /// The response waiting in `slot`, taken out, if it is due at `now`.
    mutating func takeResponse(in slot: ResponseSlot, dueAt now: Instant) -> PendingResponse? {
        guard let pending = responses[slot], pending.sendAt <= now else { return nil }
        responses[slot] = nil
        return pending
    }

    // MARK: Held queries

    /// False when ``maximumHeldQueries`` are held already.
    var canHoldQuery: Bool { heldQueries.count < Self.maximumHeldQueries }

    /// Holds a truncated query from `source` until `query.answerAt`, with at most
    /// ``maximumKnownAnswersPerQuery`` known answers; false when it cannot (``canHoldQuery``).
    @discardableResult
    mutating func hold(_ query: TruncatedQuery, from source: SocketAddress) -> Bool {
        guard canHoldQuery else { return false }
        var query = query
        query.knownAnswers = Array(query.knownAnswers.prefix(Self.maximumKnownAnswersPerQuery))
        heldQueries[source] = query
        return true
    }

    /// Adds a further packet's questions and known answers to the query held from `source`; false
    /// when no query from `source` is held.
    mutating func extendHeldQuery(from source: SocketAddress, with message: Message) -> Bool {
        guard var held = heldQueries[source] else { return false }
        held.questions += message.questions
        held.knownAnswers = Array((held.knownAnswers + message.answers).prefix(Self.maximumKnownAnswersPerQuery))
        heldQueries[source] = held
        return true
    }

    /// The held queries due at `now`, taken out, in the order they fall due.
    mutating func takeDueQueries(at now: Instant) -> [(source: SocketAddress, query: TruncatedQuery)] {
        // Sorted: the dictionary's order changes with the process's hash seed.
        let due = heldQueries.filter { $0.value.answerAt <= now }.sorted { $0.value.answerAt < $1.value.answerAt }
        for (source, _) in due { heldQueries[source] = nil }
        return due.map { (source: $0.key, query: $0.value) }
    }
}

/// A multicast response being aggregated before it is sent (RFC 6762 §6).
struct PendingResponse {
    var sendAt: Instant
    /// Aggregating later answers may move ``sendAt`` up to here (§6: 500 ms past the first plan).
    var latest: Instant
    var answers: [ResourceRecord]
}

/// Where a multicast response waits (RFC 6762 §6): per family, one for answers aggregated after
/// their random delay, one for answers the once-a-second rule holds back until their second has passed.
struct ResponseSlot: Hashable, CaseIterable {
    var family: IPFamily
    var heldBack: Bool

    static let allCases = IPFamily.allCases.flatMap { family in
        [ResponseSlot(family: family, heldBack: false), ResponseSlot(family: family, heldBack: true)]
    }
}

/// A query with TC set, waiting for the rest of its known answers (RFC 6762 §7.2).
struct TruncatedQuery {
    var receivedAt: Instant
    var answerAt: Instant
    var questions: [Question]
    var knownAnswers: [ResourceRecord]
}
