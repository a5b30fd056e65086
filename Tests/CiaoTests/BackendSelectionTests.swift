import Foundation
import Synchronization
import Testing

@testable import Ciao

/// The API types route each domain to its backend: `local.` to multicast DNS, any other domain
/// to unicast DNS. Two fakes stand in for the two; no socket is opened.
@Suite struct BackendSelectionTests {
    let http = try! ServiceType.tcp("http")
    let local = FakeBackend()
    let wideArea = FakeBackend()
    /// The domains the selection was asked to serve by unicast DNS.
    let asked = Recorded<String>()
    var backends: BackendSelection {
        let wideArea = self.wideArea
        let asked = self.asked
        return BackendSelection(local: local) { domain in
            asked.append(domain)
            return wideArea
        }
    }

    @Test(arguments: ["lab.example", "lab.example.", "Lab.Example."])
    func aBrowseInAUnicastDomainGoesToUnicastDNS(domain: String) async throws {
        let session = try await CiaoBrowser(backends: backends).browse(type: http, domain: domain)
        let token = try await wideArea.browse()
        wideArea.emitBrowse(token, [.found(Service(name: "Web", type: http, domain: domain))])
        let events = StreamRecorder(session.events)
        #expect(try await events.next() == .started)
        #expect(try await events.next() == .found(Service(name: "Web", type: http, domain: "lab.example.")))
        #expect(local.calls.isEmpty)
        #expect(asked.values == [domain])
        await session.stop()
    }

    @Test(arguments: ["", "local", "local.", "LOCAL."])
    func aBrowseInLocalGoesToMulticastDNS(domain: String) async throws {
        let session = try await CiaoBrowser(backends: backends).browse(type: http, domain: domain)
        _ = try await local.browse()
        #expect(wideArea.calls.isEmpty)
        #expect(asked.values.isEmpty)
        await session.stop()
    }

    @Test func aServiceOfAUnicastDomainIsResolvedByUnicastDNS() async throws {
        let service = Service(name: "Web", type: http, domain: "lab.example.")
        let resolving = Task { try await CiaoResolver.resolve(service, timeout: .seconds(30), backends: backends) }
        let token = try await wideArea.resolution(of: service)
        let resolved = ResolvedService(
            service: service, hostName: "box.lab.example.", port: 80, addresses: ["198.18.0.7"], txtRecord: .empty)
        wideArea.emitResolved(token, resolved)
        #expect(try await resolving.value == resolved)
        #expect(local.calls.isEmpty)
    }

    /// A resolution in a unicast domain whose round failed (the server refused, or the service
    /// has no SRV record) throws why at once, not `timedOut` at its timeout.
    @Test func aUnicastResolutionThatFailsSaysWhyAtOnce() async throws {
        let service = Service(name: "Web", type: http, domain: "lab.example.")
        let noSRV = CiaoError.network("cannot resolve Web: no SRV record")
        // An hour's timeout: only a wait for it outlasts the test's limit.
        let failing = Task { try await CiaoResolver.resolve(service, timeout: .seconds(3600), backends: backends) }
        wideArea.emitResolution(try await wideArea.resolution(of: service), .failed(noSRV))
        await #expect(throws: noSRV) { try await result(of: failing) }
    }

    /// A unicast DNS server's answer is whole: an IPv6-only result is returned at once, not held
    /// for a second query as in `local.` (where the result right behind it would win).
    @Test func aUnicastResolutionWaitsForNoOtherFamily() async throws {
        let service = Service(name: "Web", type: http, domain: "lab.example.")
        let resolving = Task { try await CiaoResolver.resolve(service, timeout: .seconds(30), backends: backends) }
        let token = try await wideArea.resolution(of: service)
        let sixOnly = ResolvedService(
            service: service, hostName: "box.lab.example.", port: 80, addresses: ["fd00::7"], txtRecord: .empty)
        var both = sixOnly
        both.addresses = ["198.18.0.7", "fd00::7"]
        let wideArea = self.wideArea
        Thread { [both] in
            wideArea.emitResolved(token, sixOnly)
            wideArea.emitResolved(token, both)
        }.start()
        #expect(try await resolving.value == sixOnly)
    }

    @Test func typesOfAUnicastDomainAreAskedOfUnicastDNS() async throws {
        let session = ServiceTypeSession(domain: "lab.example.", backends: backends)
        let token = try await wideArea.typeBrowse()
        wideArea.emitType(token, http)
        var types = session.types.makeAsyncIterator()
        #expect(try await types.next() == http)
        #expect(local.calls.isEmpty)
        session.stop()
    }

    @Test func aPublicationInAUnicastDomainCarriesItsKey() async throws {
        let key = try RegistrationKey(name: "ciao-lab.", base64Secret: "c2VjcmV0")
        let options = WideAreaOptions(key: key, server: "198.18.0.1")
        let server = CiaoServer(backends: backends)
        let starting = Task {
            try await server.start(
                PublicationConfiguration(
                    type: http, name: "Web", domain: "lab.example", port: 80, mode: .externalPort, wideArea: options),
                timeout: .seconds(3600))
        }
        let (token, publication) = try await wideArea.publication()
        #expect(publication.wideArea == options)
        wideArea.emitRegistered(token, name: "Web", hostName: "box.lab.example.")
        #expect(try await starting.value.hostName == "box.lab.example.")
        #expect(local.calls.isEmpty)
        await server.stop()
        try await wideArea.cancellation(of: token)
    }

    /// Starts publishing "Web" in lab.example. on `server`; returns the start and its token.
    func startInLabExample(_ server: CiaoServer) async throws -> (Task<PublishedService, any Error>, BackendToken) {
        let configuration = PublicationConfiguration(
            type: http, name: "Web", domain: "lab.example.", port: 80, mode: .externalPort,
            wideArea: WideAreaOptions(key: try RegistrationKey(name: "ciao-lab.", base64Secret: "c2VjcmV0")))
        let starting = Task { try await server.start(configuration, timeout: .seconds(3600)) }
        return (starting, try await wideArea.publication().token)
    }

    @Test func aUnicastPublicationTheServerGivesUpOnEndsWithItsError() async throws {
        let server = CiaoServer(backends: backends)
        let events = StreamRecorder(server.events)
        let (starting, token) = try await startInLabExample(server)
        wideArea.emitRegistered(token, name: "Web")
        let published = try await starting.value
        #expect(try await events.next() == .started(published))
        let refused = CiaoError.network("the server refused the update of lab.example. (REFUSED)")
        wideArea.emitPublication(token, .failed(refused))
        #expect(try await events.next() == .failed(refused))
        try await wideArea.cancellation(of: token)
        #expect(await server.publishedService == nil)
    }

    @Test func aStartThatTheServerRefusesThrowsItsError() async throws {
        let (starting, token) = try await startInLabExample(CiaoServer(backends: backends))
        let badSignature = CiaoError.network("the server rejected the signature (BADSIG)")
        wideArea.emitPublication(token, .failed(badSignature))
        await #expect(throws: badSignature) { try await starting.value }
    }

    @Test(arguments: ["lab..example.", String(repeating: "a", count: 64) + ".example."])
    func aDomainThatIsNotADomainNameIsRefusedBeforeAnyBackend(domain: String) async throws {
        await #expect {
            try await CiaoBrowser(backends: backends).browse(type: http, domain: domain)
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(local.calls.isEmpty && wideArea.calls.isEmpty && asked.values.isEmpty)
    }

    @Test func aSelectionWithoutUnicastDNSRefusesOtherDomains() async throws {
        await #expect {
            try await CiaoBrowser(backends: BackendSelection(local: local)).browse(type: http, domain: "lab.example.")
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(local.calls.isEmpty)
    }
}

/// Values appended from any thread, read back in order.
final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}
