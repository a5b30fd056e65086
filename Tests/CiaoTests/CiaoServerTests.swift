import Foundation
import Glibc
import Synchronization
import Testing

@testable import Ciao

/// ``CiaoServer``'s lifecycle on a ``FakeBackend``: no sockets except the system's listener-mode
/// port reservation and a loopback probe of it.
@Suite("CiaoServer lifecycle")
struct CiaoServerTests {
    let http = try! ServiceType.tcp("http")
    let fake = FakeBackend()

    func externalConfiguration(
        name: String = "Printer", port: UInt16 = 8080, allowsRenaming: Bool = true, txtRecord: TXTRecord = .empty
    ) -> PublicationConfiguration {
        PublicationConfiguration(
            type: http, name: name, port: port, mode: .externalPort, allowsRenaming: allowsRenaming,
            txtRecord: txtRecord)
    }

    /// Starts `configuration` and lets the fake register it as `registeredName`.
    func startRegistered(
        _ server: CiaoServer, _ configuration: PublicationConfiguration, as registeredName: String,
        publicationIndex: Int = 0
    ) async throws -> (PublishedService, BackendToken) {
        let starting = Task { try await server.start(configuration, timeout: .seconds(3600)) }
        let (token, _) = try await fake.publication(publicationIndex)
        fake.emitRegistered(token, name: registeredName)
        return (try await result(of: starting), token)
    }

    // MARK: Starting

    @Test func startReturnsOnceRegisteredWithTheNameInUse() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task {
            try await server.start(externalConfiguration(name: "X", txtRecord: try TXTRecord(strings: ["a": "1"])))
        }
        let (token, publication) = try await fake.publication()
        #expect(publication.name == "X")
        #expect(publication.type == http)
        #expect(publication.port == 8080)
        #expect(publication.allowsRenaming)
        #expect(publication.txtRecord == (try TXTRecord(strings: ["a": "1"])))
        #expect(await server.publishedService == nil, "nothing is published before the name is ours")

        fake.emitRegistered(token, name: "X (2)", hostName: "box.local.")
        let published = try await result(of: starting)
        let expected = PublishedService(service: Service(name: "X (2)", type: http), port: 8080, hostName: "box.local.")
        #expect(published == expected)
        #expect(await server.publishedService == expected)
        #expect(try await events.next() == .started(expected))
        #expect(!fake.isCancelled(token))
    }

    @Test func supersededStartThrowsStoppedAndNeverReportsSuccess() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let startingA = Task { try await server.start(externalConfiguration(name: "A"), timeout: .seconds(3600)) }
        let (tokenA, _) = try await fake.publication(0)
        let startingB = Task { try await server.start(externalConfiguration(name: "B"), timeout: .seconds(3600)) }
        let (tokenB, publicationB) = try await fake.publication(1)
        #expect(publicationB.name == "B")

        await #expect(throws: CiaoError.stopped) { try await result(of: startingA) }
        #expect(fake.isCancelled(tokenA), "the superseded publication is withdrawn")

        // A registration for A that was already under way arrives late, then B registers.
        fake.emitRegistered(tokenA, name: "A")
        fake.emitRegistered(tokenB, name: "B")
        let published = try await result(of: startingB)
        #expect(published.service.name == "B")

        await server.stop()
        let reported = try await events.elements(through: { $0 == .started(published) })
        #expect(
            !reported.contains { if case .started(let service) = $0 { service.service.name == "A" } else { false } })
        #expect(try await events.next() == .stopped)
        #expect(await server.publishedService == nil)
    }

    @Test func cancelledStartThrowsCancellationErrorAndNeverSucceedsLate() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task {
            try await server.start(externalConfiguration(name: "Cancelled"), timeout: .seconds(3600))
        }
        let (token, _) = try await fake.publication()
        starting.cancel()
        await #expect(throws: CancellationError.self) { try await result(of: starting) }
        try await fake.cancellation(of: token)

        fake.emitRegistered(token, name: "Cancelled")
        #expect(await server.publishedService == nil)

        // The next start's `started` is the first `started` reported.
        let (published, _) = try await startRegistered(
            server, externalConfiguration(name: "Next"), as: "Next", publicationIndex: 1)
        let reported = try await events.elements(through: { $0 == .started(published) })
        #expect(
            !reported.contains {
                if case .started(let service) = $0 { service.service.name == "Cancelled" } else { false }
            })
        #expect(await server.publishedService == published)
    }

    @Test func startInAlreadyCancelledTaskThrowsBeforeAnyBackendCall() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let starting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await server.start(externalConfiguration(), timeout: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await result(of: starting) }
        #expect(fake.calls.isEmpty)
    }

    /// A start whose names keep being taken by conflicts until its timeout fails with the
    /// name-conflict error, not "no answer arrived in time" (RFC 6762 §9).
    @Test func timeoutAfterLostNamesIsANameConflict() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task { try await server.start(externalConfiguration(), timeout: .milliseconds(200)) }
        let (token, _) = try await fake.publication()
        fake.emitPublication(token, .lostName)
        let conflict = CiaoError.dnsService(CiaoError.Code.nameConflict)
        await #expect(throws: conflict) { try await result(of: starting) }
        #expect(try await events.next() == .failed(conflict))
        #expect(fake.isCancelled(token))
    }

    /// With no interface to publish on, the start waits and fails with a network error saying so.
    @Test func timeoutWithoutAnInterfaceSaysNoneWasFound() async throws {
        fake.state.update { $0.interfacesPresent = false }
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task { try await server.start(externalConfiguration(), timeout: .milliseconds(50)) }
        let (token, _) = try await fake.publication()
        await #expect(throws: CiaoError.noUsableInterface) { try await result(of: starting) }
        #expect(try await events.next() == .failed(.noUsableInterface))
        #expect(fake.isCancelled(token))
        #expect("\(CiaoError.noUsableInterface)".contains("no usable network interface was found"))
    }

    @Test func timeoutThrowsTimedOutReportsFailedAndWithdraws() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task { try await server.start(externalConfiguration(), timeout: .milliseconds(50)) }
        let (token, _) = try await fake.publication()
        await #expect(throws: CiaoError.timedOut) { try await result(of: starting) }
        #expect(try await events.next() == .failed(.timedOut))
        #expect(fake.isCancelled(token))
        #expect(await server.publishedService == nil)
        await #expect(throws: CiaoError.stopped) { try await server.updateTXT(.empty) }
    }

    @Test func aTimeoutDueAsTheNameIsRegisteredDoesNotEndTheStartedPublication() async throws {
        // The registration is queued on the busy actor before the start timeout fires; the timeout's
        // task is past its sleep when the registration cancels it, so it must find the start
        // already settled and leave the publication alone.
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task { try await server.start(externalConfiguration(), timeout: .milliseconds(300)) }
        let (token, _) = try await fake.publication()

        // Keep the actor busy inside updateTXT while the registration and then the timeout queue up.
        let update = Observed(UpdateStage.called)
        let release = DispatchSemaphore(value: 0)
        fake.duringNextUpdateTXT {
            update.update { $0 = .holdingTheActor }
            release.wait()
        }
        let updating = Task {
            do {
                try await server.updateTXT(.empty)
            } catch {
                update.update { if $0 == .called { $0 = .rejected } }
                throw error
            }
        }
        try await update.wait("updateTXT to hold the actor or be rejected", until: { $0 != .called })
        if update.value == .rejected {
            // Only if updateTXT reached the actor after the 300 ms timeout (a starved thread pool,
            // as when a long synchronous test holds one of two cores): the start already failed.
            await #expect(throws: CiaoError.timedOut) { try await result(of: starting) }
            #expect(try await events.next() == .failed(.timedOut))
            return
        }
        fake.emitRegistered(token, name: "Printer")
        Thread {
            Thread.sleep(forTimeInterval: 0.6)  // past the timeout; a plain thread, not the pool's
            release.signal()
        }.start()

        let published: PublishedService
        do {
            published = try await result(of: starting)
        } catch CiaoError.timedOut {
            // Only if the registration could not reach the actor within 300 ms (a starved thread
            // pool): a legitimate order, but not the one under test.
            try await result(of: updating)
            #expect(try await events.next() == .failed(.timedOut))
            return
        }
        try await result(of: updating)
        #expect(try await events.next() == .started(published))
        #expect(await server.publishedService == published)
        #expect(!fake.isCancelled(token))
        await server.stop()
        #expect(try await events.next() == .stopped)
    }

    @Test func nameConflictWithoutRenamingThrowsDNSServiceError() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let starting = Task {
            try await server.start(externalConfiguration(name: "Taken", allowsRenaming: false), timeout: .seconds(3600))
        }
        let (token, publication) = try await fake.publication()
        #expect(publication.allowsRenaming == false)
        fake.emitNameConflict(token)
        await #expect(throws: CiaoError.dnsService(-65548)) { try await result(of: starting) }
        #expect(try await events.next() == .failed(.dnsService(CiaoError.Code.nameConflict)))
        try await fake.cancellation(of: token)
        #expect(await server.publishedService == nil)
    }

    // MARK: Rejected before any backend call

    @Test(arguments: [Duration.zero, .seconds(-1)])
    func nonPositiveTimeoutIsRejected(timeout: Duration) async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        await #expect {
            try await server.start(externalConfiguration(), timeout: timeout)
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func externalPortModeNeedsAPort() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        await #expect {
            try await server.start(externalConfiguration(port: 0))
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func nameOf64BytesIsRejectedAnd63Accepted() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        await #expect {
            try await server.start(externalConfiguration(name: String(repeating: "n", count: 64)))
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        // 63 bytes of UTF-8: 31 two-byte characters and one ASCII letter.
        await #expect {
            try await server.start(externalConfiguration(name: String(repeating: "é", count: 32)))
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)

        let name63 = String(repeating: "é", count: 31) + "n"
        let (published, _) = try await startRegistered(server, externalConfiguration(name: name63), as: name63)
        #expect(published.service.name == name63)
    }

    @Test(arguments: ["example.com", "example.com.", "local.example."])
    func nonLocalDomainIsRejected(domain: String) async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        var configuration = externalConfiguration()
        configuration.domain = domain
        await #expect {
            try await server.start(configuration)
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test(arguments: ["", "local", "local.", "LOCAL."])
    func localDomainIsAccepted(domain: String) async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        var configuration = externalConfiguration()
        configuration.domain = domain
        let (published, _) = try await startRegistered(server, configuration, as: "Printer")
        #expect(published.service.domain == "local.")
    }

    /// A service on another host (avahi-publish -H): a single label is a name in `local.`, a
    /// full name is kept; the other host's port is needed, and `local.`.
    @Test(arguments: [("printer", "printer.local."), ("printer.local", "printer.local."), ("nas.lab.", "nas.lab.")])
    func aServiceOnAnotherHostNamesItAsTheTarget(hostName: String, target: String) async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        var configuration = externalConfiguration()
        configuration.hostName = hostName
        let starting = Task { try await server.start(configuration, timeout: .seconds(3600)) }
        let (token, publication) = try await fake.publication()
        #expect(publication.hostName?.description == target)
        fake.emitRegistered(token, name: "Printer")
        _ = try await result(of: starting)
    }

    @Test func aServiceOnAnotherHostIsCheckedFirst() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        var listener = PublicationConfiguration(type: http, name: "Printer", mode: .listener)
        listener.hostName = "printer"
        var unicast = externalConfiguration()
        unicast.hostName = "printer"
        unicast.domain = "example.com"
        unicast.wideArea = WideAreaOptions(key: try RegistrationKey(name: "k.", base64Secret: "c2VjcmV0"))
        var notAName = externalConfiguration()
        notAName.hostName = "bad..name"
        var empty = externalConfiguration()
        empty.hostName = "."
        for configuration in [listener, unicast, notAName, empty] {
            await #expect {
                try await server.start(configuration)
            } throws: { error in
                if case CiaoError.invalidConfiguration = error { true } else { false }
            }
        }
        #expect(fake.calls.isEmpty)
    }

    /// A proxy (`dns-sd -P`): the addresses given, parsed and each once, go with a host name
    /// of one label in `local.`; without one, beyond `local.`, or unparsable, they are refused.
    @Test func hostAddressesArePublishedUnderTheHostName() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        var configuration = externalConfiguration()
        configuration.hostName = "printer"
        configuration.hostAddresses = ["198.18.0.77", "fd00:198:18::77", "198.18.0.77", "169.254.7.7", "fe80::7"]
        let starting = Task { try await server.start(configuration, timeout: .seconds(3600)) }
        let (token, publication) = try await fake.publication()
        #expect(
            publication.hostAddresses.map(\.description) == [
                "198.18.0.77", "fd00:198:18::77", "169.254.7.7", "fe80::7",
            ])
        fake.emitRegistered(token, name: "Printer")
        _ = try await result(of: starting)

        var noHost = externalConfiguration()
        noHost.hostAddresses = ["198.18.0.77"]
        var notLocal = noHost
        notLocal.hostName = "nas.lab."
        var twoLabels = noHost
        twoLabels.hostName = "nas.lab.local"
        var notUTF8 = noHost
        notUTF8.hostName = "\\255.local"
        let unusable = [
            "198.18.0.300", "fe80::1%eth0", "0.0.0.0", "::", "127.0.0.1", "::1", "224.0.0.251", "ff02::fb",
            "::ffff:198.18.0.1",
        ].map { address in
            var configuration = noHost
            configuration.hostName = "printer"
            configuration.hostAddresses = [address]
            return configuration
        }
        for bad in [noHost, notLocal, twoLabels, notUTF8] + unusable {
            await #expect {
                try await CiaoServer(backends: BackendSelection(local: fake)).start(bad)
            } throws: { error in
                if case CiaoError.invalidConfiguration = error { true } else { false }
            }
        }
        #expect(fake.calls.count == 1)
    }

    // MARK: Listener mode

    @Test func listenerModeReservesARealPortThatRefusesConnections() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let configuration = PublicationConfiguration(type: http, name: "Listener", port: 0, mode: .listener)
        let starting = Task { try await server.start(configuration, timeout: .seconds(3600)) }
        let (token, publication) = try await fake.publication()
        let port = publication.port
        #expect(port != 0)
        #expect(Loopback.connect(port: port) == ECONNREFUSED, "the reserved port accepts no connections")
        #expect(Loopback.bind(port: port) == EADDRINUSE, "the port is held while the publication lasts")

        fake.emitRegistered(token, name: "Listener")
        let published = try await result(of: starting)
        #expect(published.port == port)

        await server.stop()
        #expect(Loopback.bind(port: port) == 0, "stop() releases the port")
    }

    /// The port comes through the backend selection: held while the publication lasts (the
    /// server keeps the only reference) and let go when it stops.
    @Test func listenerModeHoldsThePortItIsGivenUntilStopped() async throws {
        let held = HeldPorts()
        var backends = BackendSelection(local: fake)
        backends.reserveListenerPort = { type throws(CiaoError) in
            FakeListenerPort(port: type.transport == .tcp ? 40_001 : 40_002, held: held)
        }
        let server = CiaoServer(backends: backends)
        let configuration = PublicationConfiguration(type: http, name: "Listener", port: 0, mode: .listener)
        let (published, _) = try await startRegistered(server, configuration, as: "Listener")
        #expect(published.port == 40_001 && fake.publications.first?.publication.port == 40_001)
        #expect(held.count.withLock { $0 } == 1, "the port is held while the publication lasts")
        await server.stop()
        #expect(held.count.withLock { $0 } == 0, "stop() lets the port go")
    }

    /// A port that cannot be had fails the start with the selection's error, and nothing reaches
    /// the backend.
    @Test func listenerModeWithoutAPortFailsBeforePublishing() async throws {
        var backends = BackendSelection(local: fake)
        backends.reserveListenerPort = { type throws(CiaoError) in
            throw .network("cannot open a listener for \(type): out of ports")
        }
        let server = CiaoServer(backends: backends)
        let configuration = PublicationConfiguration(type: http, name: "Listener", port: 0, mode: .listener)
        await #expect(throws: CiaoError.network("cannot open a listener for _http._tcp: out of ports")) {
            try await server.start(configuration, timeout: .seconds(5))
        }
        #expect(fake.publications.isEmpty)
    }

    // MARK: TXT updates

    @Test func updateTXTReachesTheBackend() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let (_, token) = try await startRegistered(server, externalConfiguration(), as: "Printer")
        let txt = try TXTRecord(strings: ["path": "/queue"])
        try await server.updateTXT(txt)
        try await server.updateTXT(.empty)
        #expect(fake.txtUpdates.map(\.token) == [token, token])
        #expect(fake.txtUpdates.map(\.txtRecord) == [txt, .empty])
    }

    @Test func updateTXTWhenStoppedThrowsStopped() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        await #expect(throws: CiaoError.stopped) { try await server.updateTXT(.empty) }
        _ = try await startRegistered(server, externalConfiguration(), as: "Printer")
        await server.stop()
        await #expect(throws: CiaoError.stopped) { try await server.updateTXT(.empty) }
        #expect(fake.txtUpdates.isEmpty)
    }

    // MARK: Stopping and renaming

    @Test func stopWithdrawsReportsStoppedOnceAndIsIdempotent() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let (first, token) = try await startRegistered(server, externalConfiguration(name: "One"), as: "One")
        await server.stop()
        #expect(fake.cancelCount(token) == 1)
        #expect(await server.publishedService == nil)
        await server.stop()
        #expect(fake.cancelCount(token) == 1)

        // A second start is the sentinel: a second `stopped` would come before its `started`.
        let (second, _) = try await startRegistered(
            server, externalConfiguration(name: "Two"), as: "Two", publicationIndex: 1)
        #expect(try await events.next() == .started(first))
        #expect(try await events.next() == .stopped)
        #expect(try await events.next() == .started(second))
    }

    @Test func stopBeforeAnyStartReportsNothing() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        await server.stop()
        #expect(fake.calls.isEmpty)
        let (published, _) = try await startRegistered(server, externalConfiguration(), as: "Printer")
        #expect(try await events.next() == .started(published), "no `stopped` for a server that published nothing")
    }

    @Test func startAgainReplacesThePublication() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let (_, firstToken) = try await startRegistered(server, externalConfiguration(name: "One"), as: "One")
        let (second, _) = try await startRegistered(
            server, externalConfiguration(name: "Two"), as: "Two", publicationIndex: 1)
        #expect(fake.isCancelled(firstToken))
        #expect(await server.publishedService == second)
    }

    @Test func renameAfterStartUpdatesPublishedServiceAndReportsStartedAgain() async throws {
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let events = StreamRecorder(server.events)
        let (published, token) = try await startRegistered(
            server, externalConfiguration(name: "Printer"), as: "Printer")
        #expect(try await events.next() == .started(published))

        fake.emitRegistered(token, name: "Printer (2)", hostName: "fake-host-2.local.")
        let renamed = PublishedService(
            service: Service(name: "Printer (2)", type: http), port: 8080, hostName: "fake-host-2.local.")
        #expect(try await events.next() == .started(renamed))
        #expect(await server.publishedService == renamed)
        #expect(!fake.isCancelled(token))
    }
}

/// IPv4 loopback probes of a port, each with a socket of its own that is closed at once.
enum Loopback {
    /// 0 if a TCP connection to 127.0.0.1:`port` succeeded, else `errno`.
    static func connect(port: UInt16) -> Int32 {
        withSocket(port: port) { fd, address, length in Glibc.connect(fd, address, length) }
    }

    /// 0 if a TCP socket could bind 127.0.0.1:`port`, else `errno`.
    static func bind(port: UInt16) -> Int32 {
        withSocket(port: port) { fd, address, length in Glibc.bind(fd, address, length) }
    }

    private static func withSocket(
        port: UInt16, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let outcome = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return outcome == 0 ? 0 : errno
    }
}

/// How far the updateTXT that holds ``CiaoServer``'s actor has gone.
private enum UpdateStage: Sendable {
    case called, holdingTheActor, rejected
}

/// How many ``FakeListenerPort``s are alive.
private final class HeldPorts: Sendable {
    let count = Mutex(0)
}

/// A listener port that holds nothing, counted in `held` while it lives, to see when the server
/// lets it go.
private final class FakeListenerPort: ListenerPort {
    let port: UInt16
    private let held: HeldPorts

    init(port: UInt16, held: HeldPorts) {
        self.port = port
        self.held = held
        held.count.withLock { $0 += 1 }
    }

    deinit {
        held.count.withLock { $0 -= 1 }
    }
}
