@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// One registration's life driven through its transitions alone: three probes, three
/// announcements a second apart and doubling, TXT updates, conflicts (RFC 6762 §8.1, §8.3, §8.4, §9).
@Suite struct RegistrationStateTests {
    private let start = Instant.zero + .seconds(10)

    private func registration() -> Registration {
        Registration(kind: .host, label: "ciao")
    }

    /// Probes, the win, then announcements at +0, +1 and +3 s before the name is established.
    @Test func probesThenAnnouncementsThenEstablished() {
        var registration = registration()
        #expect(registration.state == .waitingForInterface && registration.firstProbe == nil)
        registration.startProbing(at: start)
        #expect(registration.isProbing && !registration.isDue(at: start - .milliseconds(1)))
        #expect(registration.isDue(at: start) && registration.firstProbe == start)
        for sent in 1...3 {
            registration.probeSent(nextAt: start + .milliseconds(250 * sent))
            #expect(registration.state == .probing(sent: sent, next: start + .milliseconds(250 * sent)))
            #expect(registration.firstProbe == nil)
        }
        registration.holdProbing(until: start + .seconds(2))
        #expect(registration.state == .probing(sent: 3, next: start + .seconds(2)))
        registration.won(at: start + .seconds(2))
        #expect(!registration.isProbing && registration.isAnnouncing && !registration.hasAnnounced)
        var now = start + .seconds(2)
        var times: [Instant] = []
        while registration.isAnnouncing {
            times.append(now)
            registration.announcementSent(at: now)
            if case .announcing(_, let next) = registration.state { now = next }
        }
        #expect(times == [start + .seconds(2), start + .seconds(3), start + .seconds(5)])
        #expect(registration.state == .established && registration.hasAnnounced)
    }

    private func service(txt: [String] = []) -> ServiceRegistration {
        Services.registration("Web", type: Names.name("_http._tcp.local."), port: 80, txt: txt)
    }

    /// An established name announces the TXT alone; one still announcing starts over with
    /// everything; the records carry the new TXT.
    @Test func aTXTChangeAnnouncesWhatChanged() {
        var registration = Registration(kind: .service(service()), label: "Web")
        registration.won(at: start)
        registration.announcementSent(at: start)
        registration.txtChanged(to: service(txt: ["v=1"]), at: start + .seconds(1))
        #expect(registration.state == .announcing(sent: 0, next: start + .seconds(1)))
        #expect(registration.announcedTypes == nil)
        for _ in 0..<Registration.announcementCount { registration.announcementSent(at: start) }
        registration.txtChanged(to: service(txt: ["v=2"]), at: start + .seconds(9))
        #expect(registration.state == .announcing(sent: 0, next: start + .seconds(9)))
        #expect(registration.announcedTypes == [.txt])
        registration.txtChanged(to: service(txt: ["v=2"]), at: start + .seconds(9))
        #expect(registration.announcedTypes == [.txt])
        let interface = NetworkInterface(id: InterfaceID(1), name: "veth1", addresses: [])
        let records = registration.records(hostName: Names.name("ciao.local."), interface: interface)
        let txt = records.first { $0.type == .txt }
        #expect(txt?.data == .txt(Services.txt(["v=2"])))
    }

    /// A rename after a conflict takes the new name, probes it, and has not reported it won.
    @Test func aRenameProbesTheNewNameUnreported() {
        var registration = Registration(kind: .service(service()), label: "Web")
        registration.won(at: start)
        registration.reportRegistered()
        #expect(registration.hasReportedRegistered)
        registration.rename(to: "Web (2)", probingAt: start + .seconds(1))
        #expect(registration.name == Names.name("Web (2)._http._tcp.local."))
        #expect(registration.state == .probing(sent: 0, next: start + .seconds(1)))
        #expect(!registration.hasReportedRegistered)
    }

    /// Fifteen conflicts within ten seconds throttle probing until a conflict comes alone again;
    /// winning forgets them.
    @Test func conflictsThrottleUntilTheStormEnds() {
        var registration = registration()
        for second in 0..<15 {
            registration.noteConflict(at: start + .milliseconds(500 * second), window: .seconds(10), limit: 15)
            #expect(registration.isThrottled == (second == 14))
        }
        registration.noteConflict(at: start + .seconds(30), window: .seconds(10), limit: 15)
        #expect(!registration.isThrottled && registration.conflictTimes == [start + .seconds(30)])
        let record = ResourceRecord(name: DomainName("ciao.local.")!, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1)))
        registration.reprobe(after: [RecordKey(record)], at: start + .seconds(31))
        #expect(registration.state == .probing(sent: 0, next: start + .seconds(31)))
        #expect(registration.isReprobing(after: record))
        registration.won(at: start + .seconds(32))
        #expect(registration.conflictTimes.isEmpty && registration.conflictReprobe == nil)
    }

    /// A claim started afresh owes no goodbyes.
    @Test func aRestartedClaimHasAnnouncedNothing() {
        var registration = registration()
        registration.won(at: start)
        registration.announcementSent(at: start)
        registration.restartClaim()
        #expect(registration.state == .waitingForInterface && !registration.hasAnnounced)
    }
}
