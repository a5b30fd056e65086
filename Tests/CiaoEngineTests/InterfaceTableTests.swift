@testable import CiaoEngine
import CiaoWire
import Testing

/// The interface table alone: passes in interface order whatever the order of arrival, state
/// changed in place, and this host's addresses known across every interface (RFC 6762 §15).
@Suite struct InterfaceTableTests {
    private func state(_ index: UInt32, _ address: IPv4Address) -> InterfaceState {
        let interface = NetworkInterface(
            id: InterfaceID(index), name: "veth\(index)", addresses: [InterfaceAddress(.v4(address), prefixLength: 24)])
        return InterfaceState(interface: interface, cacheCapacity: 16)
    }

    private let key = RecordKey(
        ResourceRecord(name: DomainName("a.local.")!, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1))))

    /// Interfaces 1 and 2, on 198.18.0.0/24 and 198.18.1.0/24.
    private func twoInterfaces() -> InterfaceTable {
        var table = InterfaceTable()
        table[InterfaceID(1)] = state(1, IPv4Address(198, 18, 0, 1))
        table[InterfaceID(2)] = state(2, IPv4Address(198, 18, 1, 1))
        return table
    }

    @Test func passesGoInInterfaceOrder() {
        var table = InterfaceTable()
        #expect(table.isEmpty)
        for index: UInt32 in [7, 2, 5, 1, 9, 3] { table[InterfaceID(index)] = state(index, IPv4Address(198, 18, 0, 1)) }
        #expect(table.ids == [1, 2, 3, 5, 7, 9].map(InterfaceID.init))
        #expect(table.networkInterfaces.map(\.id) == table.ids)
        #expect(table.contains(InterfaceID(5)) && !table.contains(InterfaceID(4)))
        #expect(table.contains { $0.index > 8 } && !table.contains { $0.index == 4 })
        table.remove(InterfaceID(5))
        #expect(table.ids == [1, 2, 3, 7, 9].map(InterfaceID.init))
    }

    @Test func changesStayAndReachEveryInterface() {
        var table = twoInterfaces()
        table[InterfaceID(1)]?.multicastLog.note(key, over: .v4, at: .zero)
        #expect(table[InterfaceID(1)]?.multicastLog.count == 1 && table[InterfaceID(2)]?.multicastLog.count == 0)
        table.updateEach { $0.multicastLog = MulticastLog() }
        #expect(table.states.allSatisfy { $0.multicastLog.count == 0 })
        table[InterfaceID(3)]?.multicastLog.note(key, over: .v4, at: .zero)
        #expect(!table.contains(InterfaceID(3)))
    }

    /// Every interface's multicast log forgets its old times, at most once a sweep interval.
    @Test func oldMulticastsAreForgottenAtMostOncePerSweepInterval() {
        var table = twoInterfaces()
        let start = Instant.zero + .seconds(10)
        table.updateEach { $0.multicastLog.note(key, over: .v4, at: start) }
        let firstSweep = start + MulticastLog.memory - .seconds(30)
        table.forgetOldMulticasts(at: firstSweep)
        // Older than the memory now, but within the sweep interval of the last sweep: kept.
        table.forgetOldMulticasts(at: start + MulticastLog.memory + .seconds(1))
        #expect(table.states.allSatisfy { $0.multicastLog.count == 1 })
        table.forgetOldMulticasts(at: firstSweep + InterfaceTable.multicastSweepInterval)
        #expect(table.states.allSatisfy { $0.multicastLog.count == 0 })
    }

    @Test func theHostOwnsTheAddressesOfEveryInterface() {
        let table = twoInterfaces()
        #expect(table.owns(.v4(IPv4Address(198, 18, 1, 1))))
        #expect(!table.owns(.v4(IPv4Address(198, 18, 1, 2))))
        #expect(table.owner(of: .v4(IPv4Address(198, 18, 1, 1)), besides: InterfaceID(1)) == InterfaceID(2))
        #expect(table.owner(of: .v4(IPv4Address(198, 18, 1, 1)), besides: InterfaceID(2)) == nil)
    }

    /// Interfaces on one link are known by pair, either way round, between interfaces present,
    /// and forgotten with either one (RFC 6762 §14).
    @Test func sharedLinksAreKnownByPairAndForgottenWithEither() {
        var table = twoInterfaces()
        table[InterfaceID(3)] = state(3, IPv4Address(198, 18, 2, 1))
        let news = [(1, 1), (1, 9), (2, 1), (1, 2), (3, 1)].map { first, second in
            table.noteSharedLink(InterfaceID(UInt32(first)), InterfaceID(UInt32(second)))
        }
        // Not with itself, nor with an interface not in use; 1 and 2 once.
        #expect(news == [false, false, true, false, true])
        #expect(table.interfacesSharingLink(with: InterfaceID(1)) == [InterfaceID(2), InterfaceID(3)])
        #expect(table.interfacesSharingLink(with: InterfaceID(2)) == [InterfaceID(1)])
        table.remove(InterfaceID(3))
        #expect(table.interfacesSharingLink(with: InterfaceID(1)) == [InterfaceID(2)])
        table.remove(InterfaceID(2))
        #expect(table.interfacesSharingLink(with: InterfaceID(1)).isEmpty)
        table[InterfaceID(2)] = state(2, IPv4Address(198, 18, 1, 1))
        #expect(table.interfacesSharingLink(with: InterfaceID(1)).isEmpty, "an interface back starts unknown")
    }
}
