import CiaoNetwork
import CiaoWire
import Dispatch
import Glibc
import Testing

@testable import CiaoTransport

extension NamespaceTests {
    /// Sockets on the veth pair: tra0 and trb0 are the two ends of one cable, so multicast sent out
    /// of tra0 arrives on trb0 (and, with multicast loopback on, a copy arrives "on" tra0 too).
    @Suite struct MulticastSocketTests {
        /// A socket on 5353 joined on both ends hears multicast sent out of tra0 on trb0, from
        /// tra0's address and port 5353, to the group.
        @Test(arguments: IPFamily.allCases)
        func multicastIsAttributedToTheReceivingInterface(family: IPFamily) throws {
            let a = try Lab.interface("tra0"), b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: family)
            try receiver.join(a.id)
            try receiver.join(b.id)
            try receiver.join(b.id)  // twice is fine
            #expect(receiver.joinedInterfaces == [a.id, b.id])
            let sender = try MulticastSocket(family: family)

            let payload = uniquePayload("multicast \(family)")
            try sender.send(payload, on: a.id, to: .multicast(family))
            let datagrams = try collect(payload, on: receiver) { datagrams in
                Set(datagrams.map(\.interface)) == [a.id, b.id]
            }
            let source = family == .v4 ? Lab.a4 : try Lab.linkLocal(a)

            let fromWire = try #require(datagrams.first { $0.interface == b.id }, "nothing arrived on trb0")
            #expect(fromWire.isMulticast)
            #expect(fromWire.source == SocketAddress(source, port: mdnsPort))
            // Multicast loopback: the sending host hears its own packet on the sending interface.
            let looped = try #require(datagrams.first { $0.interface == a.id }, "no looped copy on tra0")
            #expect(looped.source == SocketAddress(source, port: mdnsPort))
            // The sender joined nothing but is bound to 5353, and IP_MULTICAST_ALL is on (see
            // MulticastSocket), so it hears the group wherever some socket on the host joined it.
            #expect(
                try collect(payload, on: sender) { $0.contains { $0.interface == b.id } }
                    .contains { $0.interface == b.id })
        }

        /// The PKTINFO control message picks the outgoing interface: the same socket sends out of
        /// trb0 and the packet arrives on tra0, from trb0's address.
        @Test(arguments: IPFamily.allCases)
        func packetInfoChoosesTheOutgoingInterface(family: IPFamily) throws {
            let a = try Lab.interface("tra0"), b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: family)
            try receiver.join(a.id)
            let sender = try MulticastSocket(family: family)
            for (out, into) in [(b, a), (a, b)] {
                try receiver.join(into.id)
                let payload = uniquePayload("pktinfo \(family) \(out.name)")
                try sender.send(payload, on: out.id, to: .multicast(family))
                let datagrams = try collect(payload, on: receiver) { $0.contains { $0.interface == into.id } }
                let datagram = try #require(
                    datagrams.first { $0.interface == into.id }, "nothing arrived on \(into.name)")
                let source = family == .v4 ? (out.name == "tra0" ? Lab.a4 : Lab.b4) : try Lab.linkLocal(out)
                #expect(datagram.source.address == source)
            }
        }

        /// Unicast to one of our addresses arrives with isMulticast false.
        @Test(arguments: [Lab.b4, Lab.b6])
        func unicastIsNotMulticast(destination: IPAddress) throws {
            let b = try Lab.interface("trb0")
            // Not on 5353: with SO_REUSEPORT the kernel gives a unicast datagram to one socket of
            // the port's group, which could be the sender.
            let receiver = try MulticastSocket(family: destination.family, port: 15353)
            let sender = try MulticastSocket(family: destination.family)
            let payload = uniquePayload("unicast \(destination)")
            try sender.send(payload, on: b.id, to: .unicast(SocketAddress(destination, port: 15353)))
            let datagram = try #require(try collect(payload, on: receiver) { !$0.isEmpty }.first)
            #expect(!datagram.isMulticast)
            #expect(datagram.source.port == mdnsPort)
        }

        /// A socket opened while another holds its port knows it (RFC 6762 §15.1): unicast sent
        /// to the port may then go to the other, so the runtime asks no unicast replies there.
        @Test(arguments: [IPFamily.v4, .v6])
        func aSocketKnowsWhenAnotherHoldsItsPort(family: IPFamily) throws {
            let port: UInt16 = family == .v4 ? 15371 : 15372
            let first = try MulticastSocket(family: family, port: port)
            #expect(!first.portWasInUse)
            let second = try MulticastSocket(family: family, port: port)
            #expect(second.portWasInUse)
            first.close()
            second.close()
            #expect(!(try MulticastSocket(family: family, port: port)).portWasInUse)
        }

        /// A link-local destination needs the interface as its scope (sin6_scope_id).
        @Test func linkLocalUnicastUsesTheInterfaceAsScope() throws {
            let b = try Lab.interface("trb0")
            let linkLocal = try Lab.linkLocal(b)
            let receiver = try MulticastSocket(family: .v6, port: 15354)
            let sender = try MulticastSocket(family: .v6)
            let payload = uniquePayload("link-local")
            try sender.send(payload, on: b.id, to: .unicast(SocketAddress(linkLocal, port: 15354)))
            let datagram = try #require(try collect(payload, on: receiver) { !$0.isEmpty }.first)
            #expect(!datagram.isMulticast)
            #expect(datagram.source.address == linkLocal)
        }

        @Test(arguments: IPFamily.allCases)
        func leaveStopsReception(family: IPFamily) throws {
            let a = try Lab.interface("tra0"), b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: family)
            try receiver.join(b.id)
            let sender = try MulticastSocket(family: family)

            // Only what arrives on trb0 counts: the looped copy "on" tra0 is delivered to every
            // socket on 5353 (IP_MULTICAST_ALL), joined or not.
            func arrivals(_ payload: [UInt8], within window: Duration = .milliseconds(500)) throws -> Int {
                try collect(payload, on: receiver, within: window) { $0.contains { $0.interface == b.id } }
                    .filter { $0.interface == b.id }.count
            }
            let before = uniquePayload("before leave")
            try sender.send(before, on: a.id, to: .multicast(family))
            #expect(try arrivals(before) == 1)

            try receiver.leave(b.id)
            try receiver.leave(b.id)  // not a member any more: tolerated
            #expect(receiver.joinedInterfaces.isEmpty)
            let after = uniquePayload("after leave")
            try sender.send(after, on: a.id, to: .multicast(family))
            #expect(try arrivals(after, within: .milliseconds(300)) == 0)
        }

        /// SO_REUSEPORT: two sockets on 5353 (ours beside avahi-daemon, say) both hear multicast.
        @Test(arguments: IPFamily.allCases)
        func twoSocketsShareTheMDNSPort(family: IPFamily) throws {
            let a = try Lab.interface("tra0"), b = try Lab.interface("trb0")
            let first = try MulticastSocket(family: family)
            let second = try MulticastSocket(family: family)
            try first.join(b.id)
            try second.join(b.id)
            let payload = uniquePayload("reuseport")
            try first.send(payload, on: a.id, to: .multicast(family))
            for socket in [first, second] {
                let datagrams = try collect(payload, on: socket) { $0.contains { $0.interface == b.id } }
                #expect(datagrams.filter { $0.interface == b.id }.count == 1)
            }
        }

        @Test(arguments: IPFamily.allCases)
        func receiveOnAnEmptySocketReturnsNothing(family: IPFamily) throws {
            let socket = try MulticastSocket(family: family, port: 15355)
            #expect(try socket.receiveWaiting().isEmpty)
        }

        /// One call reads everything waiting, across several recvmmsg(2) calls when more than
        /// `receiveSlots` wait, in order; `limit` stops it at the first full read past the limit.
        @Test func waitingDatagramsAreReadInOrderUpToTheLimit() throws {
            let b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: .v4, port: 15359)
            let sender = try MulticastSocket(family: .v4)
            let destination = OutgoingDatagram.Destination.unicast(SocketAddress(Lab.b4, port: 15359))
            let payloads = (0..<(3 * MulticastSocket.receiveSlots + 5)).map { uniquePayload("batch \($0)") }
            for payload in payloads { try sender.send(payload, on: b.id, to: destination) }
            var poller = Poller()
            _ = try poller.wait(fileDescriptors: [receiver.fileDescriptor], timeout: .seconds(1))
            let first = try receiver.receiveWaiting(limit: MulticastSocket.receiveSlots)
            #expect(first.map(\.bytes) == Array(payloads.prefix(MulticastSocket.receiveSlots)))
            let rest = try receiver.receiveWaiting()
            #expect(rest.map(\.bytes) == Array(payloads.dropFirst(MulticastSocket.receiveSlots)))
            #expect(rest.allSatisfy { $0.interface == b.id && !$0.isMulticast })
            #expect(try receiver.receiveWaiting().isEmpty)
        }

        /// Datagrams over 9000 bytes (RFC 6762 §17) are counted and skipped.
        @Test func oversizeDatagramsAreDropped() throws {
            let b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: .v4, port: 15356)
            let sender = try MulticastSocket(family: .v4)
            let destination = OutgoingDatagram.Destination.unicast(SocketAddress(Lab.b4, port: 15356))
            try sender.send(
                [UInt8](repeating: 1, count: MulticastSocket.maximumDatagramSize + 1), on: b.id, to: destination)
            let fits = [UInt8](repeating: 2, count: MulticastSocket.maximumDatagramSize)
            try sender.send(fits, on: b.id, to: destination)
            let datagrams = try collect(fits, on: receiver) { !$0.isEmpty }
            #expect(datagrams.count == 1)
            #expect(receiver.truncatedDatagrams == 1)
        }

        /// SO_RXQ_OVFL: after the queue overflowed, the next datagram reports the kernel's drop count.
        @Test func kernelDropsAreReported() throws {
            let b = try Lab.interface("trb0")
            let receiver = try MulticastSocket(family: .v4, port: 15357)
            var small: Int32 = 4096
            #expect(
                setsockopt(receiver.fileDescriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
                    == 0)
            let sender = try MulticastSocket(family: .v4)
            let destination = OutgoingDatagram.Destination.unicast(SocketAddress(Lab.b4, port: 15357))
            for _ in 0..<100 { try sender.send([UInt8](repeating: 3, count: 1000), on: b.id, to: destination) }
            while try !receiver.receiveWaiting().isEmpty {}
            #expect(receiver.droppedDatagrams == 0)  // reported only with a later datagram
            let last = uniquePayload("after drops")
            try sender.send(last, on: b.id, to: destination)
            #expect(try collect(last, on: receiver) { !$0.isEmpty }.count == 1)
            #expect(receiver.droppedDatagrams > 0)
        }

        /// Errors that mean "the network is not there" are typed and transient, and counted
        /// (a link that is down: see NetlinkMonitorTests.linkDownAndUp).
        @Test func sendFailuresAreTypedAndTransient() throws {
            let a = try Lab.interface("tra0")
            let socket = try MulticastSocket(family: .v4)
            #expect(throws: TransportError.familyMismatch(socket: .v4, destination: .v6)) {
                try socket.send([1], on: a.id, to: .multicast(.v6))
            }
            // An interface index that does not exist.
            let gone = #expect(throws: TransportError.self) {
                try socket.send([1], on: InterfaceID(999_999), to: .multicast(.v4))
            }
            #expect(gone?.isTransient == true, "\(String(describing: gone))")
            #expect(socket.sendFailures == 1)
            // Leaving on a vanished interface is tolerated; joining one is an error.
            try socket.leave(InterfaceID(999_999))
            #expect(throws: TransportError.self) { try socket.join(InterfaceID(999_999)) }
        }

        @Test func bindFailureNamesThePort() throws {
            // A plain socket without SO_REUSEPORT holds the port, so ours cannot share it.
            let holder = try #require(Self.holdWithoutSharing(port: 15358))
            defer { close(holder) }
            #expect(
                throws: TransportError.system(operation: "bind an IPv4 socket to UDP port 15358", errno: EADDRINUSE)
            ) {
                _ = try MulticastSocket(family: .v4, port: 15358)
            }
        }

        /// Another responder starting tests the port by holding it without sharing for a moment
        /// (RFC 6762 §15.1); a socket opened in that moment waits it out instead of failing, and
        /// does not take the moment's holder for a responder that stays.
        @Test func aPortHeldForAMomentIsWaitedFor() throws {
            let holder = try #require(Self.holdWithoutSharing(port: 15359))
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { _ = close(holder) }
            let socket = try MulticastSocket(family: .v4, port: 15359)
            #expect(!socket.portWasInUse)
        }

        /// An IPv4 socket bound to `port` without SO_REUSEADDR or SO_REUSEPORT; nil if the bind failed.
        private static func holdWithoutSharing(port: UInt16) -> Int32? {
            let holder = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(holder)
                return nil
            }
            return holder
        }

        @Test func descriptorsAreClosedExactlyOnce() throws {
            let b = try Lab.interface("trb0")
            let before = try openFileDescriptorCount()
            for index in 0..<100 {
                let socket = try MulticastSocket(family: index % 2 == 0 ? .v4 : .v6)
                try socket.join(b.id)
                if index % 3 == 0 {
                    socket.close()
                    socket.close()
                    #expect(socket.fileDescriptor == -1)
                    #expect(
                        throws: TransportError.closed(
                            operation: "receive on the \(socket.family == .v4 ? "IPv4" : "IPv6") mDNS socket")
                    ) {
                        try socket.receiveWaiting()
                    }
                }
            }
            for _ in 0..<10 { _ = try NetlinkMonitor() }
            #expect(try openFileDescriptorCount() == before)
        }
    }
}
