import CiaoNetwork
import CiaoWire
import Glibc
import Testing

@testable import CiaoTransport

/// The filter rules, on made-up getifaddrs entries; no sockets.
@Suite struct InterfaceFilterTests {
    typealias Entry = InterfaceScanner.Entry
    static let usable = UInt32(IFF_UP | IFF_RUNNING | IFF_MULTICAST | IFF_BROADCAST)

    static func entry(_ name: String, _ index: UInt32, _ address: String?, _ prefix: Int = 24, flags: UInt32 = usable)
        -> Entry
    {
        let ip: IPAddress? = address.flatMap { text in
            IPv4Address(text).map(IPAddress.v4) ?? IPv6Address(text).map(IPAddress.v6)
        }
        return Entry(
            name: name, index: index, flags: flags, address: ip.map { InterfaceAddress($0, prefixLength: prefix) })
    }

    static let entries: [Entry] = [
        entry("lo", 1, "127.0.0.1", 8, flags: UInt32(IFF_UP | IFF_RUNNING | IFF_LOOPBACK | IFF_MULTICAST)),
        entry("eth1", 3, nil),  // the AF_PACKET entry
        entry("eth1", 3, "fe80::1", 64),
        entry("eth0", 2, nil),
        entry("eth0", 2, "10.0.0.2", 24),
        entry("eth0", 2, "10.0.1.2", 23),
        entry("eth0", 2, "fd00::2", 64),
        entry("eth0", 2, "10.0.0.2", 24),  // a label alias of the same address
        entry("down0", 4, "10.4.0.1", flags: UInt32(IFF_MULTICAST | IFF_BROADCAST)),
        entry("nocarrier0", 5, "10.5.0.1", flags: UInt32(IFF_UP | IFF_MULTICAST)),
        entry("wg0", 6, "10.6.0.1", flags: UInt32(IFF_UP | IFF_RUNNING | IFF_POINTOPOINT)),
    ]

    @Test func usableInterfacesSortedByIndexWithTheirAddresses() {
        let interfaces = InterfaceScanner.interfaces(from: Self.entries, filter: .all)
        #expect(interfaces.map(\.name) == ["eth0", "eth1"])
        #expect(interfaces.map(\.id) == [InterfaceID(2), InterfaceID(3)])
        #expect(interfaces[0].addresses.map(\.prefixLength) == [24, 23, 64])
        #expect(interfaces[0].addresses.map(\.address.description) == ["10.0.0.2", "10.0.1.2", "fd00::2"])
        #expect(interfaces[1].addresses.map(\.address.description) == ["fe80::1"])
    }

    @Test func familiesSelectAddressesAndDropInterfacesWithoutOne() {
        let v4 = InterfaceScanner.interfaces(from: Self.entries, filter: InterfaceFilter(families: [.v4]))
        #expect(v4.map(\.name) == ["eth0"])
        #expect(v4[0].addresses.map(\.address.description) == ["10.0.0.2", "10.0.1.2"])
        let v6 = InterfaceScanner.interfaces(from: Self.entries, filter: InterfaceFilter(families: [.v6]))
        #expect(v6.map(\.name) == ["eth0", "eth1"])
        #expect(InterfaceScanner.interfaces(from: Self.entries, filter: InterfaceFilter(families: [])).isEmpty)
    }

    @Test func namesSelectInterfaces() {
        let filter = InterfaceFilter(names: ["eth1", "down0", "absent"])
        #expect(InterfaceScanner.interfaces(from: Self.entries, filter: filter).map(\.name) == ["eth1"])
        #expect(InterfaceFilter.all.includes(name: "anything"))
        #expect(!filter.includes(name: "eth0"))
    }

    @Test func prefixLengthsFromNetmasks() {
        #expect(InterfaceScanner.prefixLength(of: .v4(IPv4Address("255.255.255.0")!)) == 24)
        #expect(InterfaceScanner.prefixLength(of: .v4(IPv4Address("255.255.254.0")!)) == 23)
        #expect(InterfaceScanner.prefixLength(of: .v4(IPv4Address("255.255.255.255")!)) == 32)
        #expect(InterfaceScanner.prefixLength(of: .v6(IPv6Address("ffff:ffff:ffff:ffff::")!)) == 64)
        #expect(InterfaceScanner.prefixLength(of: .v6(IPv6Address("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff80")!)) == 121)
    }

    /// /proc/net/if_inet6 of a lab host, captured: fd00:198:18::99 was added with `preferred_lft
    /// 0` (flags a2: permanent, deprecated, no DAD); the others are not deprecated (80, 82).
    static let ifInet6 = """
        00000000000000000000000000000001 01 80 10 80       lo
        fe800000000000000000c6fffe120001 02 40 20 80     nlv0
        fd000198001800000000000000000098 02 40 00 82     nlv0
        fd000198001800000000000000000001 02 40 00 82     nlv0
        fd000198001800000000000000000099 02 40 00 a2     nlv0

        fd0001980018000000000000000000zz 02 40 00 a2     nlv0
        fd000198001800000000000000000097 02 40 00 a2
        """

    @Test func deprecatedAddressesFromProcNetIfInet6() {
        let deprecated = DeprecatedAddresses(ifInet6: Self.ifInet6)
        let address = { (text: String) in IPAddress.v6(IPv6Address(text)!) }
        #expect(deprecated.contains(address("fd00:198:18::99"), onInterface: 2))
        #expect(!deprecated.contains(address("fd00:198:18::99"), onInterface: 1))
        // Not deprecated; and the lines that do not read (bad digits, a field missing) count for nothing.
        for text in ["fd00:198:18::98", "fd00:198:18::1", "fe80::c6ff:fe12:1", "fd00:198:18::97"] {
            #expect(!deprecated.contains(address(text), onInterface: 2), "\(text)")
        }
        #expect(!DeprecatedAddresses(ifInet6: "").contains(address("fd00:198:18::99"), onInterface: 2))
    }
}

extension NamespaceTests {
    @Suite struct InterfaceScannerTests {
        @Test func listsTheVethPairWithAddressesAndPrefixes() throws {
            let interfaces = try InterfaceScanner.current()
            let names = interfaces.map(\.name)
            #expect(names.contains("tra0") && names.contains("trb0"))
            #expect(!names.contains("lo"))
            #expect(interfaces.map(\.id) == interfaces.map(\.id).sorted())

            let a = try Lab.interface("tra0"), b = try Lab.interface("trb0")
            #expect(a.id.index == if_nametoindex("tra0"))
            #expect(b.id.index == if_nametoindex("trb0"))
            #expect(a.addresses.contains(InterfaceAddress(Lab.a4, prefixLength: 24)))
            #expect(a.addresses.contains(InterfaceAddress(Lab.a6, prefixLength: 64)))
            #expect(b.addresses.contains(InterfaceAddress(Lab.b4, prefixLength: 24)))
            #expect(b.addresses.contains(InterfaceAddress(Lab.b6, prefixLength: 64)))
            for interface in [a, b] {
                let linkLocal = try Lab.linkLocal(interface)
                #expect(interface.addresses.contains(InterfaceAddress(linkLocal, prefixLength: 64)))
            }
        }

        @Test func filterNarrowsTheList() throws {
            let interfaces = try InterfaceScanner.current(
                filter: InterfaceFilter(names: ["trb0"], families: [.v4]))
            #expect(interfaces.map(\.name) == ["trb0"])
            #expect(interfaces.first?.addresses == [InterfaceAddress(Lab.b4, prefixLength: 24)])
        }
    }
}
