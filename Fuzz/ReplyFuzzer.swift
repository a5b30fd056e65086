// ReplyFuzzer.swift — libFuzzer target: a unicast DNS server's reply, as hostile as it likes.
//
// Built by Scripts/fuzz.sh: CiaoWire first as a module of its own, then this file compiled together
// with Sources/CiaoUnicastDNS/*.swift (so there is no `import CiaoUnicastDNS`). It drives the stub
// resolver, the update-server locator and the registration through their public API, and the
// client's cache (`DNSCache`, internal) directly for its capacity.
//
// Input: a control byte, then the bytes the server sends back. The control byte says how those
// bytes are fitted to what was asked, so that the fuzzer gets past "wrong ID" to the paths behind:
//   bit 0     addressed: the ID is patched to the query's, QR set, OPCODE set (0; 5 for an UPDATE);
//   bit 1     rewritten: the bytes are decoded and their question replaced by the query's, then
//             re-encoded (for the registration: the bytes are TSIG-signed with the key and the MAC
//             of its UPDATE, as the real server would sign them);
//   bits 2-4  the query type: A, AAAA, CNAME, SOA, SRV, PTR, TXT, ANY (the name is fixed,
//             printer.lab.example.; the seeds in Fuzz/ReplySeeds ask for it);
//   bit 5     an option: the client's query has gone over TCP after a truncated reply; the locator
//             is given the update server; the registration may rename;
//   bits 6-7  delivery to the client: 0 or 1 on the attempt's socket from its server, 2 from another
//             source (the server's address, another port), 3 on an attempt already given up.
// With both bits 0 and 1 clear the bytes arrive as they are; the first query's ID is the same in
// every run (a seeded generator), so the fuzzer can still learn it.
//
// Properties; anything else (a trap, an AddressSanitizer report, a hang past libFuzzer's -timeout,
// a leak) is a finding too, and each violation is a `fatalError` so libFuzzer saves the input:
//   1. The client (`UnicastDNSClient`, one server, two attempts) takes a reply only on its attempt's
//      socket, from its server, with QR, OPCODE 0, the attempt's ID and exactly its question; anything
//      else is counted in `ignoredReplies` and changes nothing else. A reply it takes does what it
//      says, and only that: TC over UDP → the same server over TCP; TC over TCP, REFUSED or another
//      failing RCODE → the next attempt, or the failure once the attempts are spent; NOERROR / NXDOMAIN →
//      one success. Each finished attempt is listed once, each new one has a fresh socket, a question
//      completes at most once, and `pendingCount` is 1 until it does, then 0.
//   2. An answer holds the question's name and type; its records are one RRset of that type and
//      class IN, owned by the question's name or a name its CNAME chain in the reply reaches
//      (at most `maximumCNAMEChain` links), each from the reply's answer section, no data twice,
//      TTLs capped at `maximumTTL` and the answer's TTL their least. An RRset at the question's
//      name is never missed; without records the outcome is NXDOMAIN for RCODE 3, else NODATA,
//      with a TTL no more than an SOA's in the authority section allows (0 without one).
//   3. The cache: the answer is given back as it is for its TTL and never after `maximumTTL`; a
//      failure is not kept; no other name or type in the reply is answered from the cache; and
//      `DNSCache` holds no more than its capacity, the answer just stored among them.
//   4. `UpdateServerLocator`, each of its queries answered by the client with the same bytes (or
//      timing out), walks the documented way: SOA at the name, then each parent (never the root),
//      then `_dns-update._udp` SRV of the zone found, then A and AAAA of the SRV target or the
//      SOA's primary; it ends within the name's labels + 3 queries in one outcome: the zone whose
//      SOA it was given and the given server or an address from the last answer on the SRV's
//      port (53 without one), or `zoneNotFound`. Asked again afterwards, it says it has finished.
//   5. `WideAreaRegistration` waiting for its UPDATE's reply ignores bytes that are not a
//      response to that UPDATE (ID, QR, OPCODE 5); otherwise gives exactly one event: registered
//      (with the reply's Update Lease) only for a reply that verifies (TSIG, the UPDATE's MAC) with
//      NOERROR; the RCODE's error for a verified reply or an unsigned refusal; an authentication
//      failure for the rest. The same bytes again give nothing; after ignored bytes, the real
//      reply still registers; a granted lease is refreshed after 80–85 % of it.
//   6. `TSIG.verify` of the bytes (the key and request MAC of the captures in
//      Tests/CiaoWireTests/Captures/TSIG, at their time) returns a record of that key with no
//      error and a time within the fudge, or throws. A message the encoder wrote, once signed,
//      verifies; changed in one byte it does not, unless the byte is in the ID (the original ID is
//      signed instead) or a case change of a letter in the key or algorithm name (both compared
//      and digested case-insensitively).

import CiaoWire

@_cdecl("LLVMFuzzerTestOneInput")
public func replyFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let control = Control(data[0])
    let reply = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    checkClient(reply, control)
    checkLocator(reply, control)
    checkRegistration(reply, control)
    checkTSIG(reply)
    return 0
}

// MARK: - Input

private struct Control {
    enum Delivery { case onTheTry, fromAnotherSource, onAGivenUpTry }

    static let types: [RecordType] = [.a, .aaaa, .cname, .soa, .srv, .ptr, .txt, .any]

    var addressed: Bool
    var rewritten: Bool
    var type: RecordType
    var option: Bool
    var delivery: Delivery

    init(_ byte: UInt8) {
        addressed = byte & 0x01 != 0
        rewritten = byte & 0x02 != 0
        type = Self.types[Int(byte >> 2 & 0x07)]
        option = byte & 0x20 != 0
        switch byte >> 6 {
        case 2: delivery = .fromAnotherSource
        case 3: delivery = .onAGivenUpTry
        default: delivery = .onTheTry
        }
    }
}

private enum Fixture {
    static let name = try! DomainName(parsing: "printer.lab.example.")
    static let server = DNSServer(.ipv4(IPv4Address(198, 18, 0, 53)))
    static let otherSource = DNSServer(.ipv4(IPv4Address(198, 18, 0, 53)), port: 5353)
    static let updateServer = DNSServer(.ipv4(IPv4Address(198, 18, 0, 1)))
    static let start = Duration.seconds(1000)

    static let zone = try! DomainName(parsing: "lab.example.")
    static let records = try! ServiceRegistrationRecords(
        instanceName: "Printer", serviceType: DomainName(parsing: "_ipp._tcp.lab.example."),
        srv: SRVData(port: 631, target: name), txt: TXTData(strings: [Array("rp=ipp".utf8)]),
        ipv4Addresses: [IPv4Address(198, 18, 0, 2)])

    /// Tests/CiaoWireTests/Captures/TSIG: the key, the MAC of signed-request.bin, and the time
    /// signed-response.bin was signed at.
    static let key = try! TSIGKey(
        name: DomainName(parsing: "ciao-test."), secret: Array("ciao-tsig-test-secret-of-32-bytes!!".utf8))
    static let requestMAC: [UInt8] = [
        0xec, 0x07, 0x6d, 0xbd, 0x83, 0xf8, 0xbe, 0xab, 0x36, 0x66, 0x05, 0x72, 0xf7, 0xcc, 0x57, 0x24,
        0x24, 0xd2, 0xb2, 0x9c, 0xa5, 0x63, 0xb4, 0x93, 0xcc, 0x03, 0xee, 0x2e, 0xfd, 0xda, 0x64, 0xe4,
    ]
    static let unixTime: UInt64 = 0x6b0f_d4b5
}

/// SplitMix64 from a fixed seed: the same IDs in every run.
private struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64 = 0xC1A0

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ z >> 30) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ z >> 27) &* 0x94D0_49BB_1331_11EB
        return z ^ z >> 31
    }
}

private typealias Client = UnicastDNSClient<SeededRandom>

private func makeClient(attempts: Int) -> Client {
    Client(
        configuration: ResolverConfiguration(servers: [Fixture.server], timeout: .seconds(2), attempts: attempts),
        random: SeededRandom())
}

/// The reply bytes fitted to the query `sent` as the control byte says.
private func fitted(_ reply: [UInt8], to sent: Transmission, _ control: Control) -> [UInt8] {
    var bytes = reply
    if control.rewritten, let query = try? Message.decode(sent.message).message,
        var message = try? Message.decode(reply, limits: .unicast).message
    {
        message.questions = query.questions
        bytes = (try? message.encoded(maximumSize: 65535)) ?? reply
    }
    if control.addressed, bytes.count >= MessageHeader.size {
        bytes[0] = sent.message[0]
        bytes[1] = sent.message[1]
        bytes[2] = bytes[2] & 0x07 | 0x80  // QR, OPCODE 0; AA, TC and RD as they were
    }
    return bytes
}

// MARK: - 1–3: the client

/// What the client must make of a reply it takes.
private enum Expected {
    case nextTry(Transport)
    case failure(UnicastDNSError)
    case answer(Message)
}

/// What the client must make of one reply on its attempt, from the bytes alone; nil: ignore it.
private func expectedOutcome(of reply: [UInt8], to sent: Transmission, _ question: Question, triesLeft: Bool)
    -> Expected?
{
    guard let message = try? Message.decode(reply, limits: .unicast).message,
        let query = try? Message.decode(sent.message).message,
        message.header.isResponse, message.header.opcode == 0, message.header.id == query.header.id,
        message.questions.count == 1, let echoed = message.questions.first,
        echoed.name == question.name, echoed.type == question.type, echoed.qClass == question.qClass
    else { return nil }
    let error: UnicastDNSError
    if message.header.isTruncated {
        if sent.transport == .udp { return .nextTry(.tcp) }
        error = .truncatedOverTCP
    } else {
        switch message.header.rcode {
        case 0, 3: return .answer(message)
        case 5: error = .refused
        case let rcode: error = .serverFailure(rcode: rcode)
        }
    }
    return triesLeft ? .nextTry(.udp) : .failure(error)
}

private func checkClient(_ reply: [UInt8], _ control: Control) {
    var client = makeClient(attempts: 2)
    var now = Fixture.start
    let question = Question(name: Fixture.name, type: control.type)
    let id = client.query(question.name, type: question.type, at: now)
    var sent = onlyTransmission(&client, "the query")
    var attempts: Set<Attempt> = [sent.attempt]
    var triesLeft = 1

    if control.option {
        let udp = sent
        client.receive(truncatedReply(to: udp), on: udp.attempt, from: udp.server, at: now)
        sent = onlyTransmission(&client, "the query after TC")
        guard sent.transport == .tcp, sent.server == udp.server, attempts.insert(sent.attempt).inserted,
            client.takeFinishedAttempts() == [udp.attempt]
        else { fail("a truncated reply did not move the query to TCP: \(sent)") }
    }
    switch control.delivery {
    case .onTheTry:
        break
    case .fromAnotherSource:
        expectIgnored(&client, fitted(reply, to: sent, control), on: sent.attempt, from: Fixture.otherSource, at: now)
        return
    case .onAGivenUpTry:
        let givenUp = sent
        now += .seconds(2)
        client.advance(to: now)
        _ = onlyTransmission(&client, "the second try")
        guard client.takeFinishedAttempts() == [givenUp.attempt] else { fail("a timed-out try was not finished") }
        expectIgnored(&client, fitted(reply, to: givenUp, control), on: givenUp.attempt, from: givenUp.server, at: now)
        return
    }

    // At most two attempts over UDP, each perhaps followed by one over TCP.
    for _ in 0..<5 {
        let bytes = fitted(reply, to: sent, control)
        guard let expected = expectedOutcome(of: bytes, to: sent, question, triesLeft: triesLeft > 0) else {
            expectIgnored(&client, bytes, on: sent.attempt, from: sent.server, at: now)
            return
        }
        client.receive(bytes, on: sent.attempt, from: sent.server, at: now)
        let completions = client.takeCompletions()
        let transmissions = client.takeTransmissions()
        guard client.takeFinishedAttempts() == [sent.attempt] else { fail("the answered try was not finished once") }
        switch expected {
        case .nextTry(let transport):
            guard completions.isEmpty, transmissions.count == 1, client.pendingCount == 1 else {
                fail("expected a new try over \(transport), got \(completions.count) completions, \(transmissions)")
            }
            sent = transmissions[0]
            guard sent.transport == transport, sent.server == Fixture.server, attempts.insert(sent.attempt).inserted
            else { fail("the next attempt is \(sent), expected a fresh attempt over \(transport)") }
            if transport == .udp { triesLeft -= 1 }
        case .failure(let error):
            guard completions.count == 1, completions[0].query == id, completions[0].result == .failure(error),
                transmissions.isEmpty, client.pendingCount == 0
            else { fail("expected the failure \(error), got \(completions.map(\.result)), \(transmissions)") }
            var again = client
            again.query(question.name, type: question.type, at: now)
            guard again.takeTransmissions().count == 1 else { fail("a failure was answered from the cache") }
            expectIgnored(&client, bytes, on: sent.attempt, from: sent.server, at: now)
            return
        case .answer(let message):
            guard completions.count == 1, completions[0].query == id, case .success(let answer) = completions[0].result,
                transmissions.isEmpty, client.pendingCount == 0
            else { fail("expected an answer, got \(completions.map(\.result)), \(transmissions)") }
            checkAnswer(answer, to: question, in: message)
            checkCache(client, answer, message, at: now)
            checkCapacity(answer, at: now)
            expectIgnored(&client, bytes, on: sent.attempt, from: sent.server, at: now)
            return
        }
    }
    fail("the client kept trying past its two attempts")
}

private func onlyTransmission(_ client: inout Client, _ what: String) -> Transmission {
    let sent = client.takeTransmissions()
    guard sent.count == 1 else { fail("\(what): \(sent.count) transmissions") }
    return sent[0]
}

/// Receives bytes the client must ignore: counted, and nothing else changes.
private func expectIgnored(
    _ client: inout Client, _ bytes: [UInt8], on attempt: Attempt, from source: DNSServer, at now: Duration
) {
    let ignored = client.ignoredReplies
    let pending = client.pendingCount
    client.receive(bytes, on: attempt, from: source, at: now)
    guard client.ignoredReplies == ignored + 1, client.pendingCount == pending, client.takeCompletions().isEmpty,
        client.takeTransmissions().isEmpty, client.takeFinishedAttempts().isEmpty
    else { fail("a reply that matches no outstanding try (\(attempt) from \(source)) was not ignored") }
}

private func truncatedReply(to sent: Transmission) -> [UInt8] {
    guard let query = try? Message.decode(sent.message).message,
        let bytes = try? Message(header: MessageHeader(id: query.header.id, flags: 0x8200), questions: query.questions)
            .encoded()
    else { fail("cannot build a truncated reply to \(sent)") }
    return bytes
}

private func checkAnswer(_ answer: DNSAnswer, to question: Question, in message: Message) {
    let maximumTTL = Client.maximumTTL
    guard answer.name.isIdentical(to: question.name), answer.type == question.type else {
        fail("the answer is for \(answer.type) \(answer.name), the question \(question.type) \(question.name)")
    }
    guard answer.ttl <= maximumTTL, answer.records.allSatisfy({ $0.ttl <= maximumTTL }) else {
        fail("a TTL above \(maximumTTL): \(answer)")
    }
    guard let owner = answer.records.first?.name else {
        guard answer.outcome == (message.header.rcode == 3 ? .nameError : .noData) else {
            fail("no records, outcome \(answer.outcome), RCODE \(message.header.rcode)")
        }
        if message.answers.contains(where: {
            $0.name == question.name && $0.rrClass == .internet && (question.type == .any || $0.type == question.type)
        }) {
            fail("the reply holds the question's RRset, the answer is \(answer.outcome)")
        }
        let allowed = message.authorities.contains { record in
            record.data.soa.map { answer.ttl <= min(record.ttl, $0.minimum) } ?? false
        }
        guard answer.ttl == 0 || allowed else { fail("negative TTL \(answer.ttl) that no SOA allows") }
        if let soa = answer.soa {
            guard soa.type == .soa, soa.ttl == answer.ttl,
                message.authorities.contains(where: { $0.name == soa.name && $0.data == soa.data })
            else { fail("the negative answer's SOA \(soa) is not the reply's, at its TTL \(answer.ttl)") }
        }
        return
    }
    guard answer.outcome == .records, answer.soa == nil else { fail("records with outcome \(answer.outcome)") }
    // ANY takes every record at the name itself, following no CNAME (RFC 8482).
    guard question.type != .any || owner == question.name else { fail("ANY answered at \(owner)") }
    guard reachable(from: question.name, in: message).contains(owner) else {
        fail("the records' owner \(owner) is not on the CNAME chain from \(question.name)")
    }
    for record in answer.records {
        guard record.name == owner, question.type == .any || record.type == question.type, record.rrClass == .internet
        else {
            fail("\(record) is not in the one RRset \(question.type) IN at \(owner)")
        }
        guard
            message.answers.contains(where: {
                $0.name == owner && $0.rrClass == .internet && $0.type == record.type && $0.data == record.data
                    && min($0.ttl, maximumTTL) == record.ttl
            })
        else { fail("\(record) is not in the reply's answer section") }
        guard answer.records.filter({ $0.type == record.type && $0.data == record.data }).count == 1 else {
            fail("\(record) twice")
        }
    }
    guard answer.ttl == answer.records.map(\.ttl).min() else { fail("answer TTL \(answer.ttl) is not its least") }
}

/// The question's name and every name at most `maximumCNAMEChain` CNAME links from it in the
/// reply's answer section.
private func reachable(from name: DomainName, in message: Message) -> Set<DomainName> {
    var reached: Set<DomainName> = [name]
    var frontier: Set<DomainName> = [name]
    for _ in 0..<Client.maximumCNAMEChain where !frontier.isEmpty {
        var next: Set<DomainName> = []
        for record in message.answers where record.rrClass == .internet && frontier.contains(record.name) {
            if let target = record.data.canonicalName, reached.insert(target).inserted { next.insert(target) }
        }
        frontier = next
    }
    return reached
}

/// The cache after `answer`, on copies of the client so that each look leaves the others alone.
private func checkCache(_ client: Client, _ answer: DNSAnswer, _ message: Message, at now: Duration) {
    var again = client
    let id = again.query(answer.name, type: answer.type, at: now)
    if answer.ttl > 0 {
        let completions = again.takeCompletions()
        guard again.takeTransmissions().isEmpty, completions.count == 1, completions[0].query == id,
            completions[0].result == .success(answer)
        else { fail("the answer was not given back from the cache: \(completions.map(\.result))") }
    } else {
        guard again.takeTransmissions().count == 1 else { fail("an answer of TTL 0 was cached") }
    }
    var later = client
    later.query(answer.name, type: answer.type, at: now + .seconds(Client.maximumTTL))
    guard later.takeTransmissions().count == 1 else { fail("an answer outlived the TTL cap in the cache") }

    var others: [Question] = []
    for record in message.answers + message.authorities + message.additionals {
        let other = Question(name: record.name, type: record.type)
        guard !(other.name == answer.name && other.type == answer.type), !others.contains(other) else { continue }
        others.append(other)
        if others.count == 16 { break }
    }
    for other in others {
        var poisoned = client
        poisoned.query(other.name, type: other.type, at: now)
        guard poisoned.takeTransmissions().count == 1, poisoned.takeCompletions().isEmpty else {
            fail("the reply to \(answer.type) \(answer.name) put \(other.type) \(other.name) in the cache")
        }
    }
}

/// `DNSCache` at a small capacity, filled with the answer under several names over time.
private func checkCapacity(_ answer: DNSAnswer, at now: Duration) {
    var cache = DNSCache(capacity: 2)
    for index in 0..<4 {
        var stored = answer
        stored.name = try! DomainName(labels: ["cache\(index)", "lab", "example"])
        let time = now + .seconds(index)
        cache.store(stored, at: time)
        guard cache.count <= cache.capacity else { fail("the cache holds \(cache.count) of \(cache.capacity)") }
        let held = cache.answer(name: stored.name, type: stored.type, at: time)
        guard held == (stored.ttl > 0 ? stored : nil) else { fail("the cache gave \(String(describing: held))") }
    }
}

// MARK: - 4: the locator

private func checkLocator(_ reply: [UInt8], _ control: Control) {
    var client = makeClient(attempts: 1)
    var now = Fixture.start
    let given = control.option ? Fixture.updateServer : nil
    var locator = UpdateServerLocator(name: Fixture.name, server: given)
    var step = locator.firstStep
    var asked: [Question] = []
    var zone: (name: DomainName, primary: DomainName)?
    var updateService: (host: DomainName, port: UInt16)?
    var records: [ResourceRecord] = []
    while case .query(let name, let type) = step {
        let question = Question(name: name, type: type)
        guard asked.count < Fixture.name.labelCount + 3 else { fail("the locator asked \(asked) and more") }
        guard
            isNext(question, after: asked.last, zone: zone?.name, host: updateService?.host, given: given != nil)
        else { fail("the locator asked \(type) \(name) after \(asked)") }
        asked.append(question)
        let result = resolve(question, reply, control, &client, &now)
        records = (try? result.get())?.records ?? []
        if type == .soa, let soa = records.lazy.filter({ $0.name == name }).compactMap(\.data.soa).first {
            zone = (name, soa.primaryServer)
        }
        if type == .soa || type == .srv, let zone {
            let srv = records.lazy.compactMap { record -> SRVData? in
                if type == .srv, case .srv(let srv) = record.data, !srv.target.isRoot { srv } else { nil }
            }.first
            updateService = (srv?.target ?? zone.primary, srv?.port ?? 53)
        }
        step = locator.answered(result)
    }
    switch step {
    case .found(let found, let server):
        guard let zone, found == zone.name else { fail("found the zone \(found) without its SOA; asked \(asked)") }
        if let given {
            guard server == given, asked.last == Question(name: found, type: .soa) else {
                fail("found \(server) after \(asked) though \(given) was given")
            }
        } else {
            guard let updateService, let last = asked.last, [.a, .aaaa].contains(last.type),
                last.name == updateService.host, server.port == updateService.port,
                records.contains(where: { DNSServer.Address(address: $0.data) == server.address })
            else { fail("found \(server) after \(asked), last answer \(records)") }
        }
    case .failed(.zoneNotFound(let name, _)):
        guard given == nil || zone == nil else { fail("failed with the zone found and the server given") }
        guard name == zone?.name ?? asked.last?.name else { fail("zoneNotFound(\(name)) after \(asked)") }
    case .failed(let error):
        fail("the locator failed with \(error)")
    case .query:
        fail("unreachable: the loop above runs until the locator stops asking")
    }
    guard case .failed(.invalidUpdate) = locator.answered(.failure(.noServers)) else {
        fail("the locator took another answer after it finished")
    }
}

/// Whether `question` may follow `previous` in the walk.
private func isNext(
    _ question: Question, after previous: Question?, zone: DomainName?, host: DomainName?, given: Bool
) -> Bool {
    guard let previous else { return question == Question(name: Fixture.name, type: .soa) }
    switch previous.type {
    case .soa where zone == previous.name:
        let service = try! DomainName(labels: UpdateServerLocator.updateServiceLabels).appending(previous.name)
        return !given && question == Question(name: service, type: .srv)
    case .soa:
        return question == Question(name: previous.name.parent, type: .soa) && !previous.name.parent.isRoot
    case .srv:
        return question.type == .a && question.name == host
    case .a:
        return question == Question(name: previous.name, type: .aaaa)
    default:
        return false
    }
}

/// The client's result for `question`, the server answering every attempt with the fuzz bytes.
private func resolve(
    _ question: Question, _ reply: [UInt8], _ control: Control, _ client: inout Client, _ now: inout Duration
) -> Result<DNSAnswer, UnicastDNSError> {
    let id = client.query(question.name, type: question.type, at: now)
    for _ in 0..<4 {
        if let completion = client.takeCompletions().first {
            guard completion.query == id else { fail("a completion for \(completion.query), not \(id)") }
            return completion.result
        }
        if let sent = client.takeTransmissions().first {
            client.receive(fitted(reply, to: sent, control), on: sent.attempt, from: sent.server, at: now)
        } else if let deadline = client.nextDeadline {
            now = deadline
            client.advance(to: now)
        }
    }
    fail("the client did not finish \(question.type) \(question.name) in one attempt")
}

extension DNSServer.Address {
    fileprivate init?(address data: RecordData) {
        switch data {
        case .a(let address): self = .ipv4(address)
        case .aaaa(let address): self = .ipv6(address)
        default: return nil
        }
    }
}

// MARK: - 5: the registration

private func checkRegistration(_ reply: [UInt8], _ control: Control) {
    let time = WideAreaRegistration.Time(monotonic: Fixture.start, unixSeconds: Fixture.unixTime)
    var registration = WideAreaRegistration(
        records: Fixture.records, zone: Fixture.zone, server: Fixture.updateServer.description, key: Fixture.key,
        allowsRenaming: control.option)
    let started = registration.start(at: time)
    guard started.count == 1, case .send(let update) = started[0] else { fail("start gave \(started)") }
    let requestMAC: [UInt8]
    do throws(TSIGError) {
        requestMAC = try TSIG.verify(update, with: Fixture.key, requestMAC: nil, at: Fixture.unixTime).mac
    } catch {
        fail("the registration's own UPDATE does not verify: \(error)")
    }

    var bytes = reply
    if control.addressed, bytes.count >= MessageHeader.size {
        bytes[0] = update[0]
        bytes[1] = update[1]
        bytes[2] = bytes[2] & 0x07 | 0x80 | DNSUpdate.opcode << 3
    }
    if control.rewritten,
        let signed = try? TSIG.sign(bytes, with: Fixture.key, at: Fixture.unixTime, requestMAC: requestMAC)
    {
        bytes = signed.message
    }
    let expected = expectedEvent(of: bytes, to: update, requestMAC: requestMAC, renaming: control.option)
    let outputs = registration.receive(bytes, at: time)
    guard outputs == (expected.map { [.event($0)] } ?? []) else {
        fail("the registration gave \(outputs), expected \(String(describing: expected))")
    }
    var again = registration
    guard again.receive(bytes, at: time).isEmpty else { fail("the same reply was taken twice") }

    switch expected {
    case nil:
        let real = signedReply(to: update, requestMAC: requestMAC)
        let events = registration.receive(real, at: time)
        guard events == [.event(.registered(name: Fixture.records.instanceName, lease: nil))] else {
            fail("after ignoring the bytes the registration took the real reply as \(events)")
        }
    case .registered(_, let lease?) where lease > 0:
        let earliest = time.monotonic + .seconds(Double(lease) * 0.8)
        let latest = time.monotonic + .seconds(Double(lease) * (0.8 + 0.05))
        guard let due = registration.nextDeadline, earliest <= due, due <= latest else {
            fail("a lease of \(lease) s is refreshed at \(String(describing: registration.nextDeadline))")
        }
    default:
        guard registration.nextDeadline == nil else { fail("something is still due after \(outputs)") }
    }
}

/// The event a reply must give, from its bytes alone; nil when it must be ignored.
private func expectedEvent(of reply: [UInt8], to update: [UInt8], requestMAC: [UInt8], renaming: Bool)
    -> WideAreaRegistration.Event?
{
    guard reply.count >= MessageHeader.size, reply[0] == update[0], reply[1] == update[1], reply[2] & 0x80 != 0,
        reply[2] >> 3 & 0x0F == DNSUpdate.opcode
    else { return nil }
    let rcode = reply[3] & 0x0F
    do throws(TSIGError) {
        try TSIG.verify(reply, with: Fixture.key, requestMAC: requestMAC, at: Fixture.unixTime)
        if rcode == 0 { return .registered(name: Fixture.records.instanceName, lease: lease(in: reply)) }
    } catch .unsigned where rcode != 0 {
        // An unsigned refusal: the server would not authenticate the update (RFC 8945 §5.3.2).
    } catch {
        return .failed(.authentication(error))
    }
    let zone = Fixture.zone
    switch rcode {
    case 5: return .failed(.refused(zone: zone))
    case 6: return renaming ? .nameInUse(Fixture.records.instanceName) : .failed(.nameInUse(Fixture.records.instance))
    case 7, 8: return .failed(.prerequisiteFailed(rcode: rcode))
    case 9: return .failed(.notAuthoritative(zone: zone))
    case 10: return .failed(.notInZone(zone: zone))
    default: return .failed(.serverFailure(rcode: rcode))
    }
}

/// The Update Lease of the reply's first OPT record that has one.
private func lease(in reply: [UInt8]) -> UInt32? {
    guard let message = try? Message.decode(reply, limits: .unicast).message else { return nil }
    return message.additionals.lazy.compactMap { record -> UInt32? in
        guard case .opt(let options) = record.data else { return nil }
        return options.lazy.compactMap(\.updateLease).first?.lease
    }.first
}

/// NOERROR to `update`, signed as the server signs it.
private func signedReply(to update: [UInt8], requestMAC: [UInt8]) -> [UInt8] {
    var header = MessageHeader.response(id: UInt16(update[0]) << 8 | UInt16(update[1]))
    header.opcode = DNSUpdate.opcode
    let message = Message(header: header, questions: [Question(name: Fixture.zone, type: .soa)])
    guard let bytes = try? message.encoded(),
        let signed = try? TSIG.sign(bytes, with: Fixture.key, at: Fixture.unixTime, requestMAC: requestMAC)
    else { fail("cannot sign a reply") }
    return signed.message
}

// MARK: - 6: TSIG

private func checkTSIG(_ reply: [UInt8]) {
    let key = Fixture.key
    do throws(TSIGError) {
        let record = try TSIG.verify(reply, with: key, requestMAC: Fixture.requestMAC, at: Fixture.unixTime)
        let skew = max(record.timeSigned, Fixture.unixTime) - min(record.timeSigned, Fixture.unixTime)
        guard record.keyName == key.name, record.algorithm == TSIGKey.hmacSHA256, record.error == 0,
            skew <= UInt64(record.fudge)
        else { fail("verified a record that should not verify: \(record)") }
    } catch {
        _ = error.description
    }

    guard let message = try? Message.decode(reply, limits: .unicast).message,
        let unsigned = try? message.encoded(maximumSize: 65535)
    else { return }
    let signed: (message: [UInt8], mac: [UInt8])
    do throws(TSIGError) {
        signed = try TSIG.sign(unsigned, with: key, at: Fixture.unixTime, requestMAC: Fixture.requestMAC)
        let record = try TSIG.verify(signed.message, with: key, requestMAC: Fixture.requestMAC, at: Fixture.unixTime)
        guard record.mac == signed.mac, record.timeSigned == Fixture.unixTime, record.originalID == message.header.id
        else { fail("verify read back \(record) from what sign wrote") }
    } catch {
        fail("a message the encoder wrote does not sign and verify: \(error)")
    }

    // Which bytes may change without breaking the signature: the ID, and the case of the letters
    // of the key name and the algorithm name in the TSIG record.
    let keyName = unsigned.count..<unsigned.count + key.name.wireLength
    let algorithmStart = keyName.upperBound + 10
    let algorithm = algorithmStart..<algorithmStart + TSIGKey.hmacSHA256.wireLength
    var hash = fnv1a(reply)
    for _ in 0..<2 {
        let position = Int(hash % UInt64(signed.message.count))
        let bits = UInt8(truncatingIfNeeded: hash >> 32)
        let mask = bits == 0 ? 0x20 : bits
        hash = hash &* 0x100_0000_01B3 ^ 0x5A
        var tampered = signed.message
        tampered[position] ^= mask
        let byte = signed.message[position] | 0x20
        let caseChange =
            mask == 0x20 && (keyName.contains(position) || algorithm.contains(position))
            && byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
        if position < 2 || caseChange { continue }
        if let record = try? TSIG.verify(tampered, with: key, requestMAC: Fixture.requestMAC, at: Fixture.unixTime) {
            fail("byte \(position) of a signed message changed by \(mask), and it still verifies: \(record)")
        }
    }
}

private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
}

// MARK: - Helpers

/// Stops the fuzzer with a description; libFuzzer saves the input that led here.
private func fail(_ what: String) -> Never {
    fatalError("ReplyFuzzer: \(what)")
}
