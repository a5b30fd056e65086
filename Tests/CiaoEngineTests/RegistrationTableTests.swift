@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The registration table alone: services found by every name they publish under, whatever
/// was added, renamed or removed (RFC 6763 §4, §7.1, §9).
@Suite struct RegistrationTableTests {
    private func table() -> RegistrationTable {
        RegistrationTable(host: Registration(kind: .host, label: "ciao"))
    }

    private func service(_ instance: String, _ type: String = "_http._tcp.local.", subtypes: [String] = [])
        -> Registration
    {
        let service = Services.registration(instance, type: Names.name(type), subtypes: subtypes, port: 80, txt: [])
        return Registration(kind: .service(service), label: instance)
    }

    private func owners(_ table: RegistrationTable, _ name: String, host: Bool = true) -> [RecordOwner] {
        table.owners(publishing: DomainName(name)!, includingHost: host)
    }

    @Test func servicesAreFoundUnderEveryNameTheyPublishInRegistrationOrder() {
        var table = table()
        let a = table.add(service("A", subtypes: ["_printer"]))
        let b = table.add(service("B"))
        let c = table.add(service("C", "_ipp._tcp.local."))
        #expect(owners(table, "_http._tcp.local.") == [.registration(a), .registration(b)])
        #expect(owners(table, "_printer._sub._http._tcp.local.") == [.registration(a)])
        #expect(owners(table, "B._http._tcp.local.") == [.registration(b)])
        #expect(
            owners(table, "_services._dns-sd._udp.local.") == [.registration(a), .registration(b), .registration(c)])
        #expect(owners(table, "ciao.local.") == [.host])
        #expect(owners(table, "ciao.local.", host: false) == [])
        #expect(table.ids { $0.service?.serviceType == DomainName("_http._tcp.local.")! } == [a, b])
    }

    @Test func aRenameMovesTheServiceToItsNewNameKeepingTheOrder() {
        var table = table()
        let a = table.add(service("A"))
        let b = table.add(service("B"))
        table[.registration(a)]?.rename(to: "B-2", probingAt: .zero)
        #expect(owners(table, "A._http._tcp.local.") == [])
        #expect(owners(table, "B-2._http._tcp.local.") == [.registration(a)])
        #expect(owners(table, "_http._tcp.local.") == [.registration(a), .registration(b)])
        table.updateEach { $0.rename(to: $0.label + "x", probingAt: .zero) }
        #expect(owners(table, "Bx._http._tcp.local.") == [.registration(b)])
        #expect(owners(table, "B._http._tcp.local.") == [])
    }

    @Test func aRemovedServiceLeavesEveryName() {
        var table = table()
        let a = table.add(service("A", subtypes: ["_printer"]))
        let b = table.add(service("B"))
        #expect(table.remove(a)?.name == DomainName("A._http._tcp.local.")!)
        #expect(table.remove(a) == nil)
        table[.registration(b)] = nil
        #expect(!table.needsHostName)
        for name in ["_http._tcp.local.", "_printer._sub._http._tcp.local.", "_services._dns-sd._udp.local."] {
            #expect(owners(table, name, host: false) == [])
        }
        #expect(table.add(service("C")) == RegistrationID(rawValue: 3))
    }

    /// The host name is needed while a registration names this host, whether it came or went
    /// through `add`, the subscript or `remove`; a service on another host and another host's
    /// name do not need it.
    @Test func theHostNameIsNeededWhileARegistrationNamesThisHost() {
        var table = table()
        let printer = Names.name("printer.local.")
        var elsewhere = Services.registration("IPP", hostName: printer)
        let proxied = OtherHostRegistration(label: "printer", addresses: [.v4(IPv4Address(198, 18, 0, 77))])
        _ = table.add(Registration(kind: .service(elsewhere), label: "IPP"))
        _ = table.add(Registration(kind: .otherHost(proxied), label: "printer"))
        #expect(!table.needsHostName)
        let here = table.add(service("A"))
        let other = table.add(service("B"))
        #expect(table.needsHostName)
        table.remove(here)
        #expect(table.needsHostName)
        elsewhere.instanceName = "B"
        table[.registration(other)] = Registration(kind: .service(elsewhere), label: "B")
        #expect(!table.needsHostName)
        table[.registration(other)] = service("B")
        #expect(table.needsHostName)
        table[.registration(other)] = nil
        #expect(!table.needsHostName)
    }

    @Test func theHostStaysAndOrdersFirst() {
        var table = table()
        table[.host] = nil
        #expect(table[.host]?.name == DomainName("ciao.local.")!)
        #expect(RecordOwner.host < .registration(RegistrationID(rawValue: 1)))
        #expect(!(RecordOwner.registration(RegistrationID(rawValue: 1)) < .host))
    }

    /// The earliest probe or announcement of a service follows every change, whether it comes
    /// through `add`, the subscript, `updateEach` or `remove`, kept or found again.
    @Test func theNextServiceDueFollowsEveryChange() {
        var table = table()
        let t = Instant.zero + .seconds(100)
        func probing(_ instance: String, at first: Instant) -> Registration {
            var registration = service(instance)
            registration.startProbing(at: first)
            return registration
        }
        #expect(table.nextServiceDue == nil)
        let a = table.add(probing("A", at: t + .seconds(3)))
        let b = table.add(probing("B", at: t + .seconds(2)))
        #expect(table.nextServiceDue == t + .seconds(2))
        // The earliest moves later: found again, while unknown and once settled.
        table[.registration(b)]?.probeSent(nextAt: t + .seconds(5))
        #expect(table.nextServiceDue == t + .seconds(3))
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == t + .seconds(3))
        // A later one moves earlier: it is the earliest.
        table[.registration(b)]?.probeSent(nextAt: t + .seconds(1))
        #expect(table.nextServiceDue == t + .seconds(1))
        table.updateEach { $0.startProbing(at: t + .seconds(7)) }
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == t + .seconds(7))
        table[.registration(a)]?.waitForInterface()
        table.remove(b)
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == nil)
        // The host is not a service: its probes are the engine's to count.
        table[.host]?.startProbing(at: t)
        #expect(table.nextServiceDue == nil)
    }

    /// The host claim alone (RFC 6762 §8.1, §15): claimed to publish, left to a responder on this
    /// host that holds the name, confirmed, and released; what may announce and what goodbyes are
    /// owed follow it.
    @Test func theHostClaimMovesOnlyThroughItsTransitions() {
        var table = table()
        let t = Instant.zero + .seconds(100)
        #expect(table.hostClaim == .unneeded && !table.hostNameIsSettled && table.hostClaimDeadline == nil)
        table.claimHostName(probingFrom: nil)
        #expect(table.ownsHostName && table.host.state == .waitingForInterface && !table.hostNameIsSettled)
        table.claimHostName(probingFrom: t)
        #expect(table.host.state == .probing(sent: 0, next: t))
        table[.host]?.won(at: t)
        table[.host]?.announcementSent(at: t)
        #expect(table.hostNameIsSettled && table.owesHostGoodbyes)
        table.leaveHostName(confirmAt: t + .seconds(8), expiresAt: t + .seconds(10))
        #expect(!table.ownsHostName && table.hostNameIsSettled && !table.owesHostGoodbyes)
        #expect(table.hostClaimDeadline == t + .seconds(8))
        table.noteHostNameHolderAsked()
        #expect(table.hostClaim == .heldByAnother(confirmAt: t + .seconds(10), expiresAt: t + .seconds(10)))
        #expect(table.hostClaimDeadline == t + .seconds(10))
        // Claimed again, the name starts afresh: nothing announced, no goodbyes owed.
        table.claimHostName(probingFrom: t + .seconds(10))
        #expect(table.ownsHostName && !table.owesHostGoodbyes && table.hostClaimDeadline == nil)
        table.releaseHostName()
        #expect(table.hostClaim == .unneeded && !table.ownsHostName)
    }

    /// A rename of the host name is taken once, from the name last reported to the current one.
    @Test func aHostRenameIsTakenOnce() {
        var table = table()
        var rename = table.takeHostRename()
        #expect(rename == nil)
        table[.host]?.rename(to: "ciao-2", probingAt: .zero)
        table[.host]?.rename(to: "ciao-3", probingAt: .zero)
        rename = table.takeHostRename()
        #expect(rename?.from == DomainName("ciao.local.")! && rename?.to == DomainName("ciao-3.local.")!)
        rename = table.takeHostRename()
        #expect(rename == nil)
    }

    /// The host's reverse-mapping names (§4): each yielded once, and forgotten as yielded when
    /// its address goes.
    @Test func reverseNamesAreYieldedOnceAndForgottenWithTheirAddress() {
        var table = table()
        let a = DomainName("7.0.18.198.in-addr.arpa.")!
        let b = DomainName("8.0.18.198.in-addr.arpa.")!
        table[.host]?.mapReverse([a, b])
        #expect(owners(table, a.description) == [.host])
        let yielded = [
            table[.host]?.yieldReverseName(a), table[.host]?.yieldReverseName(a),
            table[.host]?.yieldReverseName(DomainName("9.0.18.198.in-addr.arpa.")!),
        ]
        #expect(yielded == [true, false, false])
        #expect(owners(table, a.description) == [] && owners(table, b.description) == [.host])
        table[.host]?.mapReverse([b])
        table[.host]?.mapReverse([a, b])
        #expect(owners(table, a.description) == [.host])
    }
}
