@testable import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Foundation
import Synchronization
import Testing

@testable import Ciao

/// The DNS-SD layer of the runtime on the simulated network: browses, resolutions, type
/// enumeration and publications, as the API's callbacks receive them.
@Suite struct ServiceDirectoryTests {
    static let type = try! ServiceType("_ciao._tcp")

    /// A publication of `name` of ``type`` with an empty TXT record, renamed on a conflict.
    static func publication(_ name: String = "Web", port: UInt16 = 80) -> Publication {
        Publication(name: name, type: type, port: port, txtRecord: .empty, subtypes: [], allowsRenaming: true)
    }

    /// "Printer" of ``type`` on port 631, also under the subtype `_printer`.
    static let printer = Publication(
        name: "Printer", type: type, port: 631, txtRecord: .empty, subtypes: ["_printer"], allowsRenaming: true)

    /// A publication of `name` on `host`, published with the address `198.18.0.<address>` (a
    /// proxy) unless `address` is nil.
    static func onAnotherHost(
        _ name: String, port: UInt16 = 631, host: String = "printer.local.", address: UInt8? = 77
    ) -> Publication {
        var publication = Self.publication(name, port: port)
        publication.hostName = Names.name(host)
        publication.hostAddresses = address.map { [.v4(IPv4Address(198, 18, 0, $0))] } ?? []
        return publication
    }

    @Test func browsesAndResolvesAServiceOfAnotherHost() throws {
        var harness = DriverPair()
        harness.publish(
            Publication(
                name: "Web", type: Self.type, port: 8080, txtRecord: try TXTRecord(["k": .bytes(Data([0, 255]))]),
                subtypes: [], allowsRenaming: true), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        let service = Service(name: "Web", type: Self.type, interfaceIndex: 1)
        #expect(harness.browseUpdates == [.found(service)])
        let resolved = try #require(harness.resolved.last)
        #expect(resolved.service == service)
        #expect(resolved.hostName == "alpha.local.")
        #expect(resolved.port == 8080)
        #expect(resolved.txtRecord == (try TXTRecord(["k": .bytes(Data([0, 255]))])))
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4).description
        let v6 = harness.network.address(of: harness.publisher, on: harness.link, family: .v6).description
        #expect(resolved.addresses == [v4, v6])
        #expect(harness.resolved.count == 1)
    }

    /// A subtype browse (`_printer._sub._http._tcp`, RFC 6763 §7.1) finds only the instances
    /// published under it, as services of the base type.
    @Test func subtypeBrowseFindsOnlyItsInstances() throws {
        var harness = DriverPair()
        harness.publish(Self.printer, on: harness.publisher)
        harness.publish(
            Publication(
                name: "Plain", type: Self.type, port: 80, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type, subtype: "_printer")
        harness.run(for: .seconds(2))
        #expect(harness.browseUpdates == [.found(Service(name: "Printer", type: Self.type, interfaceIndex: 1))])
        #expect(harness.resolved.map(\.port) == [631])
    }

    /// A saved reference whose interface index no longer exists (interfaces renumbered by a
    /// reboot) resolves over every interface instead of waiting out its timeout.
    @Test func aStaleInterfaceIndexResolvesOverEveryInterface() throws {
        var harness = DriverPair()
        harness.publish(
            Publication(
                name: "Saved", type: Self.type, port: 8080, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.resolve(Service(name: "Saved", type: Self.type, interfaceIndex: 77))
        harness.run(for: .seconds(2))
        #expect(harness.resolved.last?.port == 8080)
        // Resolved over every interface, the service is where it answered (`ciao resolve -p`
        // prints that interface, not "any").
        #expect(harness.resolved.last?.service.interfaceIndex == 1)
    }

    @Test func txtUpdateIsResolvedAgainAndGoodbyeRemoves() throws {
        var harness = DriverPair()
        let token = harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        let updated = try TXTRecord(strings: ["v": "2"])
        harness.send(.updateTXT(updated, of: token), on: harness.publisher)
        // Announced twice, a second apart (RFC 6762 §8.4): the repeat is no change, not reported.
        harness.run(for: .seconds(2.5))
        #expect(harness.resolved.map(\.txtRecord) == [.empty, updated])
        harness.send(.cancel(token), on: harness.publisher)
        harness.run(for: .seconds(2))
        #expect(harness.browseUpdates.last == .removed(Service(name: "Web", type: Self.type, interfaceIndex: 1)))
    }

    /// The service leaves and comes back as it was: its records were removed and added again,
    /// but the resolution's result is what it last reported, so it is not reported as another.
    @Test func resolutionReportsNothingWhenTheResultComesBackUnchanged() throws {
        var harness = DriverPair()
        let publication = Publication(
            name: "Web", type: Self.type, port: 80, txtRecord: .empty, subtypes: [], allowsRenaming: true)
        let token = harness.publish(publication, on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.resolve(Service(name: "Web", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        #expect(harness.resolved.count == 1)
        func browserCachesTheSRV() -> Bool {
            harness.network.engine(harness.browser).cachedRecords(on: InterfaceID(1)).contains { $0.type == .srv }
        }
        harness.send(.cancel(token), on: harness.publisher)
        harness.run(for: .seconds(3))
        #expect(!browserCachesTheSRV(), "the goodbye removed it")
        harness.publish(publication, on: harness.publisher)
        harness.run(for: .seconds(5))
        #expect(browserCachesTheSRV(), "published again")
        // Reported again only as its records come over each family anew (what `ciao browse -p`
        // prints a line for), never as another result.
        let results = harness.resolved
        #expect(results.allSatisfy { $0 == results[0] }, "\(results)")
        #expect(zip(results, results.dropFirst()).allSatisfy { $0.addressesHeardOver != $1.addressesHeardOver })
    }

    /// The publisher's IPv4 address changes: the resolution reports the new one instead of the
    /// old, which the cache replaced (RFC 6762 §10.2), and keeps the IPv6 address.
    @Test func changedAddressReplacesTheOldOne() throws {
        var harness = DriverPair()
        harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        let v6 = harness.network.address(of: harness.publisher, on: harness.link, family: .v6)
        let newV4 = CiaoEngine.IPAddress.v4(IPv4Address(198, 18, 99, 7))
        harness.network.setAddresses(
            [InterfaceAddress(newV4, prefixLength: 15), InterfaceAddress(v6, prefixLength: 64)],
            of: harness.publisher, on: harness.link)
        harness.run(for: .seconds(3))
        #expect(harness.resolved.last?.addresses == [newV4.description, v6.description])
    }

    /// An IPv4-only publisher's NSEC says its host has no AAAA record (RFC 6762 §6.1): the
    /// resolution's first result says IPv6 is denied, so a one-shot resolve need not wait for it;
    /// once the host gains an IPv6 address, the result has it and no denial.
    @Test func aFamilyTheHostLacksIsDeniedFromTheFirstResult() throws {
        var harness = DriverPair(publisherFamilies: [.v4])
        harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.resolve(Service(name: "Web", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        let first = try #require(harness.resolved.first)
        #expect(first.addresses == [v4.description])
        #expect(first.familiesDenied == [.ipv6])

        let v6 = CiaoEngine.IPAddress.v6(try #require(IPv6Address("fd00:198:18::77")))
        harness.network.setAddresses(
            [InterfaceAddress(v4, prefixLength: 15), InterfaceAddress(v6, prefixLength: 64)],
            of: harness.publisher, on: harness.link)
        harness.run(for: .seconds(3))
        #expect(harness.resolved.last?.addresses == [v4.description, v6.description])
        #expect(harness.resolved.last?.familiesDenied == [])
    }

    /// An IPv6 link-local address names its interface as its zone, as the interface is called
    /// now: renamed, the zone follows.
    @Test func linkLocalAddressCarriesItsInterfacesCurrentName() throws {
        var harness = DriverPair()
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        let linkLocal = CiaoEngine.IPAddress.v6(try #require(IPv6Address("fe80::a1")))
        harness.network.setAddresses(
            [InterfaceAddress(v4, prefixLength: 15), InterfaceAddress(linkLocal, prefixLength: 64)],
            of: harness.publisher, on: harness.link)
        harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        #expect(harness.resolved.last?.addresses == [v4.description, "fe80::a1%sim0"])

        var renamed = DriverNetwork.interface(for: harness.browser, on: harness.link)
        renamed.name = "wlan7"
        _ = harness.network.withStack(harness.browser) { driver, now in
            driver.handle(.setInterface(renamed), at: now)
        }
        // The publisher's address moves, so the resolution reports again.
        let newV4 = CiaoEngine.IPAddress.v4(IPv4Address(198, 18, 99, 7))
        harness.network.setAddresses(
            [InterfaceAddress(newV4, prefixLength: 15), InterfaceAddress(linkLocal, prefixLength: 64)],
            of: harness.publisher, on: harness.link)
        harness.run(for: .seconds(3))
        #expect(harness.resolved.last?.addresses == [newV4.description, "fe80::a1%wlan7"])
    }

    /// A service withdrawn and published again on another port moments later: a resolution
    /// started while the old SRV record has its last second in the cache gets the new port, and
    /// the old record's removal a moment later does not undo it (a TXT update is still resolved).
    @Test func resolutionIgnoresRecordsOnTheirWayOut() throws {
        var harness = DriverPair()
        let old = harness.publish(Self.publication("Moved", port: 8080), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        #expect(harness.resolved.last?.port == 8080)
        harness.send(.cancel(old), on: harness.publisher)
        let new = harness.publish(
            Publication(
                name: "Moved", type: Self.type, port: 9090, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.run(for: .milliseconds(900))
        let resolvedBefore = harness.resolved.count
        harness.resolve(Service(name: "Moved", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let updated = try TXTRecord(strings: ["v": "2"])
        harness.send(.updateTXT(updated, of: new), on: harness.publisher)
        harness.run(for: .seconds(2))
        let fresh = harness.resolved[resolvedBefore...].filter { $0.service.name == "Moved" }
        #expect(fresh.allSatisfy { $0.port == 9090 }, "\(fresh.map(\.port))")
        #expect(fresh.last?.txtRecord == updated)
    }

    /// Resolutions of services on one host share its A and AAAA queries: one of each, not one
    /// per resolution. A resolution that stops leaves the others following
    /// the host's addresses; after the last one, nobody asks for them.
    @Test func resolutionsOfOneHostShareItsAddressQueries() throws {
        var harness = DriverPair()
        let names = ["Web", "Mail", "Print"]
        for name in names {
            harness.publish(Self.publication(name), on: harness.publisher)
        }
        harness.run(for: .seconds(3))
        let tokens = names.map { harness.resolve(Service(name: $0, type: Self.type, interfaceIndex: 1)) }
        harness.run(for: .seconds(2))
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        let v6 = harness.network.address(of: harness.publisher, on: harness.link, family: .v6)
        #expect(Set(harness.resolved.map(\.service.name)) == Set(names))
        #expect(harness.resolved.allSatisfy { $0.addresses == [v4.description, v6.description] })
        let alpha = Names.name("alpha.local.")
        #expect(harness.network.engine(harness.browser).queries.asking(alpha).count == 2, "one A and one AAAA query")

        harness.send(.cancel(tokens[0]), on: harness.browser)
        let resolvedBefore = harness.resolved.count
        let newV4 = CiaoEngine.IPAddress.v4(IPv4Address(198, 18, 99, 8))
        harness.network.setAddresses(
            [InterfaceAddress(newV4, prefixLength: 15), InterfaceAddress(v6, prefixLength: 64)], of: harness.publisher,
            on: harness.link)
        harness.run(for: .seconds(3))
        let after = harness.resolved[resolvedBefore...]
        #expect(Set(after.map(\.service.name)) == ["Mail", "Print"])
        #expect(after.allSatisfy { $0.addresses == [newV4.description, v6.description] })

        for token in tokens.dropFirst() {
            harness.send(.cancel(token), on: harness.browser)
        }
        let cancelledAt = harness.network.now
        harness.network.run(for: .seconds(7200))
        let questions = harness.network.sentMessages(by: harness.browser, family: nil, since: cancelledAt)
            .flatMap(\.message.questions)
        let addressQuestions = questions.filter { $0.type == .a || $0.type == .aaaa }
        #expect(addressQuestions.isEmpty, "\(addressQuestions)")
    }

    /// A resolving browse resolves each instance it finds and stops with it: after the browse is
    /// cancelled, nobody asks for the instances' SRV and TXT records or their host's addresses.
    @Test func aResolvingBrowseStopsItsResolutionsWithIt() throws {
        var harness = DriverPair()
        for name in ["Web", "Mail"] {
            harness.publish(Self.publication(name), on: harness.publisher)
        }
        harness.run(for: .seconds(3))
        let browse = harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        #expect(Set(harness.resolved.map(\.service.name)) == ["Web", "Mail"])
        let names = try ["Web._ciao._tcp.local.", "Mail._ciao._tcp.local.", "alpha.local."].map(
            DomainName.init(parsing:))
        let engine = { harness.network.engine(harness.browser) }
        #expect(names.map { engine().queries.asking($0).count } == [2, 2, 2], "SRV and TXT; A and AAAA")
        harness.send(.cancel(browse), on: harness.browser)
        #expect(names.allSatisfy { engine().queries.asking($0).isEmpty })
    }

    /// A reconfirmed service of a publisher gone without goodbyes (RFC 6762 §10.4) is reported
    /// removed ten seconds on, with its SRV, TXT and address records gone from the cache; one of
    /// another type or domain reconfirms nothing, and one whose publisher is there stays.
    @Test func aReconfirmedServiceIsRemovedUnlessItsPublisherAnswers() throws {
        var harness = DriverPair()
        harness.publish(Self.printer, on: harness.publisher)
        harness.run(for: .seconds(3))
        let browse = harness.browseAndResolve(Self.type, subtype: "_printer")
        harness.run(for: .seconds(2))
        let service = Service(name: "Printer", type: Self.type, interfaceIndex: 1)
        #expect(harness.browseUpdates == [.found(service)])
        let instance = try DomainName(parsing: "Printer._ciao._tcp.local.")
        let host = try DomainName(parsing: "alpha.local.")
        /// The records of the service cached: PTR (under the subtype and the type), SRV, TXT,
        /// and the host's A and AAAA.
        func cached() -> [ResourceRecord] {
            harness.network.engine(harness.browser).cachedRecords(on: InterfaceID(1)).filter {
                $0.data == .ptr(instance) || ($0.name == instance && [.srv, .txt].contains($0.type))
                    || ($0.name == host && [.a, .aaaa].contains($0.type))
            }
        }
        #expect(cached().count == 6)

        // The publisher is there: it answers, and nothing changes. What the browser asked at once
        // names the PTR under the subtype and the type, the SRV, TXT, A and AAAA, none listed.
        let start = harness.network.now
        harness.send(.reconfirm(service, of: browse), on: harness.browser)
        harness.run(for: .seconds(30))
        #expect(harness.browseUpdates == [.found(service)])
        let asked = try harness.network.transmissions.filter { $0.sender == harness.browser && $0.time == start }
            .map { try Message(decoding: $0.datagram.bytes) }
        let subtypeName = try DomainName(parsing: "_printer._sub._ciao._tcp.local.")
        let questions = Set(asked.flatMap(\.questions).map { "\($0.name) \($0.type)" })
        #expect(
            questions == [
                "\(subtypeName) PTR", "_ciao._tcp.local. PTR", "\(instance) SRV", "\(instance) TXT",
                "\(host) A", "\(host) AAAA",
            ], "\(questions)")
        #expect(asked.allSatisfy { $0.answers.isEmpty }, "\(asked.map(\.answers))")

        harness.network.crash(harness.publisher)
        harness.run(for: .seconds(1))
        let elsewhere = [
            Service(name: "Printer", type: try ServiceType("_other._tcp"), interfaceIndex: 1),
            Service(name: "Printer", type: Self.type, domain: "example.com.", interfaceIndex: 1),
        ]
        for other in elsewhere { harness.send(.reconfirm(other, of: browse), on: harness.browser) }
        harness.run(for: .seconds(15))
        #expect(harness.browseUpdates == [.found(service)])

        harness.send(.reconfirm(service, of: browse), on: harness.browser)
        harness.run(for: .milliseconds(9_990))
        #expect(harness.browseUpdates == [.found(service)])
        harness.run(for: .milliseconds(20))
        #expect(harness.browseUpdates == [.found(service), .removed(service)])
        #expect(cached().isEmpty, "\(cached())")
    }

    /// An automatic resolution with no result by its timeout fails alone, in the driver's time:
    /// reported once, at the instant, its queries stopped, the instance still found; resolutions
    /// with a result never fail; a new find of the instance is resolved afresh, with a timeout of
    /// its own.
    @Test func anAutomaticResolutionWithoutAResultFailsAtItsTimeoutAlone() throws {
        var harness = DriverPair()
        harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        let timeout = Duration.milliseconds(2500)
        harness.browseAndResolve(Self.type, resolutionTimeout: timeout)
        // An instance whose PTR record comes but whose SRV and TXT records nobody answers for.
        let ghostName = Names.instance("Ghost")
        let ghost = Service(name: "Ghost", type: Self.type, interfaceIndex: 1)
        harness.network.inject(
            Messages.response([Services.ptr(to: ghostName)]), from: harness.publisher, on: harness.link)
        harness.run(for: .seconds(10))
        let asking = { (harness: DriverPair, name: DomainName) in
            harness.network.engine(harness.browser).queries.asking(name).count
        }
        let failures = { (harness: DriverPair) in
            harness.network.timedEvents(of: harness.browser).flatMap { time, update in
                guard case .browse(_, let updates) = update else { return [(Instant, BrowseUpdate)]() }
                return updates.filter { $0.isResolutionFailure || $0 == .found(ghost) }.map { (time, $0) }
            }
        }
        let first = failures(harness)
        #expect(first.map(\.1) == [.found(ghost), .resolutionFailed(ghost)])
        #expect(first.count == 2 && first[1].0 - first[0].0 == timeout, "at its timeout, not at a later wake-up")
        #expect(harness.resolved.map(\.service.name) == ["Web"], "Web, resolved, does not fail")
        #expect(asking(harness, ghostName) == 0, "the failed resolution is stopped")
        #expect(asking(harness, Names.instance("Web")) == 2, "the other resolution goes on: SRV and TXT")

        // Gone (a goodbye takes a second, RFC 6762 §10.1) and found again: a new find.
        harness.network.inject(
            Messages.response([Services.ptr(to: ghostName, ttl: 0)]), from: harness.publisher, on: harness.link)
        harness.run(for: .seconds(2))
        harness.network.inject(
            Messages.response([Services.ptr(to: ghostName)]), from: harness.publisher, on: harness.link)
        harness.run(for: .milliseconds(100))
        #expect(asking(harness, ghostName) == 2, "resolved afresh")
        harness.run(for: .seconds(10))
        let again = failures(harness)[2...].map { $0 }
        #expect(again.map(\.1) == [.found(ghost), .resolutionFailed(ghost)])
        #expect(again.count == 2 && again[1].0 - again[0].0 == timeout)
        #expect(harness.browseUpdates.filter(\.isResolutionFailure).count == 2)
    }

    /// An instance whose name no query can ask for (a label of bytes that are not UTF-8, each
    /// spelled U+FFFD in the service's name, which then takes more than 63 bytes) fails at once,
    /// in the next batch after its find, rather than never.
    @Test func anInstanceNoQueryCanAskForFailsAtOnce() throws {
        var harness = DriverPair()
        harness.browseAndResolve(Self.type)
        let latin1 = try Names.serviceType.prepending(label: [UInt8](repeating: 0xE9, count: 30))
        harness.network.inject(Messages.response([Services.ptr(to: latin1)]), from: harness.publisher, on: harness.link)
        harness.run(for: .milliseconds(100))
        let updates = harness.browseUpdates
        #expect(updates.count == 2)
        guard case .found(let found) = updates.first else {
            Issue.record("not found: \(updates)")
            return
        }
        #expect(found.name.utf8.count == 90)
        #expect(updates.last == .resolutionFailed(found))
    }

    /// Deadlines of resolutions settled or gone do not pile up beneath one that stays pending:
    /// 200 instances that come and go while an unresolvable one waits out an hour leave the heap
    /// bounded.
    @Test func churnDoesNotGrowTheResolutionDeadlines() throws {
        var harness = DriverPair()
        harness.browseAndResolve(Self.type, resolutionTimeout: .seconds(3600))
        harness.network.inject(
            Messages.response([Services.ptr(to: Names.instance("Ghost"))]), from: harness.publisher, on: harness.link)
        for cycle in 0..<200 {
            let name = Names.instance("Passing \(cycle)")
            harness.network.inject(
                Messages.response([Services.ptr(to: name)]), from: harness.publisher, on: harness.link)
            harness.run(for: .milliseconds(100))
            harness.network.inject(
                Messages.response([Services.ptr(to: name, ttl: 0)]), from: harness.publisher, on: harness.link)
            harness.run(for: .milliseconds(1100))
        }
        #expect(harness.browseUpdates.filter { if case .found = $0 { true } else { false } }.count == 201)
        let kept = harness.network.stack(harness.browser).directory.resolutionDeadlineCount
        #expect(kept <= 2 * 1 + 64, "\(kept) deadlines kept for one pending resolution")
    }

    /// Each input is a batch of its own, as a discovery session receives it: an instance lost
    /// with its interface and found again by the next datagram is reported removed, then found,
    /// and resolved afresh as a new find.
    @Test func anInstanceLostAndFoundByTwoInputsIsANewFind() throws {
        var harness = DriverPair()
        harness.publish(Self.publication(), on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        let webName = try DomainName(parsing: "Web._ciao._tcp.local.")
        let web = Service(name: "Web", type: Self.type, interfaceIndex: 1)
        let answer = try #require(
            harness.network.transmissions.last {
                $0.sender == harness.publisher && $0.datagram.family == .v4
                    && (try? Message(decoding: $0.datagram.bytes))?.answers.contains { $0.type == .ptr } == true
            })
        let interface = DriverNetwork.interface(for: harness.browser, on: harness.link)
        let source = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        let batchesBefore = harness.network.events(of: harness.browser).count
        harness.network.withStack(harness.browser) { driver, now in
            driver.handle(.removeInterface(interface.id), at: now)
            driver.handle(.setInterface(interface), at: now)
            driver.handle(
                .receive(
                    ReceivedDatagram(
                        bytes: answer.datagram.bytes, source: SocketAddress(source, port: 5353),
                        interface: interface.id, isMulticast: true)), at: now)
        }
        let batches = harness.network.events(of: harness.browser)[batchesBefore...].compactMap { update in
            if case .browse(_, let updates) = update { updates.lastMentions } else { nil }
        }
        #expect(batches.filter { !$0.isEmpty } == [[.removed(web)], [.found(web)]])
        #expect(harness.network.engine(harness.browser).queries.asking(webName).count == 2, "SRV and TXT")
    }

    /// A resolution that joins the address queries of a host others already follow is not shown
    /// an address that a goodbye has withdrawn, though the cache keeps it one more second (§10.1).
    @Test func joiningResolutionIsNotShownAnAddressOnItsWayOut() throws {
        var harness = DriverPair()
        for name in ["First", "Second"] {
            harness.publish(Self.publication(name), on: harness.publisher)
        }
        harness.run(for: .seconds(3))
        harness.resolve(Service(name: "First", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let v4 = harness.network.address(of: harness.publisher, on: harness.link, family: .v4)
        harness.network.setAddresses([InterfaceAddress(v4, prefixLength: 15)], of: harness.publisher, on: harness.link)
        harness.run(for: .milliseconds(200))
        let resolvedBefore = harness.resolved.count
        harness.resolve(Service(name: "Second", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let second = harness.resolved[resolvedBefore...].filter { $0.service.name == "Second" }
        #expect(second.first?.addresses == [v4.description], "\(second.map(\.addresses))")
        #expect(harness.resolved.last { $0.service.name == "First" }?.addresses == [v4.description])
    }

    /// A service moving to another host moves its resolution to that host's addresses, while a
    /// resolution of a service still on the first host keeps following the first host's.
    @Test func resolutionFollowsItsServiceToAnotherHost() throws {
        var harness = DriverPair()
        let moving = harness.publish(
            Publication(
                name: "Moving", type: Self.type, port: 80, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.publish(
            Publication(
                name: "Staying", type: Self.type, port: 80, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.run(for: .seconds(3))
        for name in ["Moving", "Staying"] { harness.resolve(Service(name: name, type: Self.type, interfaceIndex: 1)) }
        harness.run(for: .seconds(2))
        harness.send(.cancel(moving), on: harness.publisher)
        harness.run(for: .seconds(2))
        harness.publish(
            Publication(
                name: "Moving", type: Self.type, port: 81, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.browser)
        harness.run(for: .seconds(3))
        let browserAddresses = [IPFamily.v4, .v6].map {
            harness.network.address(of: harness.browser, on: harness.link, family: $0).description
        }
        let moved = try #require(harness.resolved.last { $0.service.name == "Moving" })
        #expect(moved.hostName == "beta.local." && moved.port == 81)
        #expect(moved.addresses == browserAddresses)

        let v6 = harness.network.address(of: harness.publisher, on: harness.link, family: .v6)
        let newV4 = CiaoEngine.IPAddress.v4(IPv4Address(198, 18, 99, 9))
        harness.network.setAddresses(
            [InterfaceAddress(newV4, prefixLength: 15), InterfaceAddress(v6, prefixLength: 64)], of: harness.publisher,
            on: harness.link)
        harness.run(for: .seconds(3))
        #expect(
            harness.resolved.last { $0.service.name == "Staying" }?.addresses == [newV4.description, v6.description])
        #expect(harness.resolved.last { $0.service.name == "Moving" }?.addresses == browserAddresses)
    }

    @Test func publicationReportsItsNameAndHostOrItsConflict() {
        var harness = DriverPair()
        harness.publish(
            Self.publication("Taken", port: 1),
            on: harness.browser)
        harness.run(for: .seconds(3))
        harness.publish(
            Self.publication("Taken", port: 2),
            on: harness.publisher)
        harness.publish(
            Publication(
                name: "Taken", type: Self.type, port: 3, txtRecord: .empty, subtypes: [], allowsRenaming: false),
            on: harness.publisher)
        harness.publish(
            Self.publication("", port: 4),
            on: harness.publisher)
        harness.run(for: .seconds(3))
        #expect(
            harness.publicationUpdates[harness.publisher]?.contains(
                .registered(name: "Taken (2)", hostName: "alpha.local.")) == true)
        #expect(harness.publicationUpdates[harness.publisher]?.contains(.nameConflict) == true)
        #expect(
            harness.publicationUpdates[harness.publisher]?.contains(
                .registered(name: "alpha", hostName: "alpha.local.")) == true)
    }

    /// A service published for another host (here the browser's, beta) reports that host as its
    /// own, and resolves to that host's addresses, which that host answers for.
    @Test func aServiceOnAnotherHostResolvesToThatHost() throws {
        var harness = DriverPair()
        harness.publish(Self.onAnotherHost("Proxied", host: "beta.local.", address: nil), on: harness.publisher)
        harness.publish(Self.publication("Own", port: 80), on: harness.browser)
        harness.run(for: .seconds(3))
        #expect(
            harness.publicationUpdates[harness.publisher] == [.registered(name: "Proxied", hostName: "beta.local.")])
        harness.resolve(Service(name: "Proxied", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let resolved = try #require(harness.resolved.last { $0.service.name == "Proxied" })
        #expect(resolved.hostName == "beta.local." && resolved.port == 631)
        let browserAddresses = [IPFamily.v4, .v6].map {
            harness.network.address(of: harness.browser, on: harness.link, family: $0).description
        }
        #expect(resolved.addresses == browserAddresses)
    }

    /// When this host is renamed (RFC 6762 §9), a service on this host reports the new host
    /// name; one on another host has nothing new to report.
    @Test func aRenameOfThisHostIsNotReportedForAServiceOnAnotherHost() throws {
        var harness = DriverPair()
        harness.publish(Self.onAnotherHost("Proxied", address: nil), on: harness.publisher)
        harness.publish(Self.publication("Own", port: 80), on: harness.publisher)
        // This host's own name, given as the SRV target, is this host.
        harness.publish(
            Self.onAnotherHost("Named", port: 81, host: "alpha.local.", address: nil), on: harness.publisher)
        harness.run(for: .seconds(3))
        let alpha = Names.name("alpha.local.")
        let observer = harness.network.addHost(named: nil, links: [harness.link]) { DiscoveryDriver(engine: $0) }
        let impostor = ResourceRecord(name: alpha, cacheFlush: true, ttl: 120, data: .a(IPv4Address(198, 18, 0, 200)))
        harness.network.inject(Messages.response([impostor]), from: observer, on: harness.link)
        harness.network.defend(until: harness.network.now + .seconds(6), by: observer, on: harness.link, with: impostor)
        {
            $0 == alpha
        }
        #expect(
            harness.publicationUpdates[harness.publisher] == [
                .registered(name: "Proxied", hostName: "printer.local."),
                .registered(name: "Own", hostName: "alpha.local."),
                .registered(name: "Named", hostName: "alpha.local."),
                .registered(name: "Named", hostName: "alpha-2.local."),
                .registered(name: "Own", hostName: "alpha-2.local."),
            ])
    }

    /// A service published with its host's name and addresses (a proxy, `dns-sd -P`) resolves
    /// to them; withdrawn, it goes, and the name with it.
    @Test func aProxiedServiceResolvesToTheAddressesGiven() throws {
        var harness = DriverPair()
        var publication = Self.publication("Old Printer", port: 631)
        publication.hostName = Names.name("printer.local.")
        let addresses = ["198.18.0.77", "fd00:198:18::77"]
        publication.hostAddresses = [.v4(IPv4Address(addresses[0])!), .v6(IPv6Address(addresses[1])!)]
        let token = harness.publish(publication, on: harness.publisher)
        harness.run(for: .seconds(3))
        harness.resolve(Service(name: "Old Printer", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        let resolved = try #require(harness.resolved.last { $0.service.name == "Old Printer" })
        #expect(resolved.hostName == "printer.local." && resolved.port == 631 && resolved.addresses == addresses)

        harness.send(.cancel(token), on: harness.publisher)
        harness.run(for: .seconds(2))
        // The browser cached the address while resolving; the goodbye took it out.
        let batchesBefore = harness.recordBatches.count
        harness.lookUp(try RecordLookup(name: "printer.local", types: [.a], interfaceIndex: 0))
        harness.run(for: .seconds(2))
        #expect(harness.recordBatches.count == batchesBefore)
    }

    /// On the proxy's own host a resolution finds the addresses it publishes for the other host,
    /// as it finds its own services (the engine's queries see its own records).
    @Test func aProxyResolvesOnItsOwnHost() throws {
        var harness = DriverPair()
        harness.publish(Self.onAnotherHost("Old Printer"), on: harness.publisher)
        harness.run(for: .seconds(3))
        let token = BackendToken(rawValue: 999)
        harness.send(
            .resolve(Service(name: "Old Printer", type: Self.type, interfaceIndex: 1), token), on: harness.publisher)
        harness.run(for: .seconds(3))
        let resolved = harness.network.events(of: harness.publisher).compactMap { update -> ResolvedService? in
            if case .resolved(token, let resolved) = update { resolved } else { nil }
        }
        #expect(resolved.last?.hostName == "printer.local." && resolved.last?.addresses == ["198.18.0.77"])
    }

    /// A proxy for a name another host holds fails as a name conflict, and its service goes too.
    @Test func aProxyForANameHeldElsewhereIsAConflict() throws {
        var harness = DriverPair()
        harness.publish(Self.onAnotherHost("First"), on: harness.browser)
        harness.run(for: .seconds(3))
        harness.publish(Self.onAnotherHost("Second", address: 78), on: harness.publisher)
        harness.run(for: .seconds(5))
        #expect(harness.publicationUpdates[harness.publisher] == [.nameConflict])
        #expect(harness.publicationUpdates[harness.browser] == [.registered(name: "First", hostName: "printer.local.")])
        harness.resolve(Service(name: "Second", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        #expect(!harness.resolved.contains { $0.service.name == "Second" })
    }

    /// Two services of one proxied device share its name: both resolve to its address, and the
    /// name stays for the second when the first is withdrawn. Other addresses for the same name,
    /// or this host's own name, are a name conflict at once.
    @Test func proxiesOfOneHostShareItsName() throws {
        var harness = DriverPair()
        let ipp = harness.publish(Self.onAnotherHost("IPP"), on: harness.publisher)
        // An empty name is the name of the host the service runs on.
        harness.publish(Self.onAnotherHost("", port: 9), on: harness.publisher)
        harness.publish(Self.onAnotherHost("Admin", port: 80), on: harness.publisher)
        harness.publish(Self.onAnotherHost("Other", port: 81, address: 78), on: harness.publisher)
        harness.publish(Self.onAnotherHost("Self", port: 82, host: "alpha.local."), on: harness.publisher)
        harness.run(for: .seconds(3))
        let updates = harness.publicationUpdates[harness.publisher] ?? []
        #expect(updates.prefix(2) == [.nameConflict, .nameConflict])
        // Both wait for the printer's name and are registered as it is won, in either order.
        #expect(
            Set(updates.dropFirst(2)) == [
                .registered(name: "IPP", hostName: "printer.local."),
                .registered(name: "printer", hostName: "printer.local."),
                .registered(name: "Admin", hostName: "printer.local."),
            ] && updates.count == 5)
        harness.send(.cancel(ipp), on: harness.publisher)
        harness.run(for: .seconds(2))
        harness.resolve(Service(name: "Admin", type: Self.type, interfaceIndex: 1))
        harness.run(for: .seconds(2))
        #expect(harness.resolved.last { $0.service.name == "Admin" }?.addresses == ["198.18.0.77"])
    }

    /// A proxied service that fails on its own name (no renaming) takes the other host's name
    /// with it: nobody answers for that name afterwards.
    @Test func aProxysNameGoesWithItsService() throws {
        var harness = DriverPair()
        harness.publish(Self.publication("Taken", port: 1), on: harness.browser)
        harness.run(for: .seconds(3))
        var proxy = Self.onAnotherHost("Taken", host: "ghost.local.")
        proxy.allowsRenaming = false
        harness.publish(proxy, on: harness.publisher)
        harness.run(for: .seconds(3))
        #expect(harness.publicationUpdates[harness.publisher] == [.nameConflict])
        harness.lookUp(try RecordLookup(name: "ghost.local", types: [.a], interfaceIndex: 0))
        harness.run(for: .seconds(3))
        #expect(harness.recordBatches.isEmpty, "\(harness.recordBatches)")
    }

    @Test func typeEnumerationReportsEachTypeOnce() throws {
        var harness = DriverPair()
        let other = try ServiceType("_other._udp")
        // Longer than RFC 6335's 15 characters, as Apple's NetService and avahi publish them.
        let long = try ServiceType(observed: "_CinchGamingService._tcp")
        for (name, type) in [("A", Self.type), ("B", Self.type), ("C", other), ("D", long)] {
            harness.publish(
                Publication(name: name, type: type, port: 1, txtRecord: .empty, subtypes: [], allowsRenaming: true),
                on: harness.publisher)
        }
        harness.run(for: .seconds(3))
        harness.browseTypes()
        harness.run(for: .seconds(3))
        #expect(
            harness.types.sorted { $0.rawValue < $1.rawValue }
                == [long, Self.type, other].sorted { $0.rawValue < $1.rawValue })
    }

    /// A type present on two interfaces is reported once; gone from both, it is new again when
    /// it comes back.
    @Test func aTypeOnTwoInterfacesIsReportedOnceAndAgainAfterItWent() {
        var network = DriverNetwork(seed: 7)
        let links = [network.addLink(), network.addLink()]
        let publishers = links.map {
            network.addHost(named: "pub\($0.index)", links: [$0], makeStack: DiscoveryDriver.init)
        }
        let browser = network.addHost(named: "beta", links: links, makeStack: DiscoveryDriver.init)
        func send(_ command: DiscoveryDriver.Command, on host: DriverNetwork.HostID) {
            _ = network.withStack(host) { driver, now in driver.handle(.command(command), at: now) }
        }
        func typesReported() -> Int {
            network.events(of: browser).filter { if case .serviceType(_, Self.type) = $0 { true } else { false } }
                .count
        }
        for (index, host) in publishers.enumerated() {
            send(.publish(Self.publication(), BackendToken(rawValue: UInt64(index + 1))), on: host)
        }
        network.run(for: .seconds(3))
        send(.browseTypes(BackendToken(rawValue: 10)), on: browser)
        network.run(for: .seconds(3))
        #expect(typesReported() == 1)
        for (index, host) in publishers.enumerated() {
            send(.cancel(BackendToken(rawValue: UInt64(index + 1))), on: host)
        }
        network.run(for: .seconds(3))
        #expect(typesReported() == 1)
        send(.publish(Self.publication(), BackendToken(rawValue: 3)), on: publishers[0])
        network.run(for: .seconds(3))
        #expect(typesReported() == 2)
    }

    /// A dual-stack publisher's PTR comes over both families and each address over both (Ciao
    /// sends A and AAAA over each); an IPv4-only publisher's over IPv4 alone, as avahi-browse
    /// shows with its lines per protocol.
    @Test(arguments: [Set<IPFamily>([.v4, .v6]), [.v4]])
    func servicesAndAddressesCarryTheFamiliesTheyCameOver(publisherFamilies: Set<IPFamily>) throws {
        var harness = DriverPair(publisherFamilies: publisherFamilies)
        harness.publishThenBrowseAndResolve("Web", type: Self.type, on: harness.publisher, for: .seconds(2))
        let service = Service(name: "Web", type: Self.type, interfaceIndex: 1)
        let families = Set(publisherFamilies.map(NetworkScope.AddressFamily.init))
        #expect(harness.heardOver.last?.0 == service)
        #expect(harness.heardOver.last?.1 == families)
        let resolved = try #require(harness.resolved.last)
        let addresses = [IPFamily.v4, .v6].filter(publisherFamilies.contains).map {
            harness.network.address(of: harness.publisher, on: harness.link, family: $0).description
        }
        #expect(resolved.addresses == addresses)
        #expect(resolved.addressesHeardOver == Dictionary(uniqueKeysWithValues: families.map { ($0, addresses) }))
    }

    @Test func ownServiceIsFoundAndResolvedOnTheSameHost() throws {
        var harness = DriverPair()
        harness.publishThenBrowseAndResolve("Mine", type: Self.type, on: harness.browser, for: .milliseconds(50))
        let mine = Service(name: "Mine", type: Self.type, interfaceIndex: 1)
        #expect(harness.browseUpdates == [.fromThisHost(mine), .found(mine)])
        #expect(harness.resolved.first?.hostName == "beta.local.")
    }
}

/// Values delivered to callbacks, from any thread.
final class Inbox<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    var values: [Value] { storage.withLock { $0 } }

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    func append(contentsOf values: [Value]) { storage.withLock { $0 += values } }
}

/// `avahi-browse -l`: what this host publishes is told apart from what others publish.
@Suite struct LocalServiceTests {
    static let type = try! ServiceType("_ciao._tcp")

    @Test func ourOwnServiceIsLocalAndAnotherHostsIsNot() throws {
        var harness = DriverPair()
        harness.publish(
            Publication(
                name: "Theirs", type: Self.type, port: 1, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.publisher)
        harness.publish(
            Publication(name: "Ours", type: Self.type, port: 2, txtRecord: .empty, subtypes: [], allowsRenaming: true),
            on: harness.browser)
        harness.run(for: .seconds(3))
        harness.browseAndResolve(Self.type)
        harness.run(for: .seconds(2))
        let ours = Service(name: "Ours", type: Self.type, interfaceIndex: 1)
        let theirs = Service(name: "Theirs", type: Self.type, interfaceIndex: 1)
        let updates = harness.browseUpdates
        #expect(Set(updates) == [.fromThisHost(ours), .found(ours), .found(theirs)])
        #expect(updates.firstIndex(of: .fromThisHost(ours))! < updates.firstIndex(of: .found(ours))!)
    }
}

extension BrowseUpdate {
    fileprivate var isResolutionFailure: Bool {
        if case .resolutionFailed = self { true } else { false }
    }
}
