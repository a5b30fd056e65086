import CiaoWire

/// The responder's answers: which records answer a query, when and where they go
/// (RFC 6762 §5.4, §6, §7; RFC 6763 §12).
extension MDNSEngine {
    static let sharedAnswerDelay: ClosedRange<Duration> = .milliseconds(20)...(.milliseconds(120))
    /// Answers already scheduled may be held this much longer to go out with later ones (§6).
    static let aggregationDelay: Duration = .milliseconds(500)
    static let truncatedQueryDelay: ClosedRange<Duration> = .milliseconds(400)...(.milliseconds(500))
    /// A record is multicast on a link at most once per this interval (§6)…
    static let multicastInterval: Duration = .seconds(1)
    /// …except in defence against a probe (§6, §8.1).
    static let probeDefenceInterval: Duration = .milliseconds(250)
    /// Legacy unicast answers carry at most this TTL (§6.7).
    static let legacyTTL: UInt32 = 10

    /// Answers a query, defends our names against a probe and notes what another host asks
    /// (§6, §7, §8.2, §10.5).
    mutating func handleQuery(
        _ message: Message, from datagram: ReceivedDatagram, on interface: NetworkInterface, at now: Instant
    ) {
        let source = datagram.source
        let isLegacy = source.port != mdnsPort
        if !isLegacy {
            if !message.authorities.isEmpty { handleProbe(message, from: source, on: interface, at: now) }
            observeQuery(message, on: interface.id, over: source.address.family, at: now)
        }
        // Known-answer lists that span packets (§7.2): hold the query until the rest arrives.
        if interfaces[interface.id]?.responses.extendHeldQuery(from: source, with: message) == true { return }
        if message.header.isTruncated && !isLegacy {
            // Beyond ResponseQueue.maximumHeldQueries, the query goes unanswered.
            guard interfaces[interface.id]?.responses.canHoldQuery == true else { return }
            let query = TruncatedQuery(
                receivedAt: now, answerAt: now + random.duration(in: Self.truncatedQueryDelay),
                questions: message.questions, knownAnswers: message.answers)
            interfaces[interface.id]?.responses.hold(query, from: source)
            return
        }
        answer(message, from: datagram, on: interface, at: now)
    }

    /// What a response means for us (§7.4, §9, §10): conflicts with our names, duplicate answers
    /// we need not send, forged goodbyes for our records to refute; then its answers and
    /// additional records cached, and the changes reported to the queries that ask for them, an
    /// NSEC to those whose type it denies (§6.1).
    mutating func handleResponse(
        _ message: Message, from datagram: ReceivedDatagram, on interface: NetworkInterface, at now: Instant
    ) {
        detectConflicts(in: message, from: datagram.source, on: interface, at: now)
        // Duplicate answer suppression (§7.4): someone else just multicast what we were about to.
        let family = datagram.source.address.family
        // Only a copy with at least our TTL counts; we treat ours as sent then.
        let sent = ListedAnswers(datagram.isMulticast ? message.answers : [])
        if !sent.isEmpty {
            let slots = ResponseSlot.allCases.filter { $0.family == family }
            let duplicates = interfaces[interface.id]?.responses.takeAnswers(from: slots, where: sent.copies) ?? []
            noteMulticast(duplicates, on: interface.id, family: family, at: now, byUs: false)
        }
        if datagram.isMulticast { refuteGoodbyes(in: message, on: interface, family: family, at: now) }
        let source = datagram.source.address
        let watched = watchedQuestions(on: interface.id)
        for record in message.answers + message.additionals where record.type != .opt {
            // Mutated in place: a copy of the interface state would copy the whole cache.
            let key = RecordKey(record)
            guard
                let (insertion, evicted) = interfaces[interface.id]?.cache.insert(
                    record, key: key, from: source, over: family, multicast: datagram.isMulticast, at: now,
                    random: &random, isWatched: watched.contains)
            else { return }
            // Records no query asks for have no one to report to (a flood is mostly those).
            switch insertion {
            case .added where watched.contains(key.rrset): report(.added, record, on: interface.id)
            case .replaced where watched.contains(key.rrset): report(.updated, record, on: interface.id)
            case .refreshedOverNewFamily where watched.contains(key.rrset):
                report(.heardOver(family), record, on: interface.id)
            default: break
            }
            if insertion == .added || insertion == .replaced, watched.mayDeny(key.rrset) {
                reportDenials(by: record, on: interface.id)
            }
            for record in evicted { report(.removed, record, on: interface.id) }
        }
    }

    /// Multicasts again our records that someone else said goodbye to: another responder on this
    /// host leaving the records we share with it, or a forged goodbye, would otherwise remove them
    /// from every cache on the link (§10.1). Unique records at once; shared ones, which every
    /// host publishing the same type holds (`_services._dns-sd._udp` PTRs), after 20–120 ms, so
    /// that the first refutation suppresses the others' (§6, §7.4). The once-a-second rule (§6)
    /// holds back what went out within the last second until its second has passed.
    private mutating func refuteGoodbyes(
        in message: Message, on interface: NetworkInterface, family: IPFamily, at now: Instant
    ) {
        var refuted = UniqueRecords()
        for goodbye in message.answers where goodbye.ttl == 0 {
            for record in answeringRecords(for: Question(name: goodbye.name, type: goodbye.type), on: interface)
            where record.isSameRecord(as: goodbye) {
                refuted.insert(record)
            }
        }
        guard !refuted.records.isEmpty else { return }
        let (free, recent) = splitByOnceASecondRule(refuted.records, on: interface.id, family: family, at: now)
        holdBack(recent, on: interface.id, family: family)
        let shared = free.filter { !$0.cacheFlush }
        if !shared.isEmpty {
            aggregate(shared, on: interface.id, family: family, delay: Self.sharedAnswerDelay, at: now)
        }
        sendMulticastResponse(free.filter(\.cacheFlush), on: interface, family: family, at: now)
    }

    /// Answers a (complete) query: legacy unicast at once, QU and direct unicast by unicast,
    /// unique answers multicast at once, shared ones after 20–120 ms, aggregated (§6). `askedAt`
    /// is when the query's first packet came, if before `now`.
    mutating func answer(
        _ message: Message, knownAnswers: [ResourceRecord]? = nil, from datagram: ReceivedDatagram,
        on interface: NetworkInterface, at now: Instant, askedAt: Instant? = nil,
        delay: ClosedRange<Duration> = sharedAnswerDelay
    ) {
        let source = datagram.source
        let family = source.address.family
        let known = ListedAnswers(knownAnswers ?? message.answers)
        // Each record once, however many questions it answers (§6).
        var unicast = UniqueRecords()
        var multicast = UniqueRecords()
        // §11, CERT VU#550620: never send a unicast reply off the link, whatever asked for it.
        let mayUnicast = interface.isOnLink(source.address)
        for question in message.questions {
            for record in answers(to: question, on: interface) {
                // Known-answer suppression (§7.1): they hold it with at least half its TTL.
                if !known.isEmpty, known.holdsAtLeastHalf(of: RecordKey(record), ttl: record.ttl) { continue }
                if !datagram.isMulticast || source.port != mdnsPort {
                    // Direct unicast (§5.5) and legacy (§6.7) queries get unicast replies only.
                    if mayUnicast { unicast.insert(record) }
                } else if question.unicastResponse && mayUnicast && !isOnThisHost(source)
                    && wasMulticast(
                        record, on: interface.id, family: family, within: .seconds(Int64(record.ttl / 4)), at: now)
                {
                    // QU (§5.4): unicast, unless we have not multicast the record within a quarter
                    // of its TTL; then multicast it, so every cache on the link is refreshed. A
                    // QU from this host (another responder) is multicast too: a unicast reply to the
                    // port we share may be handed to us rather than to it (§15.1).
                    unicast.insert(record)
                } else {
                    multicast.insert(record)
                }
            }
        }
        let unicastAnswers = unicast.records
        if source.port != mdnsPort {
            sendLegacyReply(to: message, answers: unicastAnswers, from: source, on: interface)
            return
        }
        if !unicastAnswers.isEmpty {
            sendResponse(unicastAnswers, on: interface, to: .unicast(source))
        }
        // The once-a-second rule (§6) holds back what went out within the last second. Sent before
        // the query and still not known to the querier, it was lost: it goes again as soon as its
        // second has passed. Sent since the query came, the querier has it.
        let (multicastAnswers, recent) = splitByOnceASecondRule(
            multicast.records, on: interface.id, family: family, at: now)
        let lost = recent.filter { $0.last < askedAt ?? now }
        if !lost.isEmpty {
            holdBack(lost, on: interface.id, family: family, notBefore: now + random.duration(in: delay))
        }
        guard !multicastAnswers.isEmpty else { return }
        if multicastAnswers.allSatisfy(\.cacheFlush) && delay == Self.sharedAnswerDelay {
            sendMulticastResponse(multicastAnswers, on: interface, family: family, at: now)
        } else {
            aggregate(multicastAnswers, on: interface.id, family: family, delay: delay, at: now)
        }
    }

    /// Answers held truncated queries whose time has come, then sends the aggregated responses
    /// due, theirs included: nothing due now is left for a later pass.
    mutating func sendDueResponses(at now: Instant) {
        for interfaceID in interfaces.ids where interfaces[interfaceID]?.responses.hasDue(at: now) == true {
            guard let interface = interfaces[interfaceID]?.interface else { continue }
            for (source, held) in interfaces[interfaceID]?.responses.takeDueQueries(at: now) ?? [] {
                let datagram = ReceivedDatagram(bytes: [], source: source, interface: interfaceID, isMulticast: true)
                answer(
                    Message(questions: held.questions), knownAnswers: held.knownAnswers, from: datagram, on: interface,
                    at: now, askedAt: held.receivedAt, delay: .zero...(.zero))
            }
            for slot in ResponseSlot.allCases {
                guard let pending = interfaces[interfaceID]?.responses.takeResponse(in: slot, dueAt: now) else {
                    continue
                }
                // Not what a TXT update, a conflict or a withdrawal left us publishing meanwhile.
                let published = pending.answers.filter { publishes($0, on: interface, answering: true) }
                let (answers, recent) = splitByOnceASecondRule(published, on: interfaceID, family: slot.family, at: now)
                // Within its second, an aggregated answer went out meanwhile and is dropped; a
                // held-back one waits for its second, in the next response of its slot.
                if slot.heldBack { holdBack(recent, on: interfaceID, family: slot.family) }
                sendMulticastResponse(answers, on: interface, family: slot.family, at: now)
            }
        }
    }

    /// Defends a name we own against a probe (§8.1): our records by unicast to a prober that asked
    /// so (QU), unless it is another responder on this host, which the unicast may not reach
    /// (§15.1); and multicast at most every 250 ms.
    mutating func defend(
        _ records: [ResourceRecord], on interfaceID: InterfaceID, family: IPFamily,
        unicastTo prober: SocketAddress? = nil,
        at now: Instant
    ) {
        guard let interface = interfaces[interfaceID]?.interface else { return }
        // First, so that it arrives before the multicast copy.
        if let prober, interface.isOnLink(prober.address), !isOnThisHost(prober) {
            send(Message(header: .response(), answers: records), on: interfaceID, to: .unicast(prober))
        }
        let answers = records.filter {
            !wasMulticast($0, on: interfaceID, family: family, within: Self.probeDefenceInterval, at: now)
        }
        sendMulticastResponse(answers, on: interface, family: family, at: now)
    }

    /// True when `source`, an address and port 5353, is another responder on this host: a unicast
    /// reply to the port we share may be handed to us rather than to it (§15.1).
    func isOnThisHost(_ source: SocketAddress) -> Bool {
        interfaces.owns(source.address)
    }

    /// Records that `records` were multicast now over `family` on an interface, for the
    /// once-a-second rule, probe defence and the QU quarter-TTL rule (§5.4, §6).
    mutating func noteMulticast(
        _ records: [ResourceRecord], on interfaceID: InterfaceID, family: IPFamily, at now: Instant, byUs: Bool = true
    ) {
        for record in records {
            let key = RecordKey(record)
            interfaces[interfaceID]?.multicastLog.note(key, over: family, at: now)
            if byUs { outbox.noteMulticast(SentRecord(interface: interfaceID, family: family, key: key)) }
        }
    }

    /// Moves the times of the records in the datagrams last taken to `time`, when the transport
    /// says they left: a datagram leaves after the engine made it, and a record multicast again
    /// a second after it was made could reach the wire less than a second after it last did (§6).
    /// Logs the datagrams as sent, so that ``receive(_:at:)`` drops them when the kernel loops
    /// them back (``DropReason/ownMulticast``).
    public mutating func noteSent(at time: Instant) {
        for sent in outbox.noteSent(at: time) {
            interfaces[sent.interface]?.multicastLog.moveLater(sent.key, over: sent.family, to: time)
        }
    }

    // MARK: Private

    /// A legacy unicast reply (§6.7): the query's ID and questions, no cache-flush bits, TTLs of
    /// at most 10 s, in one datagram no larger than the querier takes, which is 512 bytes
    /// (RFC 1035 §4.2.1) or what its OPT record offers (RFC 6891 §6.2.5), up to our own limit.
    /// Answers that do not fit are left out with TC set; a query with an OPT record gets one back
    /// (§7). A query with two OPT records gets FORMERR (§6.1.1), one of an EDNS version other than
    /// 0 gets BADVERS (§6.1.3), and neither gets answers; as for any legacy query, only a host
    /// that has answers replies at all.
    private mutating func sendLegacyReply(
        to query: Message, answers: [ResourceRecord], from source: SocketAddress, on interface: NetworkInterface
    ) {
        guard !answers.isEmpty else { return }
        let options = query.additionals.filter { $0.type == .opt }
        let offered = options.first?.udpPayloadSize
        let size = min(max(offered ?? 0, ResourceRecord.minimumUDPPayloadSize), configuration.maximumDatagramSize)
        let ourSize = UInt16(clamping: configuration.maximumDatagramSize)
        var reply = Message(header: .response(id: query.header.id), questions: query.questions)
        if options.count > 1 {
            reply.header.rcode = 1
        } else if let version = options.first?.ednsVersion, version != 0 {
            reply.additionals = [.opt(udpPayloadSize: ourSize, extendedRCode: ResourceRecord.badVersionExtendedRCode)]
        } else {
            reply.answers = answers.map(\.legacy)
            let needs = additionalNeeds(of: reply.answers, on: interface)
            reply.additionals = additionals(
                for: reply.answers[...], needs: needs[...], hostRecords: hostRecords(on: interface)
            )
            .map(\.legacy)
            if offered != nil { reply.additionals.insert(.opt(udpPayloadSize: ourSize), at: 0) }
        }
        guard let packet = try? reply.encodedTruncating(maximumSize: size) else { return }
        outbox.enqueue(OutgoingDatagram(bytes: packet, interface: interface.id, destination: .unicast(source)))
    }

    private mutating func sendMulticastResponse(
        _ answers: [ResourceRecord], on interface: NetworkInterface, family: IPFamily, at now: Instant
    ) {
        guard !answers.isEmpty else { return }
        sendResponse(answers, on: interface, to: .multicast(family))
        noteMulticast(answers, on: interface.id, family: family, at: now)
    }

    /// Sends `answers` in as few packets as fit, each with the service records that its own
    /// answers call for (RFC 6763 §12), so that a browser receiving any one packet has the SRV and
    /// TXT of the instances it lists, instead of a long answer list whose additional records fit
    /// only its last packet. The host's address records and NSEC, which every instance shares, go
    /// once per response, in the first packet that has room for them: additional records are
    /// optional (RFC 6763 §12).
    private mutating func sendResponse(
        _ answers: [ResourceRecord], on interface: NetworkInterface, to destination: OutgoingDatagram.Destination
    ) {
        let hostRecords = hostRecords(on: interface)
        let needs = additionalNeeds(of: answers, on: interface)
        var hostRecordsSent = false
        func message(_ range: Range<Int>) -> Message {
            Message(
                header: .response(), answers: Array(answers[range]),
                additionals: additionals(
                    for: answers[range], needs: needs[range], hostRecords: hostRecordsSent ? [] : hostRecords))
        }
        func encoded(_ message: Message) -> [UInt8]? {
            try? message.encoded(maximumSize: configuration.maximumDatagramSize)
        }
        // No packet holds more records than this, each at its smallest: a root name (1 byte),
        // type, class, TTL and length (10), no data. At least one, so that an answer too large
        // for any packet still goes, as the encoder can send it.
        let mostRecordsAPacketHolds = max(1, (configuration.maximumDatagramSize - MessageHeader.size) / 11)
        /// The most answers from `start` on that fit one packet with their additional records,
        /// searched from `guess`: up in doubling steps while they fit, down by halves while they
        /// do not, then by bisection. A packet with one answer that does not fit has no bytes.
        func fullestPacket(from start: Int, guess: Int) -> (count: Int, message: Message, bytes: [UInt8]?) {
            let available = min(answers.count - start, mostRecordsAPacketHolds)
            var fitting: (count: Int, message: Message, bytes: [UInt8])?
            var tooMany = available + 1
            var count = min(max(guess, 1), available)
            var step = 1
            while true {
                let candidate = message(start..<start + count)
                if let bytes = encoded(candidate) { fitting = (count, candidate, bytes) } else { tooMany = count }
                let fits = fitting?.count ?? 0
                if tooMany - fits <= 1 { break }
                if fitting == nil {
                    count = max(1, count / 2)
                } else if tooMany > available {
                    count = min(available, fits + step)
                    step *= 2
                } else {
                    count = (fits + tooMany) / 2
                }
            }
            if let fitting { return (fitting.count, fitting.message, fitting.bytes) }
            return (1, message(start..<start + 1), nil)
        }
        var start = 0
        var count = answers.count
        while start < answers.count {
            // From the last packet's count, so that after the first packet a full one mostly
            // takes two encodings: the count that fitted before, and one more that does not.
            let packet = fullestPacket(from: start, guess: count)
            if let bytes = packet.bytes {
                outbox.enqueue(OutgoingDatagram(bytes: bytes, interface: interface.id, destination: destination))
                if !hostRecordsSent {
                    hostRecordsSent = packet.message.additionals.contains { $0.name == registrations.host.name }
                }
            } else {
                // One answer too large with its additional records: the encoder leaves out those
                // that do not fit, so the host's go again with the next packet.
                send(packet.message, on: interface.id, to: destination)
            }
            start += packet.count
            count = packet.count
        }
    }

    func wasMulticast(
        _ record: ResourceRecord, on interfaceID: InterfaceID, family: IPFamily, within interval: Duration,
        at now: Instant
    ) -> Bool {
        guard let last = lastMulticast(of: record, on: interfaceID, family: family) else { return false }
        return now - last < interval
    }

    /// `records` split by the once-a-second rule (§6): those free to be multicast now, and those
    /// multicast within the last second, with when.
    private func splitByOnceASecondRule(
        _ records: [ResourceRecord], on interfaceID: InterfaceID, family: IPFamily, at now: Instant
    ) -> (free: [ResourceRecord], recent: [(record: ResourceRecord, last: Instant)]) {
        var free: [ResourceRecord] = []
        var recent: [(record: ResourceRecord, last: Instant)] = []
        for record in records {
            if let last = lastMulticast(of: record, on: interfaceID, family: family),
                now - last < Self.multicastInterval
            {
                recent.append((record, last))
            } else {
                free.append(record)
            }
        }
        return (free, recent)
    }

    /// Sends `records` in the aggregated response of `family`, `delay` from now at the earliest and
    /// ``aggregationDelay`` later at the latest, with what else is answered meanwhile (§6).
    private mutating func aggregate(
        _ records: [ResourceRecord], on interfaceID: InterfaceID, family: IPFamily, delay: ClosedRange<Duration>,
        at now: Instant
    ) {
        let sendAt = now + random.duration(in: delay)
        interfaces[interfaceID]?.responses.schedule(
            records, in: ResponseSlot(family: family, heldBack: false), sendAt: sendAt,
            latest: sendAt + Self.aggregationDelay)
    }

    /// Sends `recent` records in the held-back response of `family` once the second since the
    /// last of them was multicast has passed (§6), and not before `earliest`.
    private mutating func holdBack(
        _ recent: [(record: ResourceRecord, last: Instant)], on interfaceID: InterfaceID, family: IPFamily,
        notBefore earliest: Instant? = nil
    ) {
        guard let lastSent = recent.map(\.last).max() else { return }
        let allowedAt = lastSent + Self.multicastInterval
        let sendAt = earliest.map { max($0, allowedAt) } ?? allowedAt
        interfaces[interfaceID]?.responses.schedule(
            recent.map(\.record), in: ResponseSlot(family: family, heldBack: true), sendAt: sendAt, latest: sendAt)
    }

    private func lastMulticast(of record: ResourceRecord, on interfaceID: InterfaceID, family: IPFamily) -> Instant? {
        interfaces[interfaceID]?.multicastLog.lastMulticast(of: RecordKey(record), over: family)
    }

    /// Our records answering `question` on `interface`; an NSEC when we own the name but not the
    /// type (§6.1).
    private func answers(to question: Question, on interface: NetworkInterface) -> [ResourceRecord] {
        let result = answeringRecords(for: question, on: interface)
        guard result.isEmpty else { return result }
        return answeringRegistrations(publishing: question.name).filter {
            $0.name == question.name && $0.appliesTo(interface.id)
        }.flatMap {
            $0.records(hostName: registrations.host.name, interface: interface).filter { $0.type == .nsec }
        }
    }

    /// The records we publish on `interface` that answer `question`; an NSEC only when asked for
    /// by its type (ANY means the real records).
    func answeringRecords(for question: Question, on interface: NetworkInterface) -> [ResourceRecord] {
        guard question.qClass == .internet || question.qClass == .any else { return [] }
        var result = UniqueRecords()
        for registration in answeringRegistrations(publishing: question.name) where registration.appliesTo(interface.id)
        {
            for record in registration.records(hostName: registrations.host.name, interface: interface)
            where record.name == question.name
                && ((question.type == .any && record.type != .nsec) || record.type == question.type)
            {
                result.insert(record)
            }
        }
        return result.records
    }

    /// Our address records on `interface`, with the NSEC for a family we do not have (§6.1); none
    /// while the host name is still being probed or is not ours.
    private func hostRecords(on interface: NetworkInterface) -> [ResourceRecord] {
        guard registrations.ownsHostName, !registrations.host.isProbing else { return [] }
        return registrations.host.addressRecords(of: interface.publishedAddresses.map(\.address))
    }

    /// What each answer calls for among the additional records (RFC 6763 §12): the SRV and TXT
    /// of the instance a PTR answer names, and for PTR, SRV and address answers the records of
    /// the host they name when we publish them, this host's or another's (a proxy): its
    /// addresses, with an NSEC for an address family it does not have (§6.1). The instances' own
    /// NSECs are left out: they only say that an instance has nothing but its SRV and TXT, which
    /// the packet already carries (a MAY of §6.1).
    private func additionalNeeds(of answers: [ResourceRecord], on interface: NetworkInterface) -> [AdditionalNeeds] {
        var needs: [AdditionalNeeds] = []
        needs.reserveCapacity(answers.count)
        var lastAnswerNaming: [DomainName: Int] = [:]
        for answer in answers {
            let name: DomainName
            switch answer.data {
            case .ptr(let target): name = target
            case .srv(let srv): name = srv.target
            case .a, .aaaa: name = answer.name
            default:
                needs.append(AdditionalNeeds())
                continue
            }
            var need = AdditionalNeeds(previousAnswerNaming: lastAnswerNaming[name])
            lastAnswerNaming[name] = needs.count
            var services = 0
            for registration in answeringRegistrations(publishing: name)
            where registration.name == name && registration.appliesTo(interface.id) {
                // A service's records under `name` and the host's, which its SRV points to.
                if case .service = registration.kind {
                    need.serviceRecords += registration.records(hostName: registrations.host.name, interface: interface)
                        .filter {
                            $0.name == name && ($0.type == .srv || $0.type == .txt)
                        }
                    services += 1
                }
                if registration.namesThisHost { need.needsHostRecords = true }
                if registration.otherHost != nil {
                    need.otherHostRecords += otherHostRecords(of: registration, on: interface)
                }
            }
            // Two services of one name only while a conflict is being settled; the same records twice then.
            if services > 1 { need.serviceRecords = UniqueRecords(need.serviceRecords).records }
            needs.append(need)
        }
        return needs
    }

    /// The records of another host we publish for (a proxy) that `registration` is, or that its
    /// SRV record names: the addresses and the NSEC (RFC 6763 §12.2, RFC 6762 §6.1), not the
    /// reverse mapping.
    private func otherHostRecords(of registration: Registration, on interface: NetworkInterface) -> [ResourceRecord] {
        guard let target = registration.otherHost else { return [] }
        let proxies: [Registration]
        if case .otherHost = registration.kind {
            proxies = [registration]
        } else {
            proxies = answeringRegistrations(publishing: target).filter {
                if case .otherHost = $0.kind { $0.name == target && $0.appliesTo(interface.id) } else { false }
            }
        }
        return proxies.flatMap {
            $0.records(hostName: registrations.host.name, interface: interface).filter { $0.name == target }
        }
    }

    /// The additional records of a message with `answers`, from what each calls for (`needs`,
    /// in the same order): each record once, none that is an answer, in the answers' order.
    /// Service records are SRV and TXT of one instance per answer, so they repeat only where an
    /// earlier answer of the message names the same instance, or as an answer that is no PTR.
    private func additionals(
        for answers: ArraySlice<ResourceRecord>, needs: ArraySlice<AdditionalNeeds>, hostRecords: [ResourceRecord]
    ) -> [ResourceRecord] {
        // SRV, TXT and the host's records: a PTR answer is never one of them, so an answer to a
        // browse, all PTRs, is compared with nothing.
        var seen = UniqueRecords(answers.lazy.filter { $0.type != .ptr })
        let answerCount = seen.records.count
        var additionals: [ResourceRecord] = []
        func add(_ record: ResourceRecord) {
            if answerCount == 0 || seen.insert(record) { additionals.append(record) }
        }
        var hostRecordsGathered = false
        // Several instances may run on one other host: its records go once.
        var otherHostRecordsSeen = UniqueRecords()
        for need in needs {
            // An instance named by an earlier answer of this message has its records here already.
            let namedEarlierHere = need.previousAnswerNaming.map { needs.indices.contains($0) } ?? false
            if !namedEarlierHere { need.serviceRecords.forEach(add) }
            if !need.otherHostRecords.isEmpty {
                for record in need.otherHostRecords where otherHostRecordsSeen.insert(record) { add(record) }
            }
            if need.needsHostRecords && !hostRecordsGathered {
                hostRecords.forEach(add)
                hostRecordsGathered = true
            }
        }
        return additionals
    }
}

/// The additional records one answer calls for (``MDNSEngine/additionalNeeds(of:on:)``).
private struct AdditionalNeeds {
    /// The last answer before this one, in the whole response, that names the same instance or
    /// host; nil if none does.
    var previousAnswerNaming: Int?
    /// The SRV and TXT of the instance a PTR answer names.
    var serviceRecords: [ResourceRecord] = []
    /// True when the host's records go too: its addresses and the NSEC for a family it lacks.
    var needsHostRecords = false
    /// The addresses and NSEC of another host we publish for (a proxy), named by the answer or
    /// by the SRV record of its instance.
    var otherHostRecords: [ResourceRecord] = []
}

extension ResourceRecord {
    /// This record as a legacy unicast answer carries it (§6.7).
    var legacy: ResourceRecord {
        var record = self
        record.cacheFlush = false
        record.ttl = min(record.ttl, MDNSEngine.legacyTTL)
        return record
    }
}
