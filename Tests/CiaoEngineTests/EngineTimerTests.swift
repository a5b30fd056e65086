@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The engine's timers: the next deadline is the earliest of theirs, and an advance to it leaves
/// every timer due later (RFC 6762 §5.2, §8.1).
@Suite struct EngineTimerTests {
    private let interface = NetworkInterface(
        id: InterfaceID(1), name: "veth0",
        addresses: [InterfaceAddress(.v4(IPv4Address(198, 18, 0, 1)), prefixLength: 24)])

    private func deadlines(_ engine: MDNSEngine) -> [EngineTimer: Instant] {
        Dictionary(
            uniqueKeysWithValues: EngineTimer.allCases.compactMap { timer in
                engine.deadline(of: timer).map { (timer, $0) }
            })
    }

    @Test func anIdleEngineHasNoDeadline() {
        var engine = MDNSEngine(configuration: .init(hostLabel: "ciao"), seed: 1)
        engine.setInterface(interface, at: .zero)
        #expect(deadlines(engine).isEmpty && engine.nextDeadline == nil)
    }

    @Test func theNextDeadlineIsTheEarliestTimerAndAdvancingPassesIt() {
        var engine = MDNSEngine(configuration: .init(hostLabel: "ciao"), seed: 1)
        engine.setInterface(interface, at: .zero)
        _ = engine.register(Services.registration("A"), at: .zero)
        _ = engine.startQuery(name: Names.serviceType, type: .ptr, at: .zero)
        let first = deadlines(engine)
        #expect(Set(first.keys) == [.registrations, .queries])
        #expect(first[.registrations]! <= .zero + .milliseconds(250))
        #expect((Duration.milliseconds(20)...(.milliseconds(120))).contains(first[.queries]! - .zero))
        var now = Instant.zero
        for _ in 0..<20 {
            guard let next = engine.nextDeadline else { break }
            #expect(next == deadlines(engine).values.min())
            #expect(next > now || now == .zero)
            now = next
            engine.advance(to: now)
            #expect(deadlines(engine).values.allSatisfy { $0 > now })
        }
        #expect(engine.deadline(of: .multicastSweep) == nil)
    }
}
