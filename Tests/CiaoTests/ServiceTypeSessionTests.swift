import Testing

@testable import Ciao

/// ``ServiceTypeSession`` on a ``FakeBackend``.
@Suite("ServiceTypeSession lifecycle")
struct ServiceTypeSessionTests {
    let fake = FakeBackend()

    @Test func typesArrive() async throws {
        let session = ServiceTypeSession(domain: "", backends: BackendSelection(local: fake))
        let token = try await fake.typeBrowse()
        let types = StreamRecorder(session.types)
        let ipp = try ServiceType.tcp("ipp")
        let airplay = try ServiceType.tcp("airplay")
        let fake = self.fake
        // From another task, as a backend's thread would.
        await Task.detached {
            fake.emitType(token, ipp)
            fake.emitType(token, airplay)
        }.value
        #expect(try await types.next() == ipp)
        #expect(try await types.next() == airplay)
        #expect(!fake.isCancelled(token))
        session.stop()
    }

    @Test func stopFinishesTheStreamAndCancelsTheToken() async throws {
        let session = ServiceTypeSession(domain: "local.", backends: BackendSelection(local: fake))
        let token = try await fake.typeBrowse()
        let types = StreamRecorder(session.types)
        let ipp = try ServiceType.tcp("ipp")
        fake.emitType(token, ipp)
        #expect(try await types.next() == ipp)
        session.stop()
        #expect(fake.isCancelled(token))
        fake.emitType(token, try ServiceType.udp("sleep-proxy"))
        #expect(try await types.remainder() == [], "nothing after stop(); the stream finishes")
        session.stop()
    }

    @Test func endingTheIterationCancelsTheToken() async throws {
        let session = ServiceTypeSession(domain: "", backends: BackendSelection(local: fake))
        let token = try await fake.typeBrowse()
        let consumer = Task { for try await _ in session.types {} }
        consumer.cancel()
        try await fake.cancellation(of: token)
        _ = try? await consumer.value
    }

    @Test(arguments: ["example.com", "example.com."])
    func nonLocalDomainFinishesWithInvalidConfiguration(domain: String) async throws {
        let session = ServiceTypeSession(domain: domain, backends: BackendSelection(local: fake))
        let types = StreamRecorder(session.types)
        await #expect {
            _ = try await types.next()
        } throws: { error in
            if case CiaoError.invalidConfiguration = error { true } else { false }
        }
        #expect(fake.calls.isEmpty)
    }

    @Test func aTypeBrowseThatCannotStartFinishesWithItsError() async throws {
        fake.failNext(.browseTypes, with: .network("no interface"))
        let session = ServiceTypeSession(domain: "", backends: BackendSelection(local: fake))
        let types = StreamRecorder(session.types)
        await #expect(throws: CiaoError.network("no interface")) { _ = try await types.next() }
    }
}
