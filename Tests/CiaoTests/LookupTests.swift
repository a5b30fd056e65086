import Foundation
import Synchronization
import Testing

@testable import Ciao

/// The one-shot lookups and the record and host sessions of the public API, on a fake backend.
@Suite struct LookupTests {
    static func record(
        _ name: String, _ type: DNSRecordType, _ value: String, data: [UInt8], ttl: UInt32 = 120, interface: UInt32 = 2
    ) -> DNSRecord {
        DNSRecord(name: name, type: type, ttl: ttl, data: data, value: value, isUnique: true, interfaceIndex: interface)
    }

    static let v4 = record("alpha.local.", .a, "198.18.0.1", data: [198, 18, 0, 1])
    static let v4Moved = record("alpha.local.", .a, "198.18.0.9", data: [198, 18, 0, 9])
    /// The SOA a unicast DNS server sends with NODATA.
    static let soa = record("lab.example.", DNSRecordType(rawValue: 6), "ns.lab.example.", data: [], interface: 0)
    static let v6 = record("alpha.local.", .aaaa, "fd00::1", data: [0xFD] + [UInt8](repeating: 0, count: 14) + [1])

    /// Emits `first`, then `later` twice the answer pause after it, from a thread of its own: the
    /// lookup has seen answers pause with `first` alone.
    static func emit(_ first: [RecordEvent], then later: [RecordEvent], to token: BackendToken, on backend: FakeBackend)
    {
        Thread {
            backend.emitRecords(token, first)
            Thread.sleep(forTimeInterval: 0.5)
            backend.emitRecords(token, later)
        }.start()
    }

    /// A host's answers may come in several packets: all that come before answers pause are
    /// returned, IPv4 first, a replaced address as its replacement.
    @Test func resolveHostReturnsWhatCameBeforeAnswersPaused() async throws {
        let backend = FakeBackend()
        let resolution = Task {
            try await CiaoResolver.resolveHost(
                "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(30),
                backends: .init(local: backend))
        }
        let (token, lookup) = try await backend.lookup()
        #expect(lookup.name.description == "alpha.local.")
        #expect(lookup.types == [.a, .aaaa])
        backend.emitRecords(token, [.added(Self.v6)])
        backend.emitRecords(token, [.added(Self.v4), .updated(Self.v4Moved)])
        let addresses = try await result(of: resolution)
        #expect(addresses.map(\.address) == ["198.18.0.9", "fd00::1"])
        #expect(addresses.map(\.interfaceIndex) == [2, 2])
        #expect(backend.isCancelled(token))
    }

    /// A host's AAAA records alone do not end a lookup that asked for its A records too before
    /// the second query could bring them (a responder that multicast them within the last second,
    /// or avahi, which sends them over IPv4 only); asked for AAAA alone, they do.
    @Test func ipv6AddressesAloneWaitForTheSecondQuery() async throws {
        let backend = FakeBackend()
        let both = Task {
            try await CiaoResolver.resolveHost(
                "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(30),
                backends: .init(local: backend))
        }
        let token = try await backend.lookup().token
        Self.emit([.added(Self.v6)], then: [.added(Self.v4)], to: token, on: backend)
        #expect(try await result(of: both).map(\.address) == ["198.18.0.1", "fd00::1"])
        let other = FakeBackend()
        // An hour's window: only a wrong wait outlasts the test's limit, however busy the machine.
        let sixOnly = Task {
            try await CiaoResolver.resolveHost(
                "alpha", families: [.ipv6], interfaceIndex: 0, timeout: .seconds(7200), backends: .init(local: other),
                window: .seconds(3600))
        }
        let (sixToken, lookup) = try await other.lookup()
        #expect(lookup.types == [.aaaa])
        other.emitRecords(sixToken, [.added(Self.v6)])
        #expect(try await result(of: sixOnly).map(\.address) == ["fd00::1"])
    }

    /// The NSEC of an IPv6-only host: `alpha.local.` has an AAAA record and nothing else.
    static let onlyIPv6 = record(
        "alpha.local.", .nsec, "alpha.local. AAAA",
        data: [5] + Array("alpha".utf8) + [5] + Array("local".utf8) + [0, 0, 4, 0, 0, 0, 0x08])

    /// A host's AAAA records with an NSEC saying it has no A record (RFC 6762 §6.1) end the
    /// lookup once answers pause: there is nothing for a second query to bring.
    @Test func ipv6AddressesWithIPv4DeniedDoNotWaitForTheSecondQuery() async throws {
        let backend = FakeBackend()
        // An hour's window: only a wrong wait outlasts the test's limit, however busy the machine.
        let both = Task {
            try await CiaoResolver.resolveHost(
                "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(7200),
                backends: .init(local: backend),
                window: .seconds(3600))
        }
        let token = try await backend.lookup().token
        backend.emitRecords(token, [.added(Self.v6), .noSuchRecord(.a, Self.onlyIPv6)])
        #expect(try await result(of: both).map(\.address) == ["fd00::1"])
    }

    /// When NSEC records deny every type asked for and nothing has answered, the lookup fails at
    /// once with `noSuchRecord`, as `dns-sd -Q` reports it, rather than at its timeout; one type
    /// denied of two is not enough.
    @Test func everyTypeDeniedEndsTheLookupWithNoSuchRecord() async throws {
        let backend = FakeBackend()
        let query = Task {
            try await CiaoResolver.query(
                name: "alpha.local.", type: .a, interfaceIndex: 0, timeout: .seconds(7200),
                backends: .init(local: backend))
        }
        let token = try await backend.lookup().token
        backend.emitRecords(token, [.noSuchRecord(.a, Self.onlyIPv6)])
        await #expect(throws: CiaoError.dnsService(CiaoError.Code.noSuchRecord)) { try await result(of: query) }
        #expect(backend.isCancelled(token))

        let other = FakeBackend()
        let host = Task {
            try await CiaoResolver.resolveHost(
                "alpha", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(7200),
                backends: .init(local: other))
        }
        let hostToken = try await other.lookup().token
        other.emitRecords(hostToken, [.noSuchRecord(.a, Self.onlyIPv6)])
        other.emitRecords(hostToken, [.added(Self.v6)])
        #expect(try await result(of: host).map(\.address) == ["fd00::1"])
    }

    @Test func nothingAnsweringTimesOutAndEndsTheLookup() async throws {
        let backend = FakeBackend()
        await #expect(throws: CiaoError.timedOut) {
            try await CiaoResolver.query(
                name: "nobody.local", type: .a, interfaceIndex: 0, timeout: .milliseconds(50),
                backends: .init(local: backend))
        }
        #expect(backend.isCancelled(try await backend.lookup().token))
        backend.state.update { $0.interfacesPresent = false }
        await #expect(throws: CiaoError.noUsableInterface) {
            try await CiaoResolver.query(
                name: "nobody.local", type: .a, interfaceIndex: 0, timeout: .milliseconds(50),
                backends: .init(local: backend))
        }
    }

    /// A record that came and went before answers paused is not returned; with nothing left the
    /// lookup goes on until something answers or the timeout.
    @Test func aRecordWithdrawnIsNotReturned() async throws {
        let backend = FakeBackend()
        let query = Task {
            try await CiaoResolver.query(
                name: "alpha.local.", type: .a, interfaceIndex: 0, timeout: .seconds(30),
                backends: .init(local: backend))
        }
        let token = try await backend.lookup().token
        backend.emitRecords(token, [.added(Self.v4)])
        backend.emitRecords(token, [.removed(Self.v4)])
        backend.emitRecords(token, [.added(Self.v4Moved)])
        #expect(try await result(of: query) == [Self.v4Moved])
    }

    /// Shared records, such as the PTRs of a type that many responders answer, are collected for
    /// two seconds at least: a responder answering after answers have paused is not left out. (The
    /// answers come from a thread of their own, so a busy task pool cannot push the second past
    /// the window.)
    @Test func sharedAnswersAreCollectedForTwoSeconds() async throws {
        let backend = FakeBackend()
        let query = Task {
            try await CiaoResolver.query(
                name: "_ciao._tcp.local", type: .ptr, interfaceIndex: 0, timeout: .seconds(30),
                backends: .init(local: backend))
        }
        let token = try await backend.lookup().token
        func ptr(_ label: String) -> DNSRecord {
            DNSRecord(
                name: "_ciao._tcp.local.", type: .ptr, ttl: 4500, data: [UInt8(label.utf8.count)] + Array(label.utf8),
                value: "\(label)._ciao._tcp.local.", isUnique: false, interfaceIndex: 2)
        }
        let (first, later) = (ptr("First"), ptr("Later"))
        Self.emit([.added(first)], then: [.added(later)], to: token, on: backend)
        #expect(try await result(of: query).map(\.value) == ["First._ciao._tcp.local.", "Later._ciao._tcp.local."])
    }

    @Test func resolveAddressReturnsTheNameOfThePTRRecord() async throws {
        let backend = FakeBackend()
        let resolution = Task {
            try await CiaoResolver.resolveAddress(
                "198.18.0.1", interfaceIndex: 0, timeout: .seconds(30), backends: .init(local: backend))
        }
        let (token, lookup) = try await backend.lookup()
        #expect(lookup.name.description == "1.0.18.198.in-addr.arpa.")
        #expect(lookup.types == [.ptr])
        let name = Array("\u{5}alpha\u{5}local\u{0}".utf8)
        backend.emitRecords(token, [.added(Self.record("1.0.18.198.in-addr.arpa.", .ptr, "alpha.local.", data: name))])
        #expect(try await result(of: resolution) == "alpha.local.")
    }

    @Test func badArgumentsFailBeforeAnyNetworkWork() async throws {
        let backend = FakeBackend()
        await #expect(throws: CiaoError.self) {
            try await CiaoResolver.query(
                name: "alpha.local", type: .a, interfaceIndex: 0, timeout: .zero, backends: .init(local: backend))
        }
        await #expect(throws: CiaoError.self) {
            try await CiaoResolver.resolveHost(
                "alpha", families: [], interfaceIndex: 0, timeout: .seconds(1), backends: .init(local: backend))
        }
        await #expect(throws: CiaoError.self) {
            try await CiaoResolver.resolveAddress(
                "not-an-address", interfaceIndex: 0, timeout: .seconds(1), backends: .init(local: backend))
        }
        #expect(backend.calls.isEmpty)
    }

    /// A name of two labels or more outside `local.` and the reverse-mapping zones is a unicast
    /// DNS question, as `dns-sd -Q` sends it; a name in `local.`, a single label and a reverse
    /// name stay with multicast DNS.
    @Test func namesOutsideLocalAreAskedOfUnicastDNS() async throws {
        let multicast = FakeBackend()
        let unicast = FakeBackend()
        let domains = Mutex<[String]>([])
        let backends = BackendSelection(local: multicast) { domain in
            domains.withLock { $0.append(domain) }
            return unicast
        }
        let printer = Self.record("printer.lab.example.", .a, "198.18.0.50", data: [198, 18, 0, 50], interface: 0)
        let query = Task {
            try await CiaoResolver.query(
                name: "printer.lab.example", type: .a, interfaceIndex: 0, timeout: .seconds(30), backends: backends)
        }
        let (token, lookup) = try await unicast.lookup()
        #expect(lookup.name.description == "printer.lab.example." && lookup.types == [.a])
        unicast.emitRecords(token, [.added(printer)])
        #expect(try await result(of: query) == [printer])
        let host = Task {
            try await CiaoResolver.resolveHost(
                "printer.lab.example.", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(30),
                backends: backends)
        }
        let hostLookup = try await unicast.lookup(1)
        #expect(hostLookup.lookup.types == [.a, .aaaa])
        unicast.emitRecords(hostLookup.token, [.added(printer), .noSuchRecord(.aaaa, Self.soa)])
        _ = try await result(of: host)
        let session = RecordQuerySession(name: "lab.example", types: [.txt], interfaceIndex: 0, backends: backends)
        #expect(try await unicast.lookup(2).lookup.name.description == "lab.example.")
        session.stop()
        #expect(domains.withLock { $0 } == ["lab.example.", "lab.example.", "example."])

        let sessions = [
            "alpha.local", "alpha", "1.0.18.198.in-addr.arpa",
            "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa",
        ]
        .map { RecordQuerySession(name: $0, types: [.ptr], interfaceIndex: 0, backends: backends) }
        let hostSession = HostSession(hostName: "alpha", families: [.ipv4], interfaceIndex: 0, backends: backends)
        var asked: [String] = []
        for index in 0..<5 { asked.append(try await multicast.lookup(index).lookup.name.description) }
        #expect(
            Set(asked) == [
                "alpha.local.", "alpha.", "1.0.18.198.in-addr.arpa.",
                "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.",
            ])
        for session in sessions { session.stop() }
        hostSession.stop()
        #expect(domains.withLock { $0 }.count == 3)
    }

    /// A unicast DNS server answers each question once and whole: a lookup of a name outside
    /// `local.` returns once every type has its records or its denial, however long after the
    /// answer pause the last one comes; a denial answers a type.
    @Test func aUnicastLookupReturnsOnceEveryTypeIsAnswered() async throws {
        let unicast = FakeBackend()
        let backends = BackendSelection(local: FakeBackend()) { _ in unicast }
        let v4 = Self.record("printer.lab.example.", .a, "198.18.0.50", data: [198, 18, 0, 50], interface: 0)
        let v6 = Self.record(
            "printer.lab.example.", .aaaa, "fd00::50", data: [0xFD] + [UInt8](repeating: 0, count: 14) + [0x50],
            interface: 0)
        func resolving() -> Task<[HostAddress], any Error> {
            // An hour's timeout: only a wrong wait outlasts the test's limit.
            Task {
                try await CiaoResolver.resolveHost(
                    "printer.lab.example", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(3600),
                    backends: backends)
            }
        }
        let both = resolving()
        let token = try await unicast.lookup().token
        // A multicast lookup would have returned with IPv4 alone.
        Self.emit([.added(v4)], then: [.added(v6)], to: token, on: unicast)
        #expect(try await result(of: both).map(\.address) == ["198.18.0.50", "fd00::50"])
        let denied = resolving()
        let second = try await unicast.lookup(1).token
        unicast.emitRecords(second, [.added(v4), .noSuchRecord(.aaaa, Self.soa)])
        #expect(try await result(of: denied).map(\.address) == ["198.18.0.50"])
    }

    /// A unicast lookup whose question no server answered ends at once: with the records of the
    /// other types if some came, or throwing why it could not ask, not waiting for its timeout.
    @Test func aUnicastLookupThatCannotAskEndsAtOnce() async throws {
        let unicast = FakeBackend()
        let backends = BackendSelection(local: FakeBackend()) { _ in unicast }
        let refused = CiaoError.network("198.18.0.53: Connection refused")
        // An hour's timeout: only a wait for it outlasts the test's limit.
        let alone = Task {
            try await CiaoResolver.query(
                name: "www.lab.example", type: .a, interfaceIndex: 0, timeout: .seconds(3600), backends: backends)
        }
        unicast.emitLookup(try await unicast.lookup().token, .failed(.a, refused))
        await #expect(throws: refused) { try await result(of: alone) }
        let both = Task {
            try await CiaoResolver.resolveHost(
                "printer.lab.example", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(3600),
                backends: backends)
        }
        let token = try await unicast.lookup(1).token
        unicast.emitRecords(
            token,
            [.added(Self.record("printer.lab.example.", .a, "198.18.0.50", data: [198, 18, 0, 50], interface: 0))])
        unicast.emitLookup(token, .failed(.aaaa, refused))
        #expect(try await result(of: both).map(\.address) == ["198.18.0.50"])
        // One type denied, the other not asked: not "no such record", which only the first says.
        let half = Task {
            try await CiaoResolver.resolveHost(
                "printer.lab.example", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(3600),
                backends: backends)
        }
        let third = try await unicast.lookup(2).token
        unicast.emitRecords(third, [.noSuchRecord(.a, Self.soa)])
        unicast.emitLookup(third, .failed(.aaaa, refused))
        await #expect(throws: refused) { try await result(of: half) }
    }

    /// A one-shot lookup that times out without an answer throws why a question of it could not
    /// be asked (a DNS server refusing), rather than `timedOut`.
    @Test func aLookupThatTimesOutSaysWhyItCouldNotAsk() async throws {
        let backend = FakeBackend()
        let lookup = Task {
            try await CiaoResolver.resolveHost(
                "printer.lab.example", families: [.ipv4, .ipv6], interfaceIndex: 0, timeout: .seconds(2),
                backends: .init(local: backend) { _ in backend })
        }
        backend.emitLookup(try await backend.lookup().token, .failed(.aaaa, .network("the DNS server refused")))
        await #expect(throws: CiaoError.network("the DNS server refused")) { try await result(of: lookup) }
    }

    /// An IPv6 link-local address names the interface it came over as its zone; one from unicast
    /// DNS (interface 0) has no link to name, and no zone.
    @Test func aLinkLocalAddressHasAZoneOnlyWhenItCameOverAnInterface() throws {
        let data: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7]
        let overLoopback = try #require(
            HostAddress(Self.record("alpha.local.", .aaaa, "fe80::7", data: data, interface: 1)))
        #expect(overLoopback.address.hasPrefix("fe80::7%") && overLoopback.address != "fe80::7%0")
        let fromDNS = try #require(
            HostAddress(Self.record("alpha.lab.example.", .aaaa, "fe80::7", data: data, interface: 0)))
        #expect(fromDNS.address == "fe80::7")
    }

    @Test func cancellingTheCallerEndsTheLookup() async throws {
        let backend = FakeBackend()
        let query = Task {
            try await CiaoResolver.query(
                name: "alpha.local", type: .a, interfaceIndex: 0, timeout: .seconds(30), backends: .init(local: backend)
            )
        }
        let token = try await backend.lookup().token
        query.cancel()
        await #expect(throws: CancellationError.self) { try await query.value }
        try await backend.cancellation(of: token)
    }

    /// A host session reports each address once, a replacement as the old one's removal before
    /// the new one, and a goodbye as a removal; stopping it stops the lookup.
    @Test func aHostSessionFollowsAddressesAsTheyChange() async throws {
        let backend = FakeBackend()
        let session = HostSession(
            hostName: "alpha.local", families: [.ipv4], interfaceIndex: 0, backends: .init(local: backend))
        let events = StreamRecorder(session.events)
        let (token, lookup) = try await backend.lookup()
        #expect(lookup.types == [.a])
        backend.emitRecords(token, [.added(Self.v4), .added(Self.v4)])
        backend.emitRecords(token, [.updated(Self.v4Moved)])
        backend.emitRecords(token, [.removed(Self.v4Moved)])
        session.stop()
        let addresses = try await events.remainder()
        #expect(
            addresses == [
                .added(HostAddress(Self.v4)!), .removed(HostAddress(Self.v4)!), .added(HostAddress(Self.v4Moved)!),
                .removed(HostAddress(Self.v4Moved)!),
            ])
        try await backend.cancellation(of: token)
    }

    /// A continuous lookup tells why a question could not be asked, and carries on: the records of
    /// a later round still come.
    @Test func aRecordSessionSaysWhyAQuestionFailedAndCarriesOn() async throws {
        let unicast = FakeBackend()
        let failures = Mutex<[CiaoError]>([])
        let session = RecordQuerySession(
            name: "www.lab.example", types: [.a], interfaceIndex: 0,
            backends: BackendSelection(local: FakeBackend()) { _ in unicast },
            questionFailed: { error in failures.withLock { $0.append(error) } })
        let events = StreamRecorder(session.events)
        let token = try await unicast.lookup().token
        let refused = CiaoError.network("198.18.0.53: Connection refused")
        unicast.emitLookup(token, .failed(.a, refused))
        unicast.emitRecords(token, [.added(Self.v4)])
        session.stop()
        #expect(try await events.remainder() == [.added(Self.v4)])
        #expect(failures.withLock { $0 } == [refused])
    }

    @Test func aRecordSessionPassesEveryEventOnAndRefusesABadName() async throws {
        let backend = FakeBackend()
        let session = RecordQuerySession(
            name: "_ciao._tcp.local", types: [.ptr], interfaceIndex: 3, backends: .init(local: backend))
        let events = StreamRecorder(session.events)
        let (token, lookup) = try await backend.lookup()
        #expect(lookup.interfaceIndex == 3)
        backend.emitRecords(token, [.added(Self.v4), .removed(Self.v4)])
        session.stop()
        #expect(try await events.remainder() == [.added(Self.v4), .removed(Self.v4)])

        let refused = StreamRecorder(
            RecordQuerySession(name: "a..b", types: [.a], interfaceIndex: 0, backends: .init(local: backend)).events)
        await #expect(throws: CiaoError.self) { _ = try await refused.next() }
    }
}
