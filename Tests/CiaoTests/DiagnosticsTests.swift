import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Synchronization
import Testing

@testable import Ciao

/// Where diagnostics go and what their lines say, and the runtime's counters, without a network.
@Suite struct DiagnosticsTests {
    @Test func aHandlerGetsItsLevelAndAboveAndNothingIsBuiltBelowIt() {
        let hub = DiagnosticHub(environmentLevel: nil)
        #expect(!hub.isOn)
        let built = Atomic<Int>(0)
        func message(_ text: String) -> String {
            built.add(1, ordering: .relaxed)
            return text
        }
        hub.emit(.error, .socket, message("nobody listens"))
        let received = Mutex<[CiaoDiagnostic]>([])
        hub.setHandler(level: .info) { diagnostic in received.withLock { $0.append(diagnostic) } }
        #expect(hub.isOn && hub.wants(.info) && !hub.wants(.debug))
        hub.emit(.debug, .query, interface: "eth0", message("below the level"))
        hub.emit(.info, .interface, interface: "eth0", message("joined"))
        hub.emit(.warning, .socket, message("send failed"))
        hub.setHandler(level: .debug, nil)
        hub.emit(.error, .socket, message("after the handler went"))
        #expect(
            received.withLock { $0.map(\.description) } == [
                "info interface eth0: joined", "warning socket: send failed",
            ])
        #expect(built.load(ordering: .relaxed) == 2)
    }

    @Test func ciaoLogNamesALevel() {
        #expect(DiagnosticHub(environmentLevel: "debug").wants(.debug))
        #expect(DiagnosticHub(environmentLevel: "WARNING").wants(.warning))
        #expect(!DiagnosticHub(environmentLevel: "WARNING").wants(.info))
        #expect(!DiagnosticHub(environmentLevel: "verbose").isOn)
        #expect(!DiagnosticHub(environmentLevel: "").isOn)
    }

    @Test func aLineCarriesTheTimeLevelCategoryAndInterface() {
        let diagnostic = CiaoDiagnostic(
            time: .init(timeIntervalSince1970: 86_400 * 3 + 3_600 * 4 + 60 * 5 + 6.789), level: .warning,
            category: .socket, interface: "eth0", message: "could not send")
        #expect(DiagnosticHub.line(for: diagnostic).hasSuffix(" 04:05:06.789 warning socket eth0: could not send\n"))
        #expect(DiagnosticHub.line(for: diagnostic).hasPrefix("ciao["))
    }

    @Test func aLineIsOneLineWhateverAPeerNamed() {
        let diagnostic = CiaoDiagnostic(
            time: .init(timeIntervalSince1970: 0), level: .warning, category: .query, interface: nil,
            message: "resolving Evil\u{1B}[2J\nline._http._tcp.local. in example.com.: timed out")
        #expect(
            DiagnosticHub.line(for: diagnostic).hasSuffix(
                ": resolving Evil\\027[2J\\010line._http._tcp.local. in example.com.: timed out\n"))
    }

    @Test func messagesAreSummedUpInOneLine() throws {
        let name = Names.name("alpha.local.")
        let records = (1...6).map { ResourceRecord(name: name, ttl: 120, data: .a(IPv4Address(198, 18, 0, UInt8($0)))) }
        var probe = Messages.probe([Messages.question(name, .any, qu: true)], proposing: [records[0]])
        probe.header.isTruncated = true
        #expect(MessageSummary.describe(probe) == "for alpha.local. ANY (QU), proposing 1 record, truncated")
        #expect(
            MessageSummary.describe(Messages.query([Messages.question(name, .a)], knownAnswers: records))
                == "for alpha.local. A, 6 known answers")
        #expect(
            MessageSummary.describe(Messages.response(records, additionals: [records[0]]))
                == "alpha.local. A, alpha.local. A, alpha.local. A, alpha.local. A and 2 more, 1 additional record")
        var goodbye = records[0]
        goodbye.ttl = 0
        #expect(MessageSummary.describe(Messages.response([goodbye])) == "alpha.local. A (goodbye)")
    }

    @Test func countersComeInInterfaceOrderIPv4First() {
        var statistics = RuntimeStatistics()
        statistics.update(InterfaceID(3), .v6, name: "eth1") { $0.packetsReceived += 2 }
        statistics.update(InterfaceID(3), .v4, name: "eth1") { $0.packetsSent += 1 }
        statistics.update(InterfaceID(2), .v4, name: "eth0") { $0.undecodable += 1 }
        statistics.update(InterfaceID(3), .v6, name: "ignored: the counters exist") { $0.packetsReceived += 1 }
        statistics.noteReceiveFailure(over: .v6)
        let snapshot = statistics.snapshot(sockets: [.v4: MulticastSocketCounters(kernelDrops: 7, truncated: 1)])
        #expect(snapshot.interfaces.map { "\($0.interface) \($0.family)" } == ["eth0 ipv4", "eth1 ipv4", "eth1 ipv6"])
        #expect(snapshot.interfaces.map(\.packetsReceived) == [0, 0, 3])
        #expect(snapshot.interfaces[0].undecodable == 1)
        #expect(
            snapshot.sockets == [
                CiaoStatistics.SocketCounters(family: .ipv4, kernelDrops: 7, truncated: 1, receiveFailures: 0)
            ])
    }
}
