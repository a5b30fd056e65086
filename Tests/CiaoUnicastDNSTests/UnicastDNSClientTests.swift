import CiaoEngine
import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire
import Testing

private typealias S = FakeDNSServer

/// The stub resolver against replies built by hand, in virtual time: matching, retries over the
/// servers, TCP after TC, negative and positive caching, and hostile replies.
@Suite struct UnicastDNSClientTests {
    let name = Names.name("_http._tcp.lab.example.")
    let instance = Names.name("Printer._http._tcp.lab.example.")

    private func ptr(ttl: UInt32 = 120) -> ResourceRecord {
        ResourceRecord(name: name, ttl: ttl, data: .ptr(instance))
    }

    @Test func queryCarriesARandomIDRecursionDesiredAndEDNS() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        client.query(name, type: .ptr, at: .zero)
        let sent = client.takeTransmissions()
        #expect(sent.count == 2 && sent[0].attempt != sent[1].attempt)
        let messages = try sent.map { try Message.decode($0.message).message }
        #expect(messages[0].header.id != messages[1].header.id)
        #expect(messages[0].header.isRecursionDesired && !messages[0].header.isResponse)
        #expect(messages[0].questions == [Question(name: name, type: .ptr)])
        #expect(messages[0].additionals.first?.udpPayloadSize == 1232)
        #expect(sent[0].server == S.primary && sent[0].transport == .udp)
    }

    @Test func matchingReplyCompletesAndIsCached() throws {
        var client = S.client()
        let id = client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.receive(S.reply(to: sent.message, answers: [ptr()]), on: sent.attempt, from: S.primary, at: .seconds(1))
        let completion = try #require(client.takeCompletions().first)
        #expect(completion.query == id)
        let answer = try completion.result.get()
        #expect(answer.outcome == .records && answer.records.map(\.data) == [.ptr(instance)] && answer.ttl == 120)
        #expect(client.takeFinishedAttempts() == [sent.attempt])
        // From the cache 100 s later, the TTL counted down; no query goes out.
        client.query(Names.name("_HTTP._tcp.LAB.example."), type: .ptr, at: .seconds(101))
        #expect(client.takeTransmissions().isEmpty)
        #expect(try client.takeCompletions().first?.result.get().ttl == 20)
        client.query(name, type: .ptr, cacheUse: .none, at: .seconds(101))
        #expect(client.takeTransmissions().count == 1)
    }

    @Test func aRefreshAsksAgainOnlyWhatIsDue() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.receive(S.reply(to: sent.message, answers: [ptr()]), on: sent.attempt, from: S.primary, at: .seconds(1))
        _ = client.takeCompletions()
        // 88 s into its 120: not due, the cache answers (another instance's round, a shorter TTL's round)
        client.query(name, type: .ptr, cacheUse: .unlessDue, at: .seconds(89))
        #expect(client.takeTransmissions().isEmpty)
        #expect(try client.takeCompletions().first?.result.get().ttl == 32)
        // 90 s in, 75 % of it: due, the server is asked
        client.query(name, type: .ptr, cacheUse: .unlessDue, at: .seconds(91))
        #expect(client.takeTransmissions().count == 1)
    }

    @Test func repliesThatDoNotMatchAreIgnored() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        let good = S.reply(to: sent.message, answers: [ptr()])
        let request = try Message.decode(sent.message).message
        var otherQuestion = request
        otherQuestion.questions[0].type = .srv
        var notAResponse = try Message.decode(good).message
        notAResponse.header.flags &= 0x7FFF
        var opcode = try Message.decode(good).message
        opcode.header.flags |= 2 << 11
        let hostile: [[UInt8]] = [
            S.reply(to: sent.message, answers: [ptr()], id: request.header.id &+ 1),
            S.reply(to: try otherQuestion.encoded(), answers: [ptr()]),
            try notAResponse.encoded(), try opcode.encoded(), [1, 2, 3], Array(good.prefix(20)),
        ]
        for bytes in hostile { client.receive(bytes, on: sent.attempt, from: S.primary, at: .seconds(1)) }
        client.receive(good, on: sent.attempt, from: DNSServer(.ipv4(IPv4Address(198, 18, 0, 66))), at: .seconds(1))
        client.receive(good, on: Attempt(rawValue: 99), from: S.primary, at: .seconds(1))
        client.receive(
            good, on: sent.attempt, from: DNSServer(.ipv4(IPv4Address(198, 18, 0, 53)), port: 5353), at: .seconds(1))
        #expect(client.takeCompletions().isEmpty)
        #expect(client.ignoredReplies == hostile.count + 3)
        client.receive(good, on: sent.attempt, from: S.primary, at: .seconds(1))
        #expect(client.takeCompletions().count == 1)
    }

    @Test func timeoutsMoveOverTheServersThenFail() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        var servers: [DNSServer] = []
        var now = Duration.zero
        while client.pendingCount > 0 {
            servers += client.takeTransmissions().map(\.server)
            now = try #require(client.nextDeadline)
            client.advance(to: now)
        }
        #expect(servers == [S.primary, S.secondary, S.primary, S.secondary])
        #expect(now == .seconds(8))
        let result = try #require(client.takeCompletions().first).result
        #expect(throws: UnicastDNSError.timedOut(name: name, type: .ptr)) { try result.get() }
        #expect(client.takeFinishedAttempts().count == 4)
    }

    @Test func servfailStormEndsWithTheServersError() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        var tries = 0
        while let sent = client.takeTransmissions().first {
            tries += 1
            client.receive(S.reply(to: sent.message, rcode: 2), on: sent.attempt, from: sent.server, at: .zero)
        }
        #expect(tries == 4)
        let result = try #require(client.takeCompletions().first).result
        #expect(throws: UnicastDNSError.serverFailure(rcode: 2)) { try result.get() }
    }

    @Test func refusedGoesToTheNextServer() throws {
        var client = S.client(attempts: 1)
        client.query(name, type: .ptr, at: .zero)
        let first = try #require(client.takeTransmissions().first)
        client.receive(S.reply(to: first.message, rcode: 5), on: first.attempt, from: S.primary, at: .zero)
        let second = try #require(client.takeTransmissions().first)
        #expect(second.server == S.secondary)
        client.receive(S.reply(to: second.message, answers: [ptr()]), on: second.attempt, from: S.secondary, at: .zero)
        #expect(try client.takeCompletions().first?.result.get().records.count == 1)
    }

    @Test func truncatedReplyIsRetriedOverTCPOnce() throws {
        var client = S.client(servers: [S.primary], attempts: 1)
        client.query(name, type: .ptr, at: .zero)
        let udp = try #require(client.takeTransmissions().first)
        client.receive(S.reply(to: udp.message, truncated: true), on: udp.attempt, from: S.primary, at: .zero)
        let tcp = try #require(client.takeTransmissions().first)
        #expect(tcp.transport == .tcp && tcp.server == S.primary && tcp.attempt != udp.attempt)
        #expect(try Message.decode(tcp.message).message.header.id != Message.decode(udp.message).message.header.id)
        client.receive(S.reply(to: tcp.message, truncated: true), on: tcp.attempt, from: S.primary, at: .zero)
        let result = try #require(client.takeCompletions().first).result
        #expect(throws: UnicastDNSError.truncatedOverTCP) { try result.get() }
    }

    @Test func largeTCPReplyIsAccepted() throws {
        var client = S.client(servers: [S.primary], attempts: 1)
        client.query(name, type: .ptr, at: .zero)
        let udp = try #require(client.takeTransmissions().first)
        client.receive(S.reply(to: udp.message, truncated: true), on: udp.attempt, from: S.primary, at: .zero)
        let tcp = try #require(client.takeTransmissions().first)
        let many = (0..<600).map { index in
            ResourceRecord(
                name: name, ttl: 120, data: .ptr(Names.name("Service number \(index)._http._tcp.lab.example.")))
        }
        let bytes = S.reply(to: tcp.message, answers: many)
        #expect(bytes.count > 9000)
        client.receive(bytes, on: tcp.attempt, from: S.primary, at: .zero)
        #expect(try client.takeCompletions().first?.result.get().records.count == 600)
    }

    /// The SOA of a negative answer is kept with it, its TTL the negative TTL, counting down in
    /// the cache; an SOA of a zone the name is not in is not the answer's.
    @Test func nxdomainAndNodataAreCachedForTheSOAMinimum() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.receive(
            S.reply(to: sent.message, rcode: 3, authorities: [S.soa("lab.example.", minimum: 30)]), on: sent.attempt,
            from: S.primary, at: .zero)
        let answer = try #require(try client.takeCompletions().first?.result.get())
        #expect(answer.outcome == .nameError && answer.ttl == 30)
        #expect(answer.soa?.type == .soa && answer.soa?.name == Names.name("lab.example.") && answer.soa?.ttl == 30)
        client.query(name, type: .ptr, at: .seconds(29))
        #expect(client.takeTransmissions().isEmpty)
        let cached = try #require(try client.takeCompletions().first?.result.get())
        #expect(cached.outcome == .nameError && cached.soa?.ttl == 1)
        client.query(name, type: .ptr, at: .seconds(30))
        let again = try #require(client.takeTransmissions().first)
        client.receive(
            S.reply(to: again.message, authorities: [S.soa("other.example.", minimum: 30)]), on: again.attempt,
            from: S.primary, at: .seconds(30))
        let nodata = try #require(try client.takeCompletions().first?.result.get())
        #expect(nodata.outcome == .noData && nodata.ttl == 0 && nodata.soa == nil)
    }

    @Test func cnameChainIsFollowedInsideTheReplyOnlyAndBounded() throws {
        let host = Names.name("printer.lab.example.")
        func chain(_ length: Int, loop: Bool = false) -> [ResourceRecord] {
            (0..<length).map { index in
                let next = loop && index == length - 1 ? host : Names.name("alias\(index + 1).lab.example.")
                return ResourceRecord(
                    name: index == 0 ? host : Names.name("alias\(index).lab.example."), ttl: 60,
                    data: .canonicalName(next))
            }
        }
        let address = IPv4Address(198, 18, 0, 7)
        func resolve(_ answers: [ResourceRecord]) throws -> DNSAnswer {
            var client = S.client()
            client.query(host, type: .a, at: .zero)
            let sent = try #require(client.takeTransmissions().first)
            client.receive(S.reply(to: sent.message, answers: answers), on: sent.attempt, from: S.primary, at: .zero)
            return try #require(try client.takeCompletions().first?.result.get())
        }
        let outside = ResourceRecord(name: Names.name("victim.example."), ttl: 60, data: .a(IPv4Address(192, 0, 2, 1)))
        let short = try resolve(
            chain(3) + [outside, ResourceRecord(name: Names.name("alias3.lab.example."), ttl: 60, data: .a(address))])
        #expect(
            short.records.map(\.data) == [.a(address)] && short.records[0].name == Names.name("alias3.lab.example."))
        let long = try resolve(
            chain(12) + [ResourceRecord(name: Names.name("alias12.lab.example."), ttl: 60, data: .a(address))])
        #expect(long.outcome == .noData)
        #expect(try resolve(chain(4, loop: true)).outcome == .noData)
        #expect(try resolve([outside]).outcome == .noData)
    }

    /// ANY takes every record at the name, of whatever types the server chose to give
    /// (RFC 8482), and no record of another name.
    @Test func anyTakesEveryRecordAtTheName() throws {
        let host = Names.name("printer.lab.example.")
        var client = S.client()
        client.query(host, type: .any, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        let records = [
            ResourceRecord(name: host, ttl: 60, data: .a(IPv4Address(198, 18, 0, 7))),
            ResourceRecord(name: host, ttl: 60, data: .txt(try TXTData(strings: [Array("x".utf8)]))),
            ResourceRecord(name: Names.name("other.lab.example."), ttl: 60, data: .a(IPv4Address(198, 18, 0, 8))),
        ]
        client.receive(S.reply(to: sent.message, answers: records), on: sent.attempt, from: S.primary, at: .zero)
        let answer = try #require(try client.takeCompletions().first?.result.get())
        #expect(answer.outcome == .records && answer.records == Array(records.prefix(2)))
    }

    @Test func hugeTTLIsCapped() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.receive(
            S.reply(to: sent.message, answers: [ptr(ttl: .max)]), on: sent.attempt, from: S.primary, at: .zero)
        let answer = try #require(try client.takeCompletions().first?.result.get())
        #expect(answer.ttl == 3600 && answer.records[0].ttl == 3600)
        client.query(name, type: .ptr, at: .seconds(3600))
        #expect(client.takeTransmissions().count == 1)
    }

    @Test func noServersAndTooManyQueriesFailAtOnce() throws {
        var none = S.client(servers: [])
        none.query(name, type: .ptr, at: .zero)
        #expect(throws: UnicastDNSError.noServers) { try none.takeCompletions().first?.result.get() }
        var client = S.client()
        for index in 0...UnicastDNSClient<SplitMix64>.maximumPendingQueries {
            client.query(Names.name("n\(index).lab.example."), type: .a, at: .zero)
        }
        #expect(client.pendingCount == 1024)
        #expect(throws: UnicastDNSError.tooManyQueries(limit: 1024)) {
            try client.takeCompletions().first?.result.get()
        }
    }

    @Test func cancelFinishesTheAttemptSilently() throws {
        var client = S.client()
        let id = client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.cancel(id)
        #expect(client.takeFinishedAttempts() == [sent.attempt])
        client.receive(S.reply(to: sent.message, answers: [ptr()]), on: sent.attempt, from: S.primary, at: .zero)
        #expect(client.takeCompletions().isEmpty && client.nextDeadline == nil)
    }

    @Test func failedSocketMovesOnAtOnce() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let sent = try #require(client.takeTransmissions().first)
        client.attemptFailed(sent.attempt, because: "refused", at: .seconds(1))
        #expect(client.takeTransmissions().first?.server == S.secondary)
    }

    @Test func aQuestionWhoseSocketsAllFailSaysWhy() throws {
        var client = S.client()
        client.query(name, type: .ptr, at: .zero)
        let reason = "receive from the DNS server 198.18.0.1:53 failed: Connection refused"
        var attempts = 0
        while let sent = client.takeTransmissions().first {
            attempts += 1
            client.attemptFailed(sent.attempt, because: reason, at: .seconds(1))
        }
        #expect(attempts > 1)
        #expect(throws: UnicastDNSError.unreachable(reason)) { try client.takeCompletions().first?.result.get() }
        #expect(
            UnicastDNSError.unreachable(reason).description
                == "\(reason); check that the servers are reachable (resolv.conf or --server)")
    }
}
