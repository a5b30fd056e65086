import Foundation
import Testing

@testable import Ciao

/// ``CiaoResolver`` on a ``FakeBackend``.
@Suite("CiaoResolver lifecycle")
struct CiaoResolverTests {
    let fake = FakeBackend()
    let service = Service(name: "Printer", type: try! ServiceType.tcp("ipp"))

    func resolved(
        port: UInt16, addresses: [String] = ["192.0.2.9", "fe80::9%eth0"],
        denying denied: Set<NetworkScope.AddressFamily> = []
    ) throws -> ResolvedService {
        var result = ResolvedService(
            service: service, hostName: "printer.local.", port: port, addresses: addresses,
            txtRecord: try TXTRecord(strings: ["rp": "ipp/print"]))
        result.familiesDenied = denied
        return result
    }

    /// Emits `first`, then `second` `seconds` later, from a thread of its own: a busy task pool
    /// cannot delay them.
    func emit(
        _ first: ResolvedService, then second: ResolvedService, after seconds: TimeInterval, to token: BackendToken,
        on backend: FakeBackend
    ) {
        Thread {
            backend.emitResolved(token, first)
            Thread.sleep(forTimeInterval: seconds)
            backend.emitResolved(token, second)
        }.start()
    }

    /// A resolution of ``service`` on `backend`, and its token once the backend has it.
    func resolving(
        on backend: FakeBackend, timeout: Duration = .seconds(30), window: Duration = CiaoResolver.sharedAnswerWindow
    ) async throws -> (Task<ResolvedService, any Error>, BackendToken) {
        let service = self.service
        let task = Task {
            try await CiaoResolver.resolve(
                service, timeout: timeout, backends: BackendSelection(local: backend), window: window)
        }
        return (task, try await backend.resolution(of: service))
    }

    /// A result with addresses of both families is returned at once, not after the answer pause.
    @Test func returnsTheFirstResultAndCancelsTheResolution() async throws {
        let fake = self.fake
        let (resolution, token) = try await resolving(on: fake, timeout: .seconds(3600))
        #expect(fake.resolutions.map(\.service) == [service])
        let first = try resolved(port: 631)
        let withinThePause = try resolved(port: 632)
        emit(first, then: withinThePause, after: 0.05, to: token, on: fake)
        #expect(try await result(of: resolution) == first)
        #expect(fake.cancelCount(token) == 1)
        // A later result changes nothing.
        fake.emitResolved(token, try resolved(port: 632))
        #expect(fake.cancelCount(token) == 1)
    }

    /// A result with IPv6 addresses alone is held back while the second query may still bring
    /// the IPv4 ones, past the answer pause, but not past the window; one that comes within the
    /// pause replaces the first. (The results come from a thread of their own, so a busy task
    /// pool cannot push them past the window.)
    @Test func anIPv6OnlyResultWaitsForTheSecondQuery() async throws {
        let fake = self.fake
        let sixOnly = try resolved(port: 631, addresses: ["fe80::9%eth0"])
        let fourOnly = try resolved(port: 631, addresses: ["192.0.2.9"])
        let fourOnlyMoved = try resolved(port: 632, addresses: ["192.0.2.9"])
        let both = try resolved(port: 631)
        let (resolution, token) = try await resolving(on: fake)
        // Twice the answer pause: the resolution has seen results pause with IPv6 alone.
        emit(sixOnly, then: both, after: 0.5, to: token, on: fake)
        #expect(try await result(of: resolution) == both)
        let other = FakeBackend()
        let (again, second) = try await self.resolving(on: other)
        Thread {
            other.emitResolved(second, fourOnly)
            other.emitResolved(second, fourOnlyMoved)
        }.start()
        #expect(try await result(of: again) == fourOnlyMoved)
        // Nothing more comes: the window ends the wait, long before an hour's timeout.
        let alone = FakeBackend()
        let (unanswered, third) = try await self.resolving(on: alone, timeout: .seconds(3600))
        alone.emitResolved(third, sixOnly)
        #expect(try await result(of: unanswered) == sixOnly)
    }

    /// A result of one family whose host's responder denies the other (an NSEC, RFC 6762 §6.1)
    /// is complete: IPv4 alone is returned at once, not replaced by a result within the answer
    /// pause, and IPv6 alone does not wait for the second query.
    @Test func aResultWhoseOtherFamilyIsDeniedIsComplete() async throws {
        let fake = self.fake
        let fourOnly = try resolved(port: 631, addresses: ["192.0.2.9"], denying: [.ipv6])
        let withinThePause = try resolved(port: 632, addresses: ["192.0.2.9"])
        let (resolution, token) = try await resolving(on: fake, timeout: .seconds(3600))
        emit(fourOnly, then: withinThePause, after: 0.05, to: token, on: fake)
        #expect(try await result(of: resolution) == fourOnly)

        let other = FakeBackend()
        let sixOnly = try resolved(port: 631, addresses: ["fe80::9%eth0"], denying: [.ipv4])
        let (again, second) = try await resolving(on: other, timeout: .seconds(7200), window: .seconds(3600))
        other.emitResolved(second, sixOnly)
        #expect(try await result(of: again) == sixOnly)
    }

    /// A scope without IPv4 waits for no IPv4 address: an IPv6-only result comes after the pause,
    /// not at the end of the window (an hour here, so that only a wrong wait outlasts the test's
    /// limit, however busy the machine).
    @Test func anIPv6ScopeWaitsForNoIPv4Address() async throws {
        fake.state.update { $0.asksOverIPv4 = false }
        let sixOnly = try resolved(port: 631, addresses: ["fe80::9%eth0"])
        let (resolution, token) = try await resolving(on: fake, timeout: .seconds(7200), window: .seconds(3600))
        fake.emitResolved(token, sixOnly)
        #expect(try await result(of: resolution) == sixOnly)
    }

    @Test func timesOutWithoutAnInterfaceSayingNoneWasFound() async throws {
        let fake = self.fake
        let service = self.service
        fake.state.update { $0.interfacesPresent = false }
        await #expect(throws: CiaoError.noUsableInterface) {
            try await CiaoResolver.resolve(service, timeout: .milliseconds(50), backends: BackendSelection(local: fake))
        }
    }

    @Test func timesOutAndCancelsTheResolution() async throws {
        let fake = self.fake
        let service = self.service
        let started = ContinuousClock.now
        await #expect(throws: CiaoError.timedOut) {
            try await CiaoResolver.resolve(service, timeout: .milliseconds(50), backends: BackendSelection(local: fake))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        let token = try #require(fake.resolutions.first?.token)
        #expect(fake.isCancelled(token))
    }

    @Test(arguments: [Duration.zero, .seconds(-1), .nanoseconds(-1)])
    func nonPositiveTimeoutIsRejectedBeforeAnyBackendCall(timeout: Duration) async throws {
        await #expect {
            try await CiaoResolver.resolve(service, timeout: timeout, backends: BackendSelection(local: fake))
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func nonLocalDomainIsRejectedBeforeAnyBackendCall() async throws {
        let remote = Service(name: "Printer", type: service.type, domain: "example.com")
        await #expect {
            try await CiaoResolver.resolve(remote, timeout: .seconds(1), backends: BackendSelection(local: fake))
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func cancellationThrowsCancellationErrorAndCancelsTheResolution() async throws {
        let fake = self.fake
        let service = self.service
        // An hour's timeout: only cancellation can end this within result(of:)'s deadline.
        let resolving = Task {
            try await CiaoResolver.resolve(service, timeout: .seconds(3600), backends: BackendSelection(local: fake))
        }
        let token = try await fake.resolution(of: service)
        resolving.cancel()
        await #expect(throws: CancellationError.self) { try await result(of: resolving) }
        #expect(fake.isCancelled(token))
    }

    @Test func aResolutionThatCannotStartThrows() async throws {
        fake.failNext(.resolve, with: .network("no interface"))
        await #expect(throws: CiaoError.network("no interface")) {
            try await CiaoResolver.resolve(service, timeout: .seconds(1), backends: BackendSelection(local: fake))
        }
    }
}
