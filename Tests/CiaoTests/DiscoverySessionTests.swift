import Foundation
import Testing

@testable import Ciao

/// ``CiaoBrowser`` and ``DiscoverySession`` on a ``FakeBackend``.
@Suite("DiscoverySession lifecycle")
struct DiscoverySessionTests {
    let http = try! ServiceType.tcp("http")
    let fake = FakeBackend()

    func service(_ name: String) -> Service { Service(name: name, type: http) }

    func resolved(_ service: Service, port: UInt16 = 80, txt: [String: String] = [:]) throws -> ResolvedService {
        ResolvedService(
            service: service, hostName: "host.local.", port: port, addresses: ["192.0.2.7"],
            txtRecord: try TXTRecord(strings: txt))
    }

    /// A session on the fake, its browse token, and a recorder that has already seen `started`.
    func startSession(automaticallyResolve: Bool = true, resolutionTimeout: Duration = .seconds(3600)) async throws
        -> (DiscoverySession, BackendToken, StreamRecorder<DiscoveryEvent>)
    {
        let session = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
            type: http, automaticallyResolve: automaticallyResolve, resolutionTimeout: resolutionTimeout)
        let browses = fake.browses
        try #require(browses.count == 1)
        #expect(browses[0].type == http)
        let events = StreamRecorder(session.events)
        #expect(try await events.next() == .started)
        return (session, browses[0].token, events)
    }

    // MARK: Membership

    @Test func noMembershipChangeIsDroppedAcross300AddRemovePairs() async throws {
        let session = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
            type: http, automaticallyResolve: false)
        let token = try #require(fake.browses.first?.token)
        let services = (0..<300).map { service("Service \($0)") }
        let fake = self.fake
        let emitter = Thread {
            for service in services {
                fake.emitBrowse(token, [.found(service)])
                fake.emitBrowse(token, [.removed(service)])
            }
        }
        emitter.start()

        // A slow consumer: it pauses every few events while the backend's thread keeps going.
        let received = try await withDeadline("600 membership changes", .seconds(60)) {
            var received: [DiscoveryEvent] = []
            for try await event in session.events {
                received.append(event)
                if received.count % 20 == 0 { try await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
                if received.count == 601 { break }
            }
            return received
        }
        let expected: [DiscoveryEvent] = [.started] + services.flatMap { [.found($0), .removed($0)] }
        #expect(received.count == expected.count)
        #expect(received == expected)
        #expect(await session.services.isEmpty)
        await session.stop()
    }

    @Test func removalsComeBeforeAdditionsWithinABatch() async throws {
        let (session, token, events) = try await startSession(automaticallyResolve: false)
        let a = service("A")
        let b = service("B")
        let c = service("C")
        fake.emitBrowse(token, [.found(a), .found(c)])
        #expect(try await events.next() == .found(a))
        #expect(try await events.next() == .found(c))

        fake.emitBrowse(token, [.found(b), .removed(a), .removed(c)])
        #expect(try await events.next() == .removed(a))
        #expect(try await events.next() == .removed(c))
        #expect(try await events.next() == .found(b))
        #expect(await session.services == [b])
        await session.stop()
    }

    @Test func aServiceThatComesAndGoesWithinABatchNetsOut() async throws {
        let (session, token, events) = try await startSession()
        let a = service("A")
        let b = service("B")
        let sentinel = service("Sentinel")
        fake.emitBrowse(token, [.found(a), .removed(a)])
        // Present before the batch: removed and found again within it is no change either.
        fake.emitBrowse(token, [.found(b)])
        #expect(try await events.next() == .found(b))
        fake.emitBrowse(token, [.removed(b), .found(b), .found(a), .removed(a)])
        fake.emitBrowse(token, [.found(sentinel)])
        #expect(try await events.next() == .found(sentinel))
        #expect(await session.services == [b, sentinel])
        // A result for a service never reported found is not reported either.
        fake.emitBrowse(token, [.resolved(try resolved(a)), .found(service("Second sentinel"))])
        #expect(try await events.next() == .found(service("Second sentinel")))
        #expect(
            fake.state.read { $0.browseResolutionTimeouts[token] } == .seconds(3600),
            "the backend resolves what it finds, within the session's timeout")
        await session.stop()
    }

    @Test func aServiceFoundWithinABatchIsReportedAsItWasFound() async throws {
        let (session, token, events) = try await startSession(automaticallyResolve: false)
        // Names compare case-insensitively; the spelling reported is the one found.
        fake.emitBrowse(token, [.removed(service("printer")), .found(service("Printer"))])
        guard case .found(let found) = try await events.next() else {
            Issue.record("not found")
            return
        }
        #expect(found.name == "Printer")
        #expect(await session.services.map(\.name) == ["Printer"])
        await session.stop()
    }

    @Test func duplicateFoundAndUnknownRemovedAreNotReported() async throws {
        let (session, token, events) = try await startSession(automaticallyResolve: false)
        let a = service("A")
        fake.emitBrowse(token, [.found(a), .found(a)])
        fake.emitBrowse(token, [.found(a)])
        fake.emitBrowse(token, [.removed(service("Unknown"))])
        fake.emitBrowse(token, [.removed(a)])
        #expect(try await events.next() == .found(a))
        #expect(try await events.next() == .removed(a))
        await session.stop()
        #expect(try await events.remainder() == [.stopped])
    }

    // MARK: Resolution

    @Test func noLateResolutionForARemovedService() async throws {
        let (session, token, events) = try await startSession()
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        #expect(try await events.next() == .found(a))

        fake.emitBrowse(token, [.removed(a)])
        #expect(try await events.next() == .removed(a))

        // A result already under way arrives after the removal; the next event is the sentinel.
        fake.emitBrowse(token, [.resolved(try resolved(a))])
        let sentinel = service("Sentinel")
        fake.emitBrowse(token, [.found(sentinel)])
        #expect(try await events.next() == .found(sentinel))
        await session.stop()
        #expect(!(try await events.remainder()).contains { if case .resolved = $0 { true } else { false } })
    }

    /// The backend reports only changes (ServiceDirectoryTests show it); each is an event.
    @Test func resolvedIsReportedAgainForEachChange() async throws {
        let (session, token, events) = try await startSession()
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        #expect(try await events.next() == .found(a))

        let first = try resolved(a, txt: ["v": "1"])
        fake.emitBrowse(token, [.resolved(first)])
        #expect(try await events.next() == .resolved(first))
        let changed = try resolved(a, txt: ["v": "2"])
        fake.emitBrowse(token, [.resolved(changed)])
        #expect(try await events.next() == .resolved(changed))
        fake.emitBrowse(token, [.resolved(first)])
        #expect(try await events.next() == .resolved(first))
        await session.stop()
        #expect(fake.isCancelled(token))
    }

    /// What came over another family is told to the arrival observer, not repeated in `events`:
    /// a PTR record heard over IPv6 after IPv4, a result differing only in the families its
    /// addresses came over (`ciao browse -p` prints a line per protocol from them).
    @Test func arrivalsOverAnotherFamilyGoToTheObserverNotToEvents() async throws {
        let (session, token, events) = try await startSession()
        let observed = Inbox<Service>()
        session.observeArrivals { observed.append($0) }
        let a = service("A")
        fake.emitBrowse(token, [.found(a), .heardOver(a, [.ipv4])])
        #expect(try await events.next() == .found(a))
        #expect(session.families(of: a) == [.ipv4])
        #expect(observed.values.isEmpty, "found in the same batch: the found event tells")
        fake.emitBrowse(token, [.heardOver(a, [.ipv4, .ipv6])])
        #expect(session.families(of: a) == [.ipv4, .ipv6])
        #expect(observed.values == [a])

        var first = try resolved(a, txt: ["v": "1"])
        first.addressesHeardOver = [.ipv4: first.addresses]
        fake.emitBrowse(token, [.resolved(first)])
        #expect(try await events.next() == .resolved(first))
        var heardOverIPv6 = first
        heardOverIPv6.addressesHeardOver[.ipv6] = first.addresses
        fake.emitBrowse(token, [.resolved(heardOverIPv6)])
        #expect(observed.values == [a, a])
        #expect(session.latestResolution(of: a)?.addressesHeardOver == heardOverIPv6.addressesHeardOver)
        let changed = try resolved(a, txt: ["v": "2"])
        fake.emitBrowse(token, [.resolved(changed)])
        #expect(try await events.next() == .resolved(changed), "no event came for the arrival alone")
        fake.emitBrowse(token, [.removed(a)])
        #expect(try await events.next() == .removed(a))
        #expect(session.families(of: a).isEmpty)
        await session.stop()
    }

    /// A resolution that times out with no interface to ask on says so.
    @Test func aResolutionWithoutAnInterfaceFailsSayingNoneWasFound() async throws {
        fake.state.update { $0.interfacesPresent = false }
        let (session, token, events) = try await startSession()
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        #expect(try await events.next() == .found(a))
        fake.emitBrowse(token, [.resolutionFailed(a)])
        #expect(try await events.next() == .resolutionFailed(a, .noUsableInterface))
        await session.stop()
    }

    /// A subtype browse hands the subtype to the backend; one that is not a label starting with
    /// `_` fails before any network work.
    @Test func subtypeBrowseAsksForTheSubtype() async throws {
        let fake = self.fake
        let session = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
            type: http, subtype: "_printer", automaticallyResolve: false)
        let token = try await fake.browse()
        #expect(fake.state.read { $0.browseSubtypes[token] } == "_printer")
        await session.stop()
        for bad in ["printer", "_a.b", "_"] {
            await #expect(throws: CiaoError.self) {
                try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(type: self.http, subtype: bad)
            }
        }
    }

    /// The backend times resolutions out (ServiceDirectoryTests show it in the driver's time); a
    /// failure it reports is an event for a service present, with the service still present, and
    /// nothing for one that is not.
    @Test func aResolutionFailureIsReportedTimedOutAndTheServiceStays() async throws {
        let (session, token, events) = try await startSession(resolutionTimeout: .seconds(5))
        #expect(fake.state.read { $0.browseResolutionTimeouts[token] } == .seconds(5))
        let (a, b) = (service("A"), service("B"))
        fake.emitBrowse(token, [.found(a), .found(b)])
        #expect(try await events.next() == .found(a))
        #expect(try await events.next() == .found(b))
        let result = try resolved(b)
        fake.emitBrowse(token, [.resolved(result), .resolutionFailed(a)])
        #expect(try await events.next() == .resolved(result))
        #expect(try await events.next() == .resolutionFailed(a, .timedOut))
        #expect(await session.services == [a, b], "a service that cannot be resolved is still present")
        #expect(session.latestResolution(of: b) == result)

        fake.emitBrowse(token, [.resolutionFailed(service("Unknown")), .removed(b)])
        #expect(try await events.next() == .removed(b), "no failure for a service never found")
        #expect(session.latestResolution(of: b) == nil)
        await session.stop()
    }

    /// A timeout too long for the clocks to count (an app's "never") reaches the backend as a
    /// century, which they can.
    @Test func aResolutionTimeoutBeyondACenturyReachesTheBackendAsACentury() async throws {
        let (session, token, _) = try await startSession(resolutionTimeout: .seconds(Int64.max))
        #expect(fake.state.read { $0.browseResolutionTimeouts[token] } == CiaoBrowser.longestResolutionTimeout)
        await session.stop()
    }

    @Test func withoutAutomaticResolutionNothingIsResolved() async throws {
        let (session, token, events) = try await startSession(
            automaticallyResolve: false, resolutionTimeout: .milliseconds(1))
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        #expect(try await events.next() == .found(a))
        #expect(fake.state.read { $0.browseResolutionTimeouts[token] } == nil, "the backend is not asked to resolve")
        await session.stop()
        #expect(try await events.remainder() == [.stopped])
    }

    // MARK: Stopping

    @Test func firstEventIsStartedAndLastIsStopped() async throws {
        let session = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
            type: http, automaticallyResolve: false)
        let events = StreamRecorder(session.events)
        let token = try #require(fake.browses.first?.token)
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        fake.emitBrowse(token, [.removed(a)])
        await session.stop()
        fake.emitBrowse(token, [.found(a)])
        #expect(try await events.remainder() == [.started, .found(a), .removed(a), .stopped])
        #expect(await session.services.isEmpty)
    }

    /// `reconfirm` hands a service found to the backend with the session's browse; nothing for
    /// one not found or removed, nor once the session has stopped.
    @Test func reconfirmAsksTheBackendAboutServicesFoundUntilStopped() async throws {
        let (session, token, events) = try await startSession()
        let (a, b) = (service("A"), service("B"))
        fake.emitBrowse(token, [.found(a), .found(b)])
        fake.emitBrowse(token, [.removed(b)])
        #expect(try await events.next() == .found(a))
        #expect(try await events.next() == .found(b))
        #expect(try await events.next() == .removed(b))
        session.reconfirm(a)
        session.reconfirm(b)
        session.reconfirm(service("C"))
        await session.stop()
        session.reconfirm(a)
        let reconfirmations = fake.calls.filter { if case .reconfirm = $0 { true } else { false } }
        #expect(reconfirmations == [.reconfirm(token, a)])
    }

    @Test func stopIsIdempotent() async throws {
        let (session, token, events) = try await startSession()
        let a = service("A")
        fake.emitBrowse(token, [.found(a)])
        await session.stop()
        await session.stop()
        #expect(try await events.remainder() == [.found(a), .stopped])
        #expect(fake.cancelCount(token) == 1)
        await session.stop()
        #expect(fake.cancelCount(token) == 1)
    }

    @Test func breakingOutOfIterationOfADroppedSessionStopsIt() async throws {
        // `for try await event in try await browser.browse(type:).events { … break }` keeps no
        // reference to the session itself.
        let fake = self.fake
        let http = self.http
        let a = service("A")
        let consumer = Task {
            let events = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
                type: http, automaticallyResolve: false
            ).events
            for try await event in events where event == .found(a) { return true }
            return false
        }
        let token = try await fake.browse()
        fake.emitBrowse(token, [.found(a)])
        #expect(try await result(of: consumer))
        try await fake.cancellation(of: token)
    }

    @Test func cancellingTheConsumingTaskStopsTheSession() async throws {
        let session = try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(type: http)
        let token = try await fake.browse()
        let a = service("A")
        let consumed = Observed(0)
        let consumer = Task {
            for try await _ in session.events { consumed.update { $0 += 1 } }
        }
        fake.emitBrowse(token, [.found(a)])
        try await consumed.wait("the consumer's first two events", until: { $0 >= 2 })
        consumer.cancel()
        try await fake.cancellation(of: token)
        _ = try? await consumer.value
        #expect(fake.cancelCount(token) == 1)
        await session.stop()
        #expect(fake.cancelCount(token) == 1)
    }

    // MARK: Rejected configurations

    @Test(arguments: [Duration.zero, .seconds(-1), .nanoseconds(-1)])
    func nonPositiveResolutionTimeoutIsRejected(timeout: Duration) async throws {
        await #expect {
            try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(
                type: http, resolutionTimeout: timeout)
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test(arguments: ["example.com", "example.com.", "local.example."])
    func nonLocalDomainIsRejected(domain: String) async throws {
        await #expect {
            try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(type: http, domain: domain)
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func aBrowseThatCannotStartThrows() async throws {
        fake.failNext(.browse, with: .network("no interface"))
        await #expect(throws: CiaoError.network("no interface")) {
            try await CiaoBrowser(backends: BackendSelection(local: fake)).browse(type: http)
        }
    }
}
