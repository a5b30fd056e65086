import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Testing

/// Answering queries: timing, aggregation, rate limits, unicast, legacy unicast, NSEC, known-answer
/// and duplicate-answer suppression, additional records (RFC 6762 §5.4, §6, §7; RFC 6763 §12).
@Suite struct ResponderAnsweringTests {
    typealias Fixture = (
        network: SimulatedNetwork, link: SimulatedNetwork.LinkID, publisher: SimulatedNetwork.HostID,
        observer: SimulatedNetwork.HostID
    )

    static let web = Names.instance("Web")
    static let alpha = Names.name("alpha.local.")

    /// A publisher `alpha` with `Web._ciao._tcp` established, and an observer; links delay 1 ms.
    static func established(seed: UInt64 = 1, services: [String] = ["Web"]) -> Fixture {
        var fixture = SimulatedNetwork.publisherAndObserver(seed: seed)
        for service in services {
            fixture.network.withStack(fixture.publisher) { engine, now in
                _ = engine.register(Services.registration(service), at: now)
            }
        }
        // Past probing and all announcements, and then some, so nothing was multicast in the last second.
        fixture.network.run(for: .seconds(8))
        return fixture
    }

    // MARK: Timing and aggregation (§6)

    /// Shared answers (PTR) go out 20–120 ms after the query arrives.
    @Test func sharedAnswersAreDelayedTwentyToOneHundredTwentyMilliseconds() throws {
        var delays: [Duration] = []
        for seed in UInt64(1)...40 {
            var (network, link, publisher, observer) = Self.established(seed: seed)
            let arrival = network.now + .milliseconds(1)
            network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
            network.run(for: .seconds(1))
            let responses = network.sentMessages(.responses, by: publisher, since: arrival)
            try #require(responses.count == 1, "seed \(seed)")
            #expect(responses[0].isMulticast && responses[0].answers(Names.serviceType, .ptr))
            delays.append(responses[0].time - arrival)
        }
        #expect(delays.allSatisfy { $0 >= .milliseconds(20) && $0 <= .milliseconds(120) }, "\(delays)")
        // Random, not fixed.
        #expect(Set(delays).count > 30)
        #expect(delays.contains { $0 < .milliseconds(50) } && delays.contains { $0 > .milliseconds(90) })
    }

    /// Two queries arriving close together get one aggregated response.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func queriesArrivingTogetherGetOneResponse(seed: UInt64) throws {
        var (network, link, publisher, observer) = Self.established(seed: seed)
        let first = network.now + .milliseconds(1)
        network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
        network.run(for: .milliseconds(10))
        network.inject(Messages.query([Messages.question(Names.servicesName, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let responses = network.sentMessages(.responses, by: publisher, since: first)
        try #require(responses.count == 1)
        #expect(responses[0].answers(Names.serviceType, .ptr) && responses[0].answers(Names.servicesName, .ptr))
        // Each answer goes 20–120 ms after its own query at the earliest: the first one's may
        // wait for the second's (aggregation, at most 500 ms more).
        let second = first + .milliseconds(10)
        #expect(responses[0].time - second >= .milliseconds(20) && responses[0].time - second <= .milliseconds(120))
    }

    /// A question only unique records answer (SRV) is answered at once.
    @Test func uniqueAnswersAreSentAtOnce() throws {
        var (network, link, publisher, observer) = Self.established()
        let arrival = network.now + .milliseconds(1)
        network.inject(Messages.query([Messages.question(Self.web, .srv)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let responses = network.sentMessages(.responses, by: publisher, since: arrival)
        try #require(responses.count == 1)
        #expect(responses[0].time == arrival)
        #expect(responses[0].isMulticast)
        #expect(responses[0].message.answers.map(\.type) == [.srv])
        #expect(responses[0].message.answers[0].cacheFlush)
        // SRV answers carry the host's addresses (RFC 6763 §12.2).
        #expect(
            Set(responses[0].message.additionals.filter { $0.name == Self.alpha }.map(\.type)).isSuperset(of: [
                .a, .aaaa,
            ]))
    }

    /// A querier asking again and again: no record is multicast twice within one second (§6).
    @Test func noRecordIsMulticastTwiceWithinOneSecond() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        for _ in 0..<100 {
            network.inject(
                Messages.query([
                    Messages.question(Names.serviceType, .ptr), Messages.question(Self.web, .srv),
                    Messages.question(Self.web, .txt), Messages.question(Self.alpha, .a),
                ]), from: observer, on: link)
            network.run(for: .milliseconds(50))
        }
        let responses = network.sentMessages(.responses, by: publisher, since: start).filter { $0.isMulticast }
        // About one response a second (shared and unique answers to one query go together).
        #expect(responses.count >= 4)
        var last: [ResourceRecord: Instant] = [:]
        var answered: Set<RecordType> = []
        for response in responses {
            for var record in response.message.answers {
                answered.insert(record.type)
                record.ttl = 0
                if let previous = last[record] {
                    #expect(response.time - previous >= .seconds(1), "\(record) at \(previous) and \(response.time)")
                }
                last[record] = response.time
            }
        }
        #expect(answered == [.ptr, .srv, .txt, .a])
    }

    /// A querier that lost our answer asks again a second after its first query, less than a
    /// second after our answer: the once-a-second rule (§6) holds the answer back until its
    /// second has passed, then sends it, instead of leaving the querier to its next query. The
    /// same for a query whose known answers span packets (TC), answered 400–500 ms after its first
    /// packet: what went out before that packet and is not among its known answers is held back.
    @Test(arguments: [false, true])
    func aQueryMissingARecentAnswerGetsItOnceTheSecondHasPassed(truncated: Bool) throws {
        var (network, link, publisher, observer) = Self.established()
        let other = network.addHost(named: nil, links: [link])
        network.run(for: .seconds(2))
        let start = network.now
        let question = Messages.question(Names.serviceType, .ptr)
        network.inject(Messages.query([question]), from: other, on: link)
        network.run(for: .milliseconds(truncated ? 300 : 900))
        let first = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.answers(Names.serviceType, .ptr)
        }
        try #require(first.count == 1)
        let asked = network.now
        network.inject(Messages.query([question], truncated: truncated), from: observer, on: link)
        network.run(for: .seconds(2))
        let second = network.sentMessages(.responses, by: publisher, since: asked).filter {
            $0.answers(Names.serviceType, .ptr)
        }
        try #require(second.count == 1, "the query went unanswered")
        #expect(second[0].time - first[0].time == .seconds(1))
        #expect(second[0].isMulticast)
    }

    /// A TXT update while an answer with the old TXT is held back: the old TXT is not sent after
    /// the new one, which would leave both in caches (§10.2).
    @Test func aHeldBackAnswerReplacedMeanwhileIsNotSent() throws {
        var (network, link, publisher, observer) = Self.established(services: [])
        let id = network.withStack(publisher) { engine, now in engine.register(Services.registration("Web"), at: now) }
        network.run(for: .seconds(8))
        let question = Messages.question(Self.web, .txt)
        network.inject(Messages.query([question]), from: observer, on: link)
        network.run(for: .milliseconds(500))
        network.inject(Messages.query([question]), from: observer, on: link)
        network.run(for: .milliseconds(200))
        let updated = network.now
        let newTXT = Services.txt(["v=2"])
        network.withStack(publisher) { engine, now in engine.updateTXT(id, to: newTXT, at: now) }
        network.run(for: .seconds(3))
        let txts = network.sentMessages(.responses, by: publisher, since: updated).flatMap {
            $0.message.answers.filter { $0.type == .txt }
        }
        #expect(!txts.isEmpty, "the update is announced")
        #expect(txts.allSatisfy { $0.data == .txt(newTXT) }, "\(txts)")
    }

    /// A query with a known-answer list in several packets (TC) is answered 400–500 ms after its
    /// first packet; an answer multicast meanwhile, for another querier, reached it too, so the
    /// once-a-second rule drops it from this query's answer rather than holding it back.
    @Test func anAnswerMulticastSinceTheQueryCameIsNotSentAgain() throws {
        var (network, link, publisher, observer) = Self.established()
        let other = network.addHost(named: nil, links: [link])
        network.run(for: .seconds(2))
        let start = network.now
        let question = Messages.question(Names.serviceType, .ptr)
        network.inject(Messages.query([question], truncated: true), from: observer, on: link)
        network.run(for: .milliseconds(10))
        network.inject(Messages.query([question]), from: other, on: link)
        network.run(for: .seconds(3))
        let responses = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.answers(Names.serviceType, .ptr)
        }
        #expect(responses.count == 1, "\(responses.map(\.time))")
    }

    /// Probe defence may repeat after 250 ms, not sooner (§6, §8.1).
    @Test func probeDefenceIsLimitedToEvery250Milliseconds() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        let proposal = Services.conflictingSRV(for: Self.web)
        for _ in 0..<20 {
            var probe = Messages.query([Messages.question(Self.web, .any)])
            probe.authorities = [proposal]
            network.inject(probe, from: observer, on: link)
            network.run(for: .milliseconds(100))
        }
        let defences = network.sentMessages(.responses, by: publisher, since: start).filter {
            $0.isMulticast && $0.answers(Self.web, .srv)
        }
        let gaps = zip(defences.dropFirst(), defences).map { $0.time - $1.time }
        #expect(defences.count >= 6)
        #expect(gaps.allSatisfy { $0 >= .milliseconds(250) }, "\(gaps)")
        #expect(gaps.contains { $0 < .seconds(1) })
        #expect(!network.events(of: publisher).contains { if case .renamed = $0 { true } else { false } })
    }

    // MARK: Unicast (§5.4, §6.7, §11)

    /// Legacy unicast (source port ≠ 5353): a unicast reply to that port echoing the ID and the
    /// question, without cache-flush bits, TTLs at most 10 s; nothing multicast.
    @Test(arguments: [false, true])
    func legacyUnicastQueriesGetALegacyReply(sentToTheGroup: Bool) throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        let question = Messages.question(Names.serviceType, .ptr)
        network.inject(
            Messages.query([question], id: 0x4A7B), from: observer, on: link, port: 40_000,
            to: sentToTheGroup ? nil : publisher)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        let reply = sent[0]
        #expect(
            reply.destination
                == .unicast(SocketAddress(network.address(of: observer, on: link, family: .v4), port: 40_000)))
        #expect(reply.isResponse)
        #expect(reply.time == start + .milliseconds(1))
        #expect(reply.message.header.id == 0x4A7B)
        #expect(reply.message.questions == [question])
        #expect(reply.answers(Names.serviceType, .ptr))
        #expect(!reply.message.additionals.isEmpty)
        for record in reply.message.answers + reply.message.additionals {
            #expect(!record.cacheFlush && record.ttl <= 10 && record.ttl > 0, "\(record)")
        }
        // The observer received exactly that.
        #expect(network.receivedMessages(by: observer).contains { !$0.isMulticast })
    }

    /// dig's queries for `_ciao._tcp.local.` PTR, as captured (CiaoWireTests'
    /// Captures/dig-query-1.bin and dig-query-edns-1.bin): without EDNS, and with an OPT record
    /// offering 1232 bytes and a cookie.
    static let digQuery: [UInt8] = [
        0xAA, 0x60, 0x01, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x5F, 0x63, 0x69, 0x61, 0x6F,
        0x04, 0x5F, 0x74, 0x63, 0x70, 0x05, 0x6C, 0x6F, 0x63, 0x61, 0x6C, 0x00, 0x00, 0x0C, 0x00, 0x01,
    ]
    static let digQueryWithEDNS: [UInt8] = [
        0x97, 0x65, 0x01, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x05, 0x5F, 0x63, 0x69, 0x61, 0x6F,
        0x04, 0x5F, 0x74, 0x63, 0x70, 0x05, 0x6C, 0x6F, 0x63, 0x61, 0x6C, 0x00, 0x00, 0x0C, 0x00, 0x01, 0x00, 0x00,
        0x29, 0x04, 0xD0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x00, 0x0A, 0x00, 0x08, 0xC5, 0xCC, 0xE9, 0xC4, 0x0A,
        0x37, 0x72, 0xDC,
    ]

    /// A legacy reply is one datagram of the size the querier takes (§6.7, RFC 1035 §4.2.1,
    /// RFC 6891 §6.2.5). With 25 services, dig without EDNS gets 512 bytes with TC set, since
    /// not all the answers fit; with EDNS it gets all 25 in at most 1232 bytes, and an OPT record.
    @Test(arguments: [false, true])
    func legacyReplyIsOneDatagramOfTheSizeTheQuerierTakes(edns: Bool) throws {
        let services = (1...25).map { "Service number \($0)" }
        var (network, link, publisher, observer) = Self.established(services: services)
        let start = network.now
        network.inject(edns ? Self.digQueryWithEDNS : Self.digQuery, from: observer, on: link, port: 56_278)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1, "one datagram, not \(sent.count)")
        let reply = sent[0]
        #expect(reply.message.header.id == (edns ? 0x9765 : 0xAA60))
        #expect(reply.message.answers.allSatisfy { $0.type == .ptr && $0.ttl <= 10 && !$0.cacheFlush })
        let size = try reply.message.encoded().count
        if edns {
            #expect(size <= 1232)
            #expect(!reply.message.header.isTruncated)
            #expect(reply.message.answers.count == 25)
            #expect(reply.message.additionals.compactMap(\.udpPayloadSize) == [1440], "our own size, RFC 6891 §7")
        } else {
            #expect(size <= 512)
            #expect(reply.message.header.isTruncated, "answers left out (RFC 2181 §9)")
            #expect(reply.message.answers.count < 25)
            #expect(reply.message.additionals.allSatisfy { $0.type != .opt })
        }
    }

    /// EDNS cases beyond dig's (RFC 6891): an OPT offering only 512 bytes still gets one back in
    /// the truncated reply (§7); two OPT records get FORMERR (§6.1.1) and a version-1 OPT gets
    /// BADVERS (§6.1.3), without answers.
    @Test(arguments: ["512", "two OPT", "version 1"])
    func legacyReplyFollowsEDNSRules(edns: String) throws {
        let services = (1...25).map { "Service number \($0)" }
        var (network, link, publisher, observer) = Self.established(services: services)
        let start = network.now
        var query = Messages.query([Messages.question(Names.serviceType, .ptr)], id: 0x0BAD)
        var option = ResourceRecord.opt(udpPayloadSize: 512)
        if edns == "version 1" { option.ttl = 0x0001_0000 }
        query.additionals = edns == "two OPT" ? [option, option] : [option]
        network.inject(query, from: observer, on: link, port: 40_000)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        let reply = sent[0].message
        #expect(reply.header.id == 0x0BAD)
        #expect(try reply.encoded().count <= 512)
        switch edns {
        case "512":
            #expect(reply.header.isTruncated && reply.header.rcode == 0 && !reply.answers.isEmpty)
            #expect(reply.additionals.compactMap(\.udpPayloadSize) == [1440])
        case "two OPT":
            #expect(reply.header.rcode == 1 && reply.answers.isEmpty && reply.additionals.isEmpty)
        default:
            #expect(reply.header.rcode == 0 && reply.answers.isEmpty)
            #expect(reply.additionals.map(\.ttl) == [0x0100_0000], "BADVERS, version 0")
        }
    }

    /// A QU question for records multicast recently (within a quarter of their TTL) gets a
    /// unicast reply, at once even for shared records (§5.4).
    @Test func quQuestionGetsAUnicastReply() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(
            Messages.query([Messages.question(Names.serviceType, .ptr, qu: true)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        #expect(
            sent[0].destination
                == .unicast(SocketAddress(network.address(of: observer, on: link, family: .v4), port: mdnsPort)))
        #expect(sent[0].answers(Names.serviceType, .ptr))
        #expect(sent[0].message.header.id == 0)
        #expect(sent[0].message.answers.allSatisfy { $0.ttl == 4500 })
    }

    /// A QU question from one of the responder's own addresses comes from another stack on this
    /// host, which may not be handed a unicast reply to the port both share (§15.1): it is
    /// answered by multicast, after the shared delay.
    @Test func quQuestionFromThisHostIsMulticast() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        let own = network.address(of: publisher, on: link, family: .v4)
        network.inject(
            Messages.query([Messages.question(Names.serviceType, .ptr, qu: true)]), from: observer, on: link,
            sourceAddress: own)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        #expect(sent[0].isMulticast && sent[0].answers(Names.serviceType, .ptr))
        #expect(sent[0].time - start >= .milliseconds(20))
    }

    /// …but a QU question for a record not multicast within a quarter of its TTL is answered by
    /// multicast, to refresh every cache (§5.4).
    @Test func quQuestionForAStaleRecordIsMulticast() throws {
        var (network, link, publisher, observer) = Self.established()
        network.run(for: .seconds(40))  // SRV TTL 120: a quarter is 30 s
        let start = network.now
        network.inject(Messages.query([Messages.question(Self.web, .srv, qu: true)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        #expect(sent[0].isMulticast && sent[0].answers(Self.web, .srv))
    }

    /// A direct unicast query to port 5353 from an on-link address is answered by unicast.
    @Test func directUnicastQueryGetsAUnicastReply() throws {
        var (network, link, publisher, observer) = Self.established()
        network.run(for: .seconds(40))
        let start = network.now
        network.inject(Messages.query([Messages.question(Self.web, .srv)]), from: observer, on: link, to: publisher)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        try #require(sent.count == 1)
        #expect(!sent[0].isMulticast && sent[0].answers(Self.web, .srv))
    }

    /// A unicast query from an off-link source gets no answer at all (§11, CERT VU#550620); nor
    /// does any query that would need a unicast reply to an off-link address.
    @Test(arguments: [
        (UInt16(5353), true, false), (40_000, true, false), (5353, false, true), (40_000, false, false),
        (5353, false, false),
    ])
    func offLinkSourcesGetNoUnicastAnswer(port: UInt16, unicast: Bool, qu: Bool) throws {
        var (network, link, publisher, observer) = Self.established()
        network.run(for: .seconds(1))
        let start = network.now
        let offLink = IPAddress.v4(IPv4Address(203, 0, 113, 5))
        network.inject(
            Messages.query([Messages.question(Self.web, .srv, qu: qu)], id: 7), from: observer, on: link,
            port: port, sourceAddress: offLink, to: unicast ? publisher : nil)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, family: nil, since: start)
        #expect(!sent.contains { !$0.isMulticast }, "\(sent.map(\.destination))")
        if unicast { #expect(sent.isEmpty) }
    }

    // MARK: NSEC (§6.1)

    /// An IPv4-only host asked for AAAA answers with an NSEC that lists only A.
    @Test func absentAddressFamilyGetsNSEC() throws {
        var network = SimulatedNetwork(seed: 4)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        let observer = network.addHost(named: nil, links: [link])
        let v4 = SimulatedNetwork.interface(for: publisher, on: link).addresses.filter { $0.address.family == .v4 }
        network.setAddresses(v4, of: publisher, on: link)
        network.register(Services.registration("Web"), on: publisher)
        network.run(for: .seconds(8))
        let start = network.now
        network.inject(Messages.query([Messages.question(Self.alpha, .aaaa)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, family: nil, since: start)
        try #require(sent.count == 1)
        #expect(sent[0].time == start + .milliseconds(1))
        let answers = sent[0].message.answers
        try #require(answers.count == 1)
        #expect(answers[0].name == Self.alpha && answers[0].cacheFlush)
        guard case .nsec(let nsec) = answers[0].data else {
            Issue.record("not NSEC: \(answers[0])")
            return
        }
        #expect(nsec.nextDomainName == Self.alpha)
        #expect(nsec.types.contains(.a) && !nsec.types.contains(.aaaa))
        #expect(!sent[0].allRecords.contains { $0.type == .aaaa })
        // The host never sent anything over IPv6 after losing its IPv6 address.
        #expect(network.sentMessages(by: publisher, family: .v6, since: .zero + .milliseconds(1)).isEmpty)
    }

    /// A name we do not own gets no NSEC and no answer.
    @Test func unknownNamesGetNoAnswer() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(
            Messages.query([
                Messages.question(Names.name("beta.local."), .aaaa),
                Messages.question(Names.instance("Other"), .srv),
            ]), from: observer, on: link)
        network.run(for: .seconds(1))
        #expect(network.sentMessages(by: publisher, family: nil, since: start).isEmpty)
    }

    // MARK: Known-answer suppression (§7.1, §7.2)

    /// A query listing our PTR with (at least half) its TTL gets no PTR answer; with less than
    /// half it does.
    @Test(arguments: [(UInt32(4500), false), (2250, false), (2249, true), (100, true)])
    func knownAnswersSuppressOurAnswer(ttl: UInt32, answered: Bool) throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(
            Messages.query(
                [Messages.question(Names.serviceType, .ptr)],
                knownAnswers: [Services.ptr(to: Self.web, ttl: ttl)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, family: nil, since: start)
        #expect(sent.contains { $0.answers(Names.serviceType, .ptr) } == answered)
    }

    /// Known answers that span packets (TC): the answer is held 400–500 ms, and the known answer
    /// in the follow-up packet suppresses it.
    @Test(arguments: [UInt64(1), 2, 3])
    func truncatedQueryWaitsForTheRestOfItsKnownAnswers(seed: UInt64) throws {
        // Without a follow-up: answered 400–500 ms later.
        var (network, link, publisher, observer) = Self.established(seed: seed, services: ["Web", "Printer"])
        var start = network.now
        let question = Messages.question(Names.serviceType, .ptr)
        network.inject(
            Messages.query([question], knownAnswers: [Services.ptr(to: Names.instance("Other"))], truncated: true),
            from: observer, on: link)
        network.run(for: .seconds(1))
        var responses = network.sentMessages(.responses, by: publisher, since: start)
        try #require(responses.count == 1)
        let delay = responses[0].time - (start + .milliseconds(1))
        #expect(delay >= .milliseconds(400) && delay <= .milliseconds(500), "\(delay)")
        #expect(responses[0].answers(Names.serviceType, .ptr))

        // With a follow-up listing one of our PTRs: only the other is answered.
        network.run(for: .seconds(2))
        start = network.now
        network.inject(Messages.query([question], truncated: true), from: observer, on: link)
        network.run(for: .milliseconds(30))
        network.inject(Messages.query([], knownAnswers: [Services.ptr(to: Self.web)]), from: observer, on: link)
        network.run(for: .seconds(1))
        responses = network.sentMessages(.responses, by: publisher, since: start)
        try #require(responses.count == 1)
        #expect(responses[0].time - start >= .milliseconds(400))
        let ptrs = responses[0].message.answers.filter { $0.type == .ptr && $0.name == Names.serviceType }
        #expect(ptrs.map(\.data) == [.ptr(Names.instance("Printer"))])

        // And with both known: nothing at all.
        network.run(for: .seconds(2))
        start = network.now
        network.inject(
            Messages.query([question], knownAnswers: [Services.ptr(to: Self.web)], truncated: true),
            from: observer, on: link)
        network.run(for: .milliseconds(30))
        network.inject(
            Messages.query([], knownAnswers: [Services.ptr(to: Names.instance("Printer"))]), from: observer,
            on: link)
        network.run(for: .seconds(1))
        #expect(network.sentMessages(by: publisher, family: nil, since: start).isEmpty)
    }

    // MARK: Duplicate answer suppression (§7.4)

    /// If another host multicasts the same answer (with a TTL at least ours) before our delayed
    /// answer goes out, ours is not sent; a lower TTL does not count.
    @Test(arguments: [(UInt32(4500), false), (9000, false), (4499, true), (2250, true)])
    func duplicateAnswersAreSuppressed(ttl: UInt32, sent expected: Bool) throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
        network.run(for: .milliseconds(5))
        network.inject(
            Messages.response([Services.ptr(to: Self.web, ttl: ttl)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let sent = network.sentMessages(by: publisher, since: start)
        #expect(sent.contains { $0.answers(Names.serviceType, .ptr) } == expected)
    }

    /// Two publishers of the same service type share the `_services._dns-sd._udp` PTR: asked for it,
    /// only one of them sends it.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func sharedRecordOfTwoHostsIsSentOnce(seed: UInt64) throws {
        var (network, link, alpha, beta) = SimulatedNetwork.alphaAndBeta(seed: seed)
        let observer = network.addHost(named: nil, links: [link])
        network.withStack(alpha) { engine, now in _ = engine.register(Services.registration("A"), at: now) }
        network.withStack(beta) { engine, now in _ = engine.register(Services.registration("B"), at: now) }
        network.run(for: .seconds(8))
        let start = network.now
        network.inject(Messages.query([Messages.question(Names.servicesName, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let responses = (network.sentMessages(by: alpha, since: start) + network.sentMessages(by: beta, since: start))
            .filter(
                \.isResponse)
        let times = responses.map(\.time).sorted()
        // Unless both picked delays within the 1 ms link delay of each other, one answer only.
        if times.count == 2 { #expect(times[1] - times[0] <= .milliseconds(1)) } else { #expect(times.count == 1) }
    }

    // MARK: Additional records (RFC 6763 §12)

    /// PTR answers carry SRV, TXT, A, AAAA and the host's NSEC as additional records; the
    /// instance's NSEC would only repeat that it has an SRV and a TXT (a MAY of RFC 6762 §6.1).
    @Test func ptrAnswersCarryTheServiceAndAddressesAsAdditionals() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(Messages.query([Messages.question(Names.serviceType, .ptr)]), from: observer, on: link)
        network.run(for: .seconds(1))
        let response = try #require(network.sentMessages(by: publisher, since: start).first(where: { $0.isResponse }))
        #expect(response.message.answers.map(\.type) == [.ptr])
        let additionals = response.message.additionals
        #expect(Set(additionals.filter { $0.name == Self.web }.map(\.type)) == [.srv, .txt])
        #expect(Set(additionals.filter { $0.name == Self.alpha }.map(\.type)) == [.a, .aaaa, .nsec])
        #expect(additionals.allSatisfy { $0.cacheFlush })
        // No record twice.
        #expect(Set(additionals).count == additionals.count)
    }

    /// Two questions with an answer in common (A, and ANY, for the host name) get it once
    /// (RFC 6762 §6: a record is not repeated in a response), and the additional records then
    /// hold what the answers do not: the NSEC for the name.
    @Test func answersSharedByTwoQuestionsAreSentOnce() throws {
        var (network, link, publisher, observer) = Self.established()
        let start = network.now
        network.inject(
            Messages.query([Messages.question(Self.alpha, .a), Messages.question(Self.alpha, .any)]), from: observer,
            on: link)
        network.run(for: .seconds(1))
        let response = try #require(network.sentMessages(by: publisher, since: start).first(where: { $0.isResponse }))
        let answers = response.message.answers
        #expect(answers.map(\.type).sorted() == [.a, .aaaa].sorted())
        #expect(response.message.additionals.map(\.type) == [.nsec])
    }

    /// An instance named by two answers of one response (a query for its type and one of its
    /// subtypes) has its SRV and TXT once among the additional records; an instance whose SRV is
    /// itself an answer has only its TXT there; the host's records go once (RFC 6762 §6: a
    /// record is not repeated in a response).
    @Test func additionalRecordsAreNotRepeatedForAnInstanceAnsweredTwice() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 1)
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("Printer", subtypes: ["_color"]), at: now)
            _ = engine.register(Services.registration("Web"), at: now)
        }
        network.run(for: .seconds(8))
        let subtype = try DomainName(labels: ["_color", "_sub"]).appending(Names.serviceType)
        let printerName = Names.instance("Printer")
        func response(to questions: [Question]) throws -> Message {
            let start = network.now
            network.inject(Messages.query(questions), from: observer, on: link)
            network.run(for: .seconds(2))
            let responses = network.sentMessages(.responses, by: publisher, since: start).map(\.message)
            return try #require(responses.first { $0.answers.contains { $0.type == .ptr } })
        }
        // Answers that are all PTRs.
        let bothPTRs = try response(to: [
            Messages.question(Names.serviceType, .ptr), Messages.question(subtype, .ptr),
        ])
        #expect(bothPTRs.answers.filter { $0.data == .ptr(printerName) }.count == 2, "type and subtype PTR")
        #expect(bothPTRs.additionals.filter { $0.name == printerName }.map(\.type).sorted() == [.srv, .txt].sorted())
        #expect(
            bothPTRs.additionals.filter { $0.name == Self.alpha }.map(\.type).sorted() == [.a, .aaaa, .nsec].sorted())
        // An SRV among the answers.
        let withSRV = try response(to: [
            Messages.question(Names.serviceType, .ptr), Messages.question(Self.web, .srv),
        ])
        #expect(withSRV.answers.contains { $0.name == Self.web && $0.type == .srv })
        #expect(withSRV.additionals.filter { $0.name == Self.web }.map(\.type) == [.txt], "the SRV is an answer")
        #expect(
            withSRV.additionals.filter { $0.name == Self.alpha }.map(\.type).sorted() == [.a, .aaaa, .nsec].sorted())
    }

    /// An instance named by several answers of a response split into packets (its type and two
    /// subtypes), once in the first packet and twice in the second, which two large instances
    /// force apart: each packet carries the SRV and TXT of every instance it names, once.
    @Test func anInstanceNamedTwiceInALaterPacketHasItsRecordsThereOnce() throws {
        var (network, link, publisher, observer) = SimulatedNetwork.publisherAndObserver(seed: 1)
        let large = (0..<3).map { "\($0)=" + String(repeating: "x", count: 230) }
        network.withStack(publisher) { engine, now in
            _ = engine.register(Services.registration("Tiny", subtypes: ["_a", "_b"]), at: now)
            _ = engine.register(Services.registration("Large 1", txt: large), at: now)
            _ = engine.register(Services.registration("Large 2", txt: large), at: now)
        }
        network.run(for: .seconds(8))
        let start = network.now
        let questions = try [
            Names.serviceType, DomainName(labels: ["_a", "_sub"]).appending(Names.serviceType),
            DomainName(labels: ["_b", "_sub"]).appending(Names.serviceType),
        ]
        .map { Messages.question($0, .ptr) }
        network.inject(Messages.query(questions), from: observer, on: link)
        network.run(for: .seconds(2))
        let packets = network.sentMessages(.responses, by: publisher, since: start).map(\.message)
            .filter { $0.answers.contains { $0.type == .ptr } }
        let tiny = Names.instance("Tiny")
        let tinyNamings = packets.map { $0.answers.filter { $0.data == .ptr(tiny) }.count }
        try #require(tinyNamings.count == 2 && tinyNamings[0] == 1 && tinyNamings[1] == 2, "layout: \(tinyNamings)")
        for packet in packets {
            #expect(Set(packet.additionals).count == packet.additionals.count, "a record twice")
            for case .ptr(let instance) in packet.answers.map(\.data) {
                let types = packet.additionals.filter { $0.name == instance }.map(\.type).sorted()
                #expect(types == [.srv, .txt].sorted(), "\(instance): \(types)")
            }
        }
    }

    /// A publisher "alpha" with the services `register` adds, past probing and announcing, then a
    /// newcomer with an empty cache (no known answers to suppress anything) browsing their type for
    /// a second from `start`.
    static func browsedByANewcomer(
        seed: UInt64, register: (inout SimulatedNetwork, SimulatedNetwork.HostID) -> Void
    ) -> (network: SimulatedNetwork, publisher: SimulatedNetwork.HostID, start: Instant) {
        var network = SimulatedNetwork(seed: seed)
        let link = network.addLink()
        let publisher = network.addHost(named: "alpha", links: [link])
        register(&network, publisher)
        network.run(for: .seconds(10))
        let browser = network.addHost(named: "beta", links: [link])
        network.run(for: .seconds(2))
        let start = network.now
        network.withStack(browser) { engine, now in
            _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: now)
        }
        network.run(for: .seconds(1))
        return (network, publisher, start)
    }

    /// A PTR answer too long for one packet is split so that every packet carries the SRV and TXT
    /// of the instances it lists (RFC 6763 §12), not only the last one; the host's addresses and
    /// NSEC, which all instances share, go in the first packet only; and each packet but the
    /// last is full: the next instance, with its own additional records, would not fit.
    @Test func splitAnswersCarryTheirOwnAdditionalRecords() {
        let (network, publisher, start) = Self.browsedByANewcomer(seed: 11) { network, publisher in
            _ = network.registerServices(150, on: publisher)
        }
        let responses = network.sentMessages(by: publisher).filter { $0.time > start && $0.message.header.isResponse }
            .map(\.message).filter { $0.answers.contains { $0.type == .ptr } }
        #expect(responses.count > 2, "150 instances do not fit one packet")
        for message in responses {
            let srvNames = Set(message.additionals.filter { $0.type == .srv }.map(\.name))
            let txtNames = Set(message.additionals.filter { $0.type == .txt }.map(\.name))
            for case .ptr(let instance) in message.answers.map(\.data) {
                #expect(srvNames.contains(instance) && txtNames.contains(instance), "\(instance) without its SRV/TXT")
            }
        }
        // Packets of one response: sent at one instant over one family.
        let burst = network.sentMessages(by: publisher, family: .v4).filter {
            $0.time > start && $0.message.header.isResponse
        }
        let firstResponse = burst.filter { $0.time == burst.first?.time }.map(\.message)
        #expect(firstResponse.count > 2)
        let hostRecordCounts = firstResponse.map { $0.additionals.filter { $0.name == Self.alpha }.count }
        #expect(hostRecordCounts.first == 3, "A, AAAA and NSEC in the first packet")
        #expect(hostRecordCounts.dropFirst().allSatisfy { $0 == 0 }, "host records repeated: \(hostRecordCounts)")
        #expect(!firstResponse.contains { $0.additionals.contains { $0.type == .nsec && $0.name != Self.alpha } })
        let maximumSize = MDNSEngine.Configuration(hostLabel: "alpha").maximumDatagramSize
        for (packet, next) in zip(firstResponse, firstResponse.dropFirst()) {
            guard let answer = next.answers.first, case .ptr(let instance) = answer.data else { continue }
            var fuller = packet
            fuller.answers.append(answer)
            fuller.additionals += next.additionals.filter { $0.name == instance }
            let size = (try? fuller.encoded().count) ?? 0
            #expect(
                size > maximumSize, "a packet of \(packet.answers.count) answers had room for one more (\(size) bytes)")
        }
    }

    /// An instance whose TXT leaves its packet no room for the host's records (one answer that the
    /// encoder sends with only the additional records that fit): the host's address records and
    /// NSEC still go, in the next packet of the response. TXT sizes around the point where they
    /// stop fitting are tried in turn.
    @Test func hostRecordsCrowdedOutOfAPacketGoInTheNext() {
        var crowdedOut = 0
        for txtSize in stride(from: 1250, through: 1400, by: 6) {
            let strings = stride(from: 0, to: txtSize, by: 200).map {
                String(repeating: "x", count: min(200, txtSize - $0) - 1)
            }
            let (network, publisher, start) = Self.browsedByANewcomer(seed: 12) { network, publisher in
                network.withStack(publisher) { engine, now in
                    _ = engine.register(Services.registration("Big", txt: strings), at: now)
                }
                _ = network.registerServices(20, on: publisher)
            }
            let burst = network.sentMessages(by: publisher, family: .v4).filter {
                $0.time > start && $0.message.header.isResponse
            }
            let response = burst.filter { $0.time == burst.first?.time }.map(\.message)
            let hostRecords = response.flatMap(\.additionals).filter { $0.name == Self.alpha }
            #expect(Set(hostRecords.map(\.type)) == [.a, .aaaa, .nsec], "TXT of \(txtSize) bytes: \(hostRecords)")
            let big = response.firstIndex { $0.answers.contains { $0.data == .ptr(Names.instance("Big")) } }
            if let big, big + 1 < response.count, !response[big].additionals.contains(where: { $0.name == Self.alpha })
            {
                crowdedOut += 1
            }
        }
        #expect(crowdedOut > 0, "no TXT size crowded the host records out of a packet that others followed")
    }
}
