import CiaoTestFixtures
import CiaoUnicastDNS
import CiaoWire
import Foundation
import Testing

/// ``WideAreaRegistration`` against a server that carries out the updates (``FakeUpdateServer``):
/// what lands in the zone after each step, conflicts, errors, retransmission and leases.
@Suite struct WideAreaRegistrationTests {
    static let zone = Names.name("lab.example.")
    static let key = try! TSIGKey(name: Names.name("ciao-lab."), secret: Array("a secret of the lab's own, 32 b!".utf8))
    static let start = WideAreaRegistration.Time(monotonic: .seconds(100), unixSeconds: 1_800_000_000)

    static func records(
        _ instance: String = "Kitchen Printer", port: UInt16 = 631, host: String = "ciao-host",
        txt: [String] = ["rp=ipp"]
    ) -> ServiceRegistrationRecords {
        try! ServiceRegistrationRecords(
            instanceName: instance, serviceType: Names.name("_ipp._tcp.lab.example."), subtypes: ["_universal"],
            srv: SRVData(port: port, target: Names.name("\(host).lab.example.")),
            txt: Services.txt(txt),
            ipv4Addresses: [IPv4Address("198.18.0.2")!])
    }

    static func registration(
        _ records: ServiceRegistrationRecords = records(), renaming: Bool = true, lease: UInt32? = 7200
    ) -> WideAreaRegistration {
        WideAreaRegistration(
            records: records, zone: zone, server: "198.18.0.1#53", key: key, allowsRenaming: renaming,
            requestedLease: lease)
    }

    /// Delivers every datagram in `outputs` to `server` and the replies to `registration`, until
    /// nothing more is sent; returns the events in order.
    static func exchange(
        _ outputs: [WideAreaRegistration.Output], _ registration: inout WideAreaRegistration,
        _ server: inout FakeUpdateServer, at time: WideAreaRegistration.Time = start
    ) -> [WideAreaRegistration.Event] {
        var pending = outputs
        var events: [WideAreaRegistration.Event] = []
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .event(let event): events.append(event)
            case .send(let datagram):
                if let reply = server.handle(datagram, at: time.unixSeconds) {
                    pending += registration.receive(reply, at: time)
                }
            }
        }
        return events
    }

    @Test func registrationAddsExactlyItsRecordsBehindANameNotInUsePrerequisite() throws {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var registration = Self.registration()
        let events = Self.exchange(registration.start(at: Self.start), &registration, &server)
        #expect(events == [.registered(name: "Kitchen Printer", lease: nil)])
        #expect(server.records == Set(Self.records().all))
        let update = try #require(server.updatesSeen.first)
        #expect(update.answers == [DNSUpdate.nameIsNotInUse(Names.name("Kitchen\\032Printer._ipp._tcp.lab.example."))])
        #expect(
            Self.records().pointers.map(\.name) == [
                Names.name("_ipp._tcp.lab.example."), Names.name("_universal._sub._ipp._tcp.lab.example."),
            ])
    }

    @Test func aTakenNameIsRenamedAndTheOtherRegistrantsRecordsAreUntouched() throws {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var first = Self.registration(Self.records(port: 1))
        _ = Self.exchange(first.start(at: Self.start), &first, &server)
        let theirs = server.records
        var second = Self.registration(Self.records(port: 2))
        #expect(Self.exchange(second.start(at: Self.start), &second, &server) == [.nameInUse("Kitchen Printer")])
        #expect(server.records == theirs)
        let events = Self.exchange(second.rename(to: "Kitchen Printer (2)", at: Self.start), &second, &server)
        #expect(events == [.registered(name: "Kitchen Printer (2)", lease: nil)])
        #expect(server.records == theirs.union(try Self.records(port: 2).renamed(to: "Kitchen Printer (2)").all))
    }

    @Test func aTakenNameFailsWhenRenamingIsOff() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var first = Self.registration()
        _ = Self.exchange(first.start(at: Self.start), &first, &server)
        var second = Self.registration(renaming: false)
        let events = Self.exchange(second.start(at: Self.start), &second, &server)
        #expect(events == [.failed(.nameInUse(Names.name("Kitchen\\032Printer._ipp._tcp.lab.example.")))])
    }

    @Test func aTXTUpdateReplacesTheRRset() throws {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var registration = Self.registration()
        _ = Self.exchange(registration.start(at: Self.start), &registration, &server)
        let txt = Services.txt(["rp=ipp/print", "color=T"])
        #expect(Self.exchange(registration.updateTXT(txt, at: Self.start), &registration, &server) == [.txtUpdated])
        #expect(server.records == Set(Self.records().replacingTXT(with: txt).all))
    }

    @Test func stopDeletesOnlyItsOwnMembersOfSharedRRsets() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var other = Self.registration(Self.records("Hall Printer", port: 9, host: "other-host"))
        _ = Self.exchange(other.start(at: Self.start), &other, &server)
        let theirs = server.records
        var registration = Self.registration()
        _ = Self.exchange(registration.start(at: Self.start), &registration, &server)
        #expect(Self.exchange(registration.stop(at: Self.start), &registration, &server) == [.deregistered])
        #expect(server.records == theirs)
        #expect(server.records(named: Names.name("_ipp._tcp.lab.example.")).count == 1)
    }

    @Test func aStopBeforeTheReplyDeregistersOnceRegistered() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var registration = Self.registration()
        let sent = registration.start(at: Self.start)
        #expect(registration.stop(at: Self.start).isEmpty)  // waits for the registration's reply
        #expect(
            Self.exchange(sent, &registration, &server) == [
                .registered(name: "Kitchen Printer", lease: nil), .deregistered,
            ])
        #expect(server.records.isEmpty)
    }

    @Test func refusalsAndBadSignaturesAreTypedErrors() {
        var refusing = FakeUpdateServer(zone: Self.zone, key: Self.key, refusesEverything: true)
        var registration = Self.registration()
        #expect(
            Self.exchange(registration.start(at: Self.start), &registration, &refusing) == [
                .failed(.refused(zone: Self.zone))
            ])
        let otherSecret = try! TSIGKey(
            name: Names.name("ciao-lab."), secret: Array("not the secret the server has!!!".utf8))
        var wrongKey = FakeUpdateServer(zone: Self.zone, key: otherSecret)
        var second = Self.registration()
        // the server cannot verify the request and answers NOTAUTH unsigned (RFC 8945 §5.3.2)
        #expect(
            Self.exchange(second.start(at: Self.start), &second, &wrongKey) == [
                .failed(.notAuthoritative(zone: Self.zone))
            ])
        #expect(wrongKey.records.isEmpty)
    }

    @Test func aReplySignedWithAnotherSecretIsRejected() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var registration = Self.registration()
        guard case .send(let datagram) = registration.start(at: Self.start).first else {
            Issue.record("nothing sent")
            return
        }
        let reply = server.handle(datagram, at: Self.start.unixSeconds)!
        var forged = reply
        forged[forged.count - 10] ^= 0xFF  // inside the MAC
        #expect(registration.receive(forged, at: Self.start) == [.event(.failed(.authentication(.badSignature)))])
    }

    @Test func repliesToOtherMessagesAreIgnored() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key)
        var registration = Self.registration()
        guard case .send(let datagram) = registration.start(at: Self.start).first else {
            Issue.record("nothing sent")
            return
        }
        var reply = server.handle(datagram, at: Self.start.unixSeconds)!
        reply[0] ^= 0x01  // another ID
        #expect(registration.receive(reply, at: Self.start).isEmpty)
        #expect(registration.receive([0, 1, 2], at: Self.start).isEmpty)
        reply[0] ^= 0x01
        #expect(
            registration.receive(reply, at: Self.start) == [.event(.registered(name: "Kitchen Printer", lease: nil))])
    }

    @Test func anUnansweredUpdateIsRetransmittedThenFailsAfterFifteenSeconds() {
        var registration = Self.registration()
        let first = registration.start(at: Self.start)
        var sends = [Self.start.monotonic]
        var time = Self.start
        var last: [WideAreaRegistration.Output] = []
        while let deadline = registration.nextDeadline {
            time.monotonic = deadline
            last = registration.advance(to: time)
            if case .send(let datagram) = last.first {
                #expect([WideAreaRegistration.Output.send(datagram)] == first)
                sends.append(time.monotonic)
            }
        }
        #expect(sends.map { $0 - Self.start.monotonic } == [.zero, .seconds(1), .seconds(3), .seconds(7)])
        #expect(time.monotonic - Self.start.monotonic == .seconds(15))
        #expect(last == [.event(.failed(.timedOut(server: "198.18.0.1#53", transportFailure: nil)))])
        #expect(
            RegistrationError.timedOut(server: "198.18.0.1#53", transportFailure: nil).description
                == "no reply from 198.18.0.1#53 to the DNS UPDATE: check the server address and port")
    }

    @Test func aTransportFailureIsRetransmittedOverAndNamedInTheTimeout() {
        var registration = Self.registration()
        _ = registration.start(at: Self.start)
        let reason = "receive from the DNS server 198.18.0.1:53 failed: Connection refused"
        registration.transportFailed(reason)
        var time = Self.start
        var last: [WideAreaRegistration.Output] = []
        var retransmissions = 0
        while let deadline = registration.nextDeadline {
            time.monotonic = deadline
            last = registration.advance(to: time)
            if case .send = last.first { retransmissions += 1 }
        }
        #expect(retransmissions == 3)
        let error = RegistrationError.timedOut(server: "198.18.0.1#53", transportFailure: reason)
        #expect(last == [.event(.failed(error))])
        #expect(
            error.description
                == "no reply from 198.18.0.1#53 to the DNS UPDATE (\(reason)): check the server address and port")
    }

    @Test func aGrantedLeaseIsRefreshedAtEightyPercentPlusJitter() throws {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key, grantedLease: 3600)
        var registration = Self.registration()
        #expect(
            Self.exchange(registration.start(at: Self.start), &registration, &server) == [
                .registered(name: "Kitchen Printer", lease: 3600)
            ])
        let due = try #require(registration.nextDeadline) - Self.start.monotonic
        #expect(due >= .seconds(2880) && due <= .seconds(3060))
        var later = Self.start
        later.monotonic += due
        #expect(Self.exchange(registration.advance(to: later), &registration, &server) == [.refreshed(lease: 3600)])
        let refresh = try #require(server.updatesSeen.last)
        #expect(refresh.answers.isEmpty && Set(refresh.authorities) == Set(Self.records().all))
    }

    @Test func withoutAGrantedLeaseNothingIsDue() {
        var server = FakeUpdateServer(zone: Self.zone, key: Self.key, grantedLease: nil)
        var registration = Self.registration()
        _ = Self.exchange(registration.start(at: Self.start), &registration, &server)
        #expect(registration.nextDeadline == nil)
    }
}
