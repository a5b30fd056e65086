@testable import CiaoEngine
import CiaoTestFixtures
import CiaoWire
import Testing

/// The registration table alone: services found by every name they publish under, whatever
/// was added, renamed or removed (RFC 6763 §4, §7.1, §9).
@Suite struct RegistrationTableTests {
    private func table() -> RegistrationTable {
        RegistrationTable(host: Registration(kind: .host, label: "ciao", state: .waitingForInterface))
    }

    private func service(_ instance: String, _ type: String = "_http._tcp.local.", subtypes: [String] = [])
        -> Registration
    {
        let service = Services.registration(instance, type: Names.name(type), subtypes: subtypes, port: 80, txt: [])
        return Registration(kind: .service(service), label: instance, state: .waitingForInterface)
    }

    private func owners(_ table: RegistrationTable, _ name: String, host: Bool = true) -> [RecordOwner] {
        table.owners(publishing: DomainName(name)!, includingHost: host)
    }

    @Test func servicesAreFoundUnderEveryNameTheyPublishInRegistrationOrder() {
        var table = table()
        let a = table.add(service("A", subtypes: ["_printer"]))
        let b = table.add(service("B"))
        let c = table.add(service("C", "_ipp._tcp.local."))
        #expect(owners(table, "_http._tcp.local.") == [.service(a), .service(b)])
        #expect(owners(table, "_printer._sub._http._tcp.local.") == [.service(a)])
        #expect(owners(table, "B._http._tcp.local.") == [.service(b)])
        #expect(
            owners(table, "_services._dns-sd._udp.local.") == [.service(a), .service(b), .service(c)])
        #expect(owners(table, "ciao.local.") == [.host])
        #expect(owners(table, "ciao.local.", host: false) == [])
        #expect(table.ids { $0.service?.serviceType == DomainName("_http._tcp.local.")! } == [a, b])
    }

    @Test func aRenameMovesTheServiceToItsNewNameKeepingTheOrder() {
        var table = table()
        let a = table.add(service("A"))
        let b = table.add(service("B"))
        table[.service(a)]?.rename(to: "B-2", probingAt: .zero)
        #expect(owners(table, "A._http._tcp.local.") == [])
        #expect(owners(table, "B-2._http._tcp.local.") == [.service(a)])
        #expect(owners(table, "_http._tcp.local.") == [.service(a), .service(b)])
        table.updateEach { $0.rename(to: $0.label + "x", probingAt: .zero) }
        #expect(owners(table, "Bx._http._tcp.local.") == [.service(b)])
        #expect(owners(table, "B._http._tcp.local.") == [])
    }

    @Test func aRemovedServiceLeavesEveryName() {
        var table = table()
        let a = table.add(service("A", subtypes: ["_printer"]))
        let b = table.add(service("B"))
        #expect(table.remove(a)?.name == DomainName("A._http._tcp.local.")!)
        #expect(table.remove(a) == nil)
        table[.service(b)] = nil
        #expect(table.isEmpty)
        for name in ["_http._tcp.local.", "_printer._sub._http._tcp.local.", "_services._dns-sd._udp.local."] {
            #expect(owners(table, name, host: false) == [])
        }
        #expect(table.add(service("C")) == RegistrationID(rawValue: 3))
    }

    @Test func theHostStaysAndOrdersFirst() {
        var table = table()
        table[.host] = nil
        #expect(table[.host]?.name == DomainName("ciao.local.")!)
        #expect(RecordOwner.host < .service(RegistrationID(rawValue: 1)))
        #expect(!(RecordOwner.service(RegistrationID(rawValue: 1)) < .host))
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
        table[.service(b)]?.probeSent(nextAt: t + .seconds(5))
        #expect(table.nextServiceDue == t + .seconds(3))
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == t + .seconds(3))
        // A later one moves earlier: it is the earliest.
        table[.service(b)]?.probeSent(nextAt: t + .seconds(1))
        #expect(table.nextServiceDue == t + .seconds(1))
        table.updateEach { $0.startProbing(at: t + .seconds(7)) }
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == t + .seconds(7))
        table[.service(a)]?.waitForInterface()
        table.remove(b)
        table.settleNextServiceDue()
        #expect(table.nextServiceDue == nil)
        // The host is not a service: its probes are the engine's to count.
        table.host.startProbing(at: t)
        #expect(table.nextServiceDue == nil)
    }
}
