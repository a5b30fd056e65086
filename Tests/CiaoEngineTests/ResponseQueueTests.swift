@testable import CiaoEngine
import CiaoWire
import Testing

/// The response queue alone: aggregation within the first plan's latest time, withdrawal that
/// drops emptied responses, and truncated queries held, extended, bounded and taken in time order
/// (RFC 6762 §6, §7.2).
@Suite struct ResponseQueueTests {
    private let start = Instant.zero + .seconds(10)
    private let v4 = ResponseSlot(family: .v4, heldBack: false)

    private func record(_ name: String) -> ResourceRecord {
        ResourceRecord(name: DomainName(name)!, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1)))
    }

    private func source(_ last: UInt8) -> SocketAddress {
        SocketAddress(.v4(IPv4Address(198, 18, 0, last)), port: 5353)
    }

    private func query(at answerAt: Instant, knownAnswers: [ResourceRecord] = []) -> TruncatedQuery {
        TruncatedQuery(
            receivedAt: start, answerAt: answerAt, questions: [Question(name: DomainName("a.local.")!, type: .a)],
            knownAnswers: knownAnswers)
    }

    /// A later answer moves the response later, never past the first plan's latest time, and an
    /// answer already waiting is not added twice.
    @Test func laterAnswersJoinTheResponseWithinItsLatestTime() {
        var queue = ResponseQueue()
        queue.schedule([record("a.local.")], in: v4, sendAt: start, latest: start + .milliseconds(500))
        queue.schedule(
            [record("a.local."), record("b.local.")], in: v4, sendAt: start + .milliseconds(300),
            latest: start + .milliseconds(800))
        #expect(queue.nextDue == start + .milliseconds(300))
        queue.schedule([record("c.local.")], in: v4, sendAt: start + .milliseconds(900), latest: start + .seconds(2))
        #expect(queue.nextDue == start + .milliseconds(500))
        let early = queue.takeResponse(in: v4, dueAt: start + .milliseconds(499))
        #expect(early == nil)
        let due = queue.takeResponse(in: v4, dueAt: start + .milliseconds(500))
        #expect(due?.answers.map(\.name.description) == ["a.local.", "b.local.", "c.local."])
        #expect(queue.nextDue == nil && !queue.hasDue(at: start + .seconds(60)))
    }

    /// Withdrawing hands back what it took, only from the slots named, and a response left
    /// without answers is no longer due.
    @Test func takingAnswersOutDropsEmptiedResponses() {
        var queue = ResponseQueue()
        let v6 = ResponseSlot(family: .v6, heldBack: false)
        queue.schedule([record("a.local."), record("b.local.")], in: v4, sendAt: start, latest: start)
        queue.schedule([record("a.local.")], in: v6, sendAt: start + .seconds(1), latest: start + .seconds(1))
        let taken = queue.takeAnswers(from: [v4]) { $0.name.description == "a.local." }
        #expect(taken.map(\.name.description) == ["a.local."])
        queue.takeAnswers { $0.name.description == "a.local." }
        #expect(queue.nextDue == start)
        queue.takeAnswers { _ in true }
        #expect(queue.nextDue == nil)
    }

    /// Further packets of a held query add to it; a source with none held is not extended; past
    /// the limit no query is held; due queries come out once, earliest first.
    @Test func heldQueriesAreExtendedBoundedAndTakenInTimeOrder() {
        var queue = ResponseQueue()
        let more = Message(
            questions: [Question(name: DomainName("b.local.")!, type: .a)], answers: [record("k.local.")])
        let extendedNone = queue.extendHeldQuery(from: source(1), with: more)
        var held = queue.hold(query(at: start + .milliseconds(450)), from: source(1))
        held = queue.hold(query(at: start + .milliseconds(400)), from: source(2)) && held
        let extended = queue.extendHeldQuery(from: source(1), with: more)
        #expect(!extendedNone && held && extended)
        #expect(queue.nextDue == start + .milliseconds(400) && !queue.hasDue(at: start))
        for last in 3...UInt8(ResponseQueue.maximumHeldQueries) {
            held = queue.hold(query(at: start + .seconds(5)), from: source(last)) && held
        }
        let canHoldPastLimit = queue.canHoldQuery
        let heldPastLimit = queue.hold(query(at: start), from: source(200))
        #expect(held && !canHoldPastLimit && !heldPastLimit)
        let due = queue.takeDueQueries(at: start + .milliseconds(450))
        #expect(due.map(\.source) == [source(2), source(1)])
        #expect(due.last?.query.questions.count == 2 && due.last?.query.knownAnswers.count == 1)
        let dueAgain = queue.takeDueQueries(at: start + .milliseconds(450))
        let heldAfterTaking = queue.hold(query(at: start), from: source(200))
        #expect(dueAgain.isEmpty && heldAfterTaking)
    }

    /// However many packets bring them, the first included, a held query keeps at most
    /// ``ResponseQueue/maximumKnownAnswersPerQuery`` known answers.
    @Test func knownAnswersOfAHeldQueryAreBounded() {
        var queue = ResponseQueue()
        let limit = ResponseQueue.maximumKnownAnswersPerQuery
        let many = (0..<(limit - 1)).map { record("k\($0).local.") }
        let held = queue.hold(query(at: start, knownAnswers: many), from: source(1))
        let more = Message(answers: [record("x.local."), record("y.local.")])
        let extended = queue.extendHeldQuery(from: source(1), with: more)
        let tooMany = many + [record("x.local."), record("y.local.")]
        let heldLong = queue.hold(query(at: start, knownAnswers: tooMany), from: source(2))
        let due = queue.takeDueQueries(at: start)
        #expect(held && extended && heldLong)
        #expect(due.map(\.query.knownAnswers.count) == [limit, limit])
    }
}
