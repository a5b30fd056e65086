import CCiaoShim
import CiaoNetwork
import Glibc
import Testing

@testable import CiaoTransport

/// The netlink parsing on made-up buffers; no sockets.
@Suite struct NetlinkParsingTests {
    /// One netlink message: a 16-byte nlmsghdr (length, type, flags, sequence, port) and a payload.
    static func message(type: UInt16, payload: Int = 16) -> [UInt8] {
        let length = UInt32(16 + payload)
        var bytes: [UInt8] = []
        withUnsafeBytes(of: length) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        bytes += [UInt8](repeating: 0, count: 10 + payload)
        return bytes
    }

    static func reportsChange(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { NetlinkMonitor.reportsChange($0) }
    }

    @Test func linkAndAddressMessagesAreChanges() {
        for type in [RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR, RTM_DELADDR] {
            #expect(Self.reportsChange(Self.message(type: UInt16(type))), "type \(type)")
        }
        #expect(Self.reportsChange(Self.message(type: UInt16(RTM_NEWROUTE)) + Self.message(type: UInt16(RTM_NEWADDR))))
    }

    @Test func otherMessagesAreNot() {
        #expect(
            !Self.reportsChange(Self.message(type: UInt16(RTM_NEWROUTE)) + Self.message(type: UInt16(RTM_NEWNEIGH))))
        #expect(!Self.reportsChange([]))
    }

    @Test func aMessageCutShortMeansRescan() {
        #expect(Self.reportsChange(Array(Self.message(type: UInt16(RTM_NEWROUTE)).prefix(20))))
        #expect(Self.reportsChange(Self.message(type: UInt16(NLMSG_ERROR))))
    }
}

extension NamespaceTests {
    @Suite struct NetlinkMonitorTests {
        /// Waits up to a second for the monitor to become readable, then drains it.
        static func changes(_ monitor: NetlinkMonitor, within timeout: Duration = .seconds(1)) throws -> Bool {
            var poller = Poller()
            _ = try poller.wait(fileDescriptors: [monitor.fileDescriptor], timeout: timeout)
            return monitor.drainChanges()
        }

        @Test func quietWhenNothingHappens() throws {
            let monitor = try NetlinkMonitor()
            #expect(!monitor.drainChanges())
            #expect(try !Self.changes(monitor, within: .milliseconds(200)))
        }

        @Test func addressesAddedAndRemoved() throws {
            let monitor = try NetlinkMonitor()
            for (address, device) in [("198.18.61.99/24", "trb0"), ("fd00:198:18:61::99/64", "trb0")] {
                try ip(["addr", "add", address, "dev", device] + (address.contains(":") ? ["nodad"] : []))
                #expect(try Self.changes(monitor), "add \(address)")
                #expect(!monitor.drainChanges())
                try ip("addr", "del", address, "dev", device)
                #expect(try Self.changes(monitor), "del \(address)")
                #expect(!monitor.drainChanges())
            }
        }

        @Test func linksCreatedAndDeleted() throws {
            let monitor = try NetlinkMonitor()
            try ip("link", "add", "trc0", "type", "veth", "peer", "name", "trd0")
            #expect(try Self.changes(monitor))
            try ip("link", "del", "trc0")
            #expect(try Self.changes(monitor))
        }

        /// A link going down is a change, and the scanner no longer lists it (nor its peer, which
        /// loses carrier); back up, both return.
        @Test func linkDownAndUp() throws {
            let monitor = try NetlinkMonitor()
            try ip("link", "set", "trb0", "down")
            defer { try? ip("link", "set", "trb0", "up") }
            #expect(try Self.changes(monitor))
            #expect(!(try InterfaceScanner.current().map(\.name)).contains("trb0"))
            // The peer loses its carrier as the kernel gets round to it (link watch, a work queue).
            let clock = ContinuousClock()
            let carrierDeadline = clock.now.advanced(by: .seconds(2))
            var names = try InterfaceScanner.current().map(\.name)
            while names.contains("tra0") && clock.now < carrierDeadline {
                _ = try Self.changes(monitor, within: .milliseconds(100))
                names = try InterfaceScanner.current().map(\.name)
            }
            #expect(!names.contains("tra0"), "tra0 still has its carrier 2 s after its peer went down")
            // Sending on a link that is down fails, transiently.
            for family in IPFamily.allCases {
                let socket = try MulticastSocket(family: family)
                let error = #expect(throws: TransportError.self) {
                    try socket.send([1], on: InterfaceID(if_nametoindex("trb0")), to: .multicast(family))
                }
                #expect(error?.isTransient == true, "\(String(describing: error))")
                print("sending on trb0 while it is down: \(error.map(String.init(describing:)) ?? "no error")")
            }

            try ip("link", "set", "trb0", "up")
            #expect(try Self.changes(monitor))
            let deadline = clock.now.advanced(by: .seconds(5))
            var restored = false
            while !restored && clock.now < deadline {
                let interfaces = try InterfaceScanner.current()
                restored = ["tra0", "trb0"].allSatisfy { name in
                    interfaces.first { $0.name == name }.map { $0.addresses.count >= 3 } ?? false
                }
                if !restored { _ = try Self.changes(monitor, within: .milliseconds(100)) }
            }
            #expect(restored, "tra0 and trb0 did not come back with their addresses")
        }
    }
}
