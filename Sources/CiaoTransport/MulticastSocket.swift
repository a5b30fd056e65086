#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim
import CiaoNetwork
import CiaoWire

/// A non-blocking UDP socket for one address family, bound to the wildcard address and the mDNS
/// port and joined to the mDNS group on chosen interfaces (RFC 6762 §3, §5, §11, §20).
///
/// One socket per family serves every interface: it joins the group per interface index and
/// attributes each datagram by the receiving interface the kernel reports (IP_PKTINFO /
/// IPV6_RECVPKTINFO), because a socket joined on one interface hears datagrams that arrive on all.
/// Sends pick the interface with a per-datagram PKTINFO control message rather than
/// IP_MULTICAST_IF, so one socket can send on any interface without changing socket state.
///
/// The socket is bound with SO_REUSEADDR and SO_REUSEPORT so it runs beside avahi-daemon or another
/// responder on the same host; multicast is delivered to every such socket, but the kernel hands
/// each unicast datagram to only one of them: the one bound last, or any of one user's
/// (``portWasInUse`` tells whether another held the port when this one was bound).
/// Multicast loopback stays on so those other responders hear us; the engine recognises its own multicast.
///
/// IP_MULTICAST_ALL stays on (the Linux default), so the socket also hears the mDNS group on
/// interfaces that only some other socket on the host joined: the runtime must ignore datagrams
/// from interfaces it does not manage. Turning it off looks cleaner but loses datagrams on Linux 6.x:
/// when exactly one socket of a SO_REUSEPORT group passes the membership filter, UDP early demux
/// hands the datagram to that socket's reuseport group, whose hash may pick a member that never
/// joined (seen on 6.18 with a second, unjoined socket on 5353).
///
/// A final class rather than a `~Copyable` struct: the runtime keeps its sockets in collections
/// keyed by family, which need copyable elements, and a class gives one identity that closes its
/// descriptor exactly once. It is not `Sendable`: it keeps counters and reusable buffers, and
/// belongs to the one thread (or serial executor) that polls it.
public final class MulticastSocket {
    /// The largest datagram accepted. RFC 6762 §17: mDNS packets, headers included, are at most
    /// 9000 bytes; anything larger is truncated by the kernel, counted and dropped.
    public static let maximumDatagramSize = 9000

    /// The receive buffer size asked for (SO_RCVBUFFORCE, else SO_RCVBUF up to net.core.rmem_max).
    public static let receiveBufferSize: Int32 = 4 << 20

    public let family: IPFamily
    public let port: UInt16
    /// The socket's descriptor, for poll(2); -1 once closed.
    public private(set) var fileDescriptor: Int32
    /// The interfaces whose group membership this socket holds.
    public private(set) var joinedInterfaces: Set<InterfaceID> = []
    /// Datagrams the kernel dropped because the receive queue was full, as last reported through
    /// SO_RXQ_OVFL (the kernel reports the running total with the next datagram that gets through).
    public private(set) var droppedDatagrams: UInt64 = 0
    /// Datagrams larger than `maximumDatagramSize` that were read truncated and dropped.
    public private(set) var truncatedDatagrams: UInt64 = 0
    /// Sends that failed with a transient error (see `TransportError.isTransient`).
    public private(set) var sendFailures: UInt64 = 0
    /// True when another socket held the port as this one opened: another responder runs on this
    /// host, and a unicast reply sent to the port may reach it instead of us (RFC 6762 §15.1).
    public let portWasInUse: Bool

    /// Datagrams one recvmmsg(2) call reads at most.
    public static let receiveSlots = 16

    private let slots: ReceiveSlots

    /// Opens the socket, sets its options and binds it to the wildcard address and `port`.
    public init(family: IPFamily, port: UInt16 = mdnsPort) throws(TransportError) {
        self.family = family
        self.port = port
        (fileDescriptor, portWasInUse) = try Self.open(family: family, port: port)
        // Exactly the limit: a larger datagram comes back cut short, with MSG_TRUNC set.
        slots = ReceiveSlots(count: Self.receiveSlots, datagramSize: Self.maximumDatagramSize, controlSize: 256)
    }

    deinit {
        close()
    }

    /// Closes the descriptor; later calls do nothing. Membership ends with it.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        SystemCall.close(fileDescriptor)
        fileDescriptor = -1
        joinedInterfaces.removeAll()
    }

    // MARK: Opening

    /// The new socket's descriptor, and whether another socket held the port as it was bound.
    private static func open(family: IPFamily, port: UInt16) throws(TransportError) -> (Int32, portWasInUse: Bool) {
        let domain = family == .v4 ? AF_INET : AF_INET6
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(domain, type, Int32(IPPROTO_UDP))
        guard fd >= 0 else { throw .lastError("open an \(family.name) UDP socket") }
        do throws(TransportError) {
            try configure(fd, family: family)
            return (fd, try bindWildcard(fd, family: family, port: port))
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    /// Binds `fd` to the wildcard address and `port`; returns whether another socket held the
    /// port just before (``isInUse``). EADDRINUSE is tried again for up to ``bindRetryWindow``:
    /// another responder's ``isInUse`` test (Ciao's, or avahi's likewise) holds the port without
    /// SO_REUSEADDR for a moment as it starts, and only a holder that stays is an error.
    private static func bindWildcard(_ fd: Int32, family: IPFamily, port: UInt16) throws(TransportError) -> Bool {
        let address = POSIXSocketAddress.wildcard(family, port: port)
        let giveUp = ContinuousClock.now + bindRetryWindow
        while true {
            let held = isInUse(port, family: family)
            if address.withSockaddr({ bind(fd, $0, $1) }) == 0 { return held }
            guard errno == EADDRINUSE, ContinuousClock.now < giveUp else {
                throw TransportError.lastError("bind an \(family.name) socket to UDP port \(port)")
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// How long a bind keeps trying while the port is held without sharing.
    static let bindRetryWindow: Duration = .milliseconds(100)

    /// Whether a socket without SO_REUSEADDR fails to bind the port, as it does while any other
    /// socket holds it (the test RFC 6762 §15.1 suggests). A socket that cannot even be opened
    /// tells nothing: the port counts as free.
    private static func isInUse(_ port: UInt16, family: IPFamily) -> Bool {
        let fd = socket(
            family == .v4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { SystemCall.close(fd) }
        if family == .v6 {
            _ = SystemCall.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, Int32(1))
        }
        let result = POSIXSocketAddress.wildcard(family, port: port).withSockaddr { bind(fd, $0, $1) }
        return result != 0 && errno == EADDRINUSE
    }

    private static func configure(_ fd: Int32, family: IPFamily) throws(TransportError) {
        let on: Int32 = 1, hops: Int32 = 255
        let ip = Int32(IPPROTO_IP), ipv6 = Int32(IPPROTO_IPV6)
        try SystemCall.setOption(fd, SOL_SOCKET, SO_REUSEADDR, on, operation: "set SO_REUSEADDR")
        try SystemCall.setOption(fd, SOL_SOCKET, SO_REUSEPORT, on, operation: "set SO_REUSEPORT")
        switch family {
        case .v4:
            // Receiving interface and destination address.
            try SystemCall.setOption(fd, ip, IP_PKTINFO, on, operation: "set IP_PKTINFO")
            // RFC 6762 §11: all mDNS packets go out with TTL 255.
            try SystemCall.setOption(fd, ip, IP_TTL, hops, operation: "set IP_TTL")
            try SystemCall.setOption(fd, ip, IP_MULTICAST_TTL, hops, operation: "set IP_MULTICAST_TTL")
            try SystemCall.setOption(fd, ip, IP_MULTICAST_LOOP, on, operation: "set IP_MULTICAST_LOOP")
        case .v6:
            try SystemCall.setOption(fd, ipv6, IPV6_V6ONLY, on, operation: "set IPV6_V6ONLY")
            try SystemCall.setOption(fd, ipv6, IPV6_RECVPKTINFO, on, operation: "set IPV6_RECVPKTINFO")
            try SystemCall.setOption(fd, ipv6, IPV6_UNICAST_HOPS, hops, operation: "set IPV6_UNICAST_HOPS")
            try SystemCall.setOption(fd, ipv6, IPV6_MULTICAST_HOPS, hops, operation: "set IPV6_MULTICAST_HOPS")
            try SystemCall.setOption(fd, ipv6, IPV6_MULTICAST_LOOP, on, operation: "set IPV6_MULTICAST_LOOP")
        }
        // A burst of answers after a query can be large; SO_RCVBUFFORCE needs CAP_NET_ADMIN.
        if SystemCall.setOption(fd, SOL_SOCKET, SO_RCVBUFFORCE, receiveBufferSize) != 0 {
            _ = SystemCall.setOption(fd, SOL_SOCKET, SO_RCVBUF, receiveBufferSize)
        }
        try SystemCall.setOption(fd, SOL_SOCKET, SO_RXQ_OVFL, on, operation: "set SO_RXQ_OVFL")
    }

    // MARK: Membership

    /// Joins the mDNS group (224.0.0.251 or ff02::fb) on `interface`. Joining twice is not an error.
    ///
    /// Linux caps IPv4 memberships per socket at net.ipv4.igmp_max_memberships (20 by default);
    /// beyond that this throws ENOBUFS.
    public func join(_ interface: InterfaceID) throws(TransportError) {
        let operation = "join \(IPAddress.mdnsGroup(family)) on \(SystemCall.interfaceDescription(interface))"
        let error = try setMembership(interface, join: true, operation: operation)
        guard error == 0 || error == EADDRINUSE else { throw .system(operation: operation, errno: error) }
        joinedInterfaces.insert(interface)
    }

    /// Joins the group on `interface` as ``join(_:)`` does, but where the kernel's limit of
    /// memberships per socket is reached (ENOBUFS), gives up the membership of the joined interface
    /// with the highest index above `interface`'s and joins in its place. The memberships thus go to
    /// the lowest-numbered interfaces, whatever order interfaces come and go in (a flap keeps an
    /// interface's index). Returns the interface that lost its membership, if one did; throws when
    /// no membership can be made room for.
    public func joinMakingRoom(_ interface: InterfaceID) throws(TransportError) -> InterfaceID? {
        do {
            try join(interface)
            return nil
        } catch {
            guard error.errno == ENOBUFS, let displaced = joinedInterfaces.filter({ $0 > interface }).max() else {
                throw error
            }
            try leave(displaced)
            try join(interface)
            return displaced
        }
    }

    /// Leaves the mDNS group on `interface`. An interface that is gone (ENODEV) or a membership the
    /// kernel already dropped with it (EADDRNOTAVAIL) is not an error.
    public func leave(_ interface: InterfaceID) throws(TransportError) {
        let operation = "leave \(IPAddress.mdnsGroup(family)) on \(SystemCall.interfaceDescription(interface))"
        let error = try setMembership(interface, join: false, operation: operation)
        joinedInterfaces.remove(interface)
        guard error == 0 || error == ENODEV || error == EADDRNOTAVAIL || error == ENOENT else {
            throw .system(operation: operation, errno: error)
        }
    }

    /// IP_ADD/DROP_MEMBERSHIP with an ip_mreqn, or IPV6_JOIN/LEAVE_GROUP with an ipv6_mreq, both by
    /// interface index. Returns the errno, 0 on success.
    private func setMembership(_ interface: InterfaceID, join: Bool, operation: String) throws(TransportError) -> Int32
    {
        guard fileDescriptor >= 0 else { throw .closed(operation: operation) }
        switch family {
        case .v4:
            var request = ip_mreqn()
            request.imr_multiaddr = IPv4Address.mdnsGroup.inAddr
            request.imr_ifindex = Int32(bitPattern: interface.index)
            let name = join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP
            return SystemCall.setOption(fileDescriptor, Int32(IPPROTO_IP), name, request)
        case .v6:
            var request = ipv6_mreq()
            request.ipv6mr_multiaddr = IPv6Address.mdnsGroup.in6Addr
            request.ipv6mr_interface = interface.index
            let name = join ? IPV6_JOIN_GROUP : IPV6_LEAVE_GROUP
            return SystemCall.setOption(fileDescriptor, Int32(IPPROTO_IPV6), name, request)
        }
    }

    // MARK: Sending

    /// Sends one datagram out of `interface`.
    ///
    /// Multicast goes to 224.0.0.251:5353 or [ff02::fb]:5353 (RFC 6762 §5); unicast to the given
    /// address, with the interface as the IPv6 scope when it is link-local (RFC 4007 §6). The
    /// interface travels as an IP_PKTINFO / IPV6_PKTINFO control message, which takes precedence
    /// over IP_MULTICAST_IF and the routing table; the kernel picks the source address.
    ///
    /// Throws `TransportError.system` when the kernel refuses; when `isTransient`, the datagram is
    /// lost, `sendFailures` counts it and the caller should carry on.
    public func send(
        _ bytes: [UInt8], on interface: InterfaceID, to destination: OutgoingDatagram.Destination
    ) throws(TransportError) {
        let target: SocketAddress
        let scopeID: UInt32
        switch destination {
        case .multicast(let family):
            target = SocketAddress(.mdnsGroup(family), port: mdnsPort)
            scopeID = interface.index
        case .unicast(let address):
            target = address
            if case .v6(let v6) = address.address, v6.isLinkLocal { scopeID = interface.index } else { scopeID = 0 }
        }
        // Built only on failure: naming the interface costs a system call.
        func operation() -> String {
            "send \(bytes.count) bytes to \(target) on \(SystemCall.interfaceDescription(interface))"
        }
        guard target.address.family == family else {
            throw .familyMismatch(socket: family, destination: target.address.family)
        }
        guard fileDescriptor >= 0 else { throw .closed(operation: operation()) }

        let address = POSIXSocketAddress(target.address, port: target.port, scopeID: scopeID)
        let result = bytes.withUnsafeBytes { payload in
            address.withSockaddr { name, nameLength in
                withPacketInfo(interface) { control, controlLength in
                    var vector = iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count)
                    return withUnsafeMutablePointer(to: &vector) { vector in
                        var message = msghdr()
                        message.msg_name = UnsafeMutableRawPointer(mutating: name)
                        message.msg_namelen = nameLength
                        message.msg_iov = vector
                        message.msg_iovlen = 1
                        message.msg_control = control
                        message.msg_controllen = controlLength
                        return SystemCall.retryingInterrupts { sendmsg(fileDescriptor, &message, 0) }
                    }
                }
            }
        }
        guard result >= 0 else {
            let error = TransportError.lastError(operation())
            if error.isTransient { sendFailures += 1 }
            throw error
        }
    }

    /// Calls `body` with a control buffer holding one IP_PKTINFO or IPV6_PKTINFO message that names
    /// `interface` and leaves the source address to the kernel (RFC 3542 §6.1).
    private func withPacketInfo<Result>(
        _ interface: InterfaceID, _ body: (UnsafeMutableRawPointer, Int) -> Result
    ) -> Result {
        let dataLength = family == .v4 ? MemoryLayout<in_pktinfo>.size : MemoryLayout<ciao_in6_pktinfo>.size
        let space = ciao_cmsg_space(dataLength)
        return withUnsafeTemporaryAllocation(byteCount: space, alignment: MemoryLayout<cmsghdr>.alignment) { buffer in
            let control = buffer.baseAddress!
            control.initializeMemory(as: UInt8.self, repeating: 0, count: space)
            let header = control.assumingMemoryBound(to: cmsghdr.self)
            header.pointee.cmsg_len = ciao_cmsg_len(dataLength)
            let data = UnsafeMutableRawPointer(ciao_cmsg_data(header)!)
            switch family {
            case .v4:
                header.pointee.cmsg_level = Int32(IPPROTO_IP)
                header.pointee.cmsg_type = IP_PKTINFO
                var info = in_pktinfo()
                info.ipi_ifindex = Int32(bitPattern: interface.index)
                data.storeBytes(of: info, as: in_pktinfo.self)
            case .v6:
                header.pointee.cmsg_level = Int32(IPPROTO_IPV6)
                header.pointee.cmsg_type = IPV6_PKTINFO
                var info = ciao_in6_pktinfo()
                info.ipi6_ifindex = interface.index
                data.storeBytes(of: info, as: ciao_in6_pktinfo.self)
            }
            return body(control, space)
        }
    }

    // MARK: Receiving

    /// Reads the datagrams waiting on the socket with as few recvmmsg(2) calls as it takes: one when
    /// fewer than `receiveSlots` are waiting, another while the kernel fills every slot, until at
    /// least `limit` are read (at most `limit + receiveSlots - 1`).
    ///
    /// Datagrams larger than `maximumDatagramSize` (MSG_TRUNC) and datagrams the kernel reported
    /// without a receiving interface are read and skipped, so an empty result means none was
    /// waiting (EAGAIN) or every one read was skipped; poll(2) tells whether more wait.
    public func receiveWaiting(limit: Int = 256) throws(TransportError) -> [ReceivedDatagram] {
        // Described only for an error: every read would otherwise build the string.
        func operation() -> String { "receive on the \(family.name) mDNS socket" }
        var datagrams: [ReceivedDatagram] = []
        var read = 0
        while read < limit {
            guard fileDescriptor >= 0 else { throw .closed(operation: operation()) }
            slots.reset()
            let count = SystemCall.retryingInterrupts {
                ciao_recvmmsg(fileDescriptor, slots.messages, UInt32(slots.count), Int32(MSG_DONTWAIT))
            }
            if count < 0 {
                let errno = Glibc.errno
                switch errno {
                case EAGAIN, EWOULDBLOCK: return datagrams
                // An ICMP error queued on the socket by an earlier send; it says nothing about reception.
                case _ where TransportError.transientErrors.contains(errno): continue
                // What was read is delivered; a lasting error shows again on the next call.
                default:
                    if datagrams.isEmpty {
                        throw .system(operation: operation(), errno: errno)
                    } else {
                        return datagrams
                    }
                }
            }
            for slot in 0..<Int(count) {
                if let datagram = datagram(in: slot) { datagrams.append(datagram) }
            }
            read += Int(count)
            if count < slots.count { return datagrams }
        }
        return datagrams
    }

    /// The datagram the last read put in `slot`, unless it was truncated or came without a
    /// receiving interface.
    private func datagram(in slot: Int) -> ReceivedDatagram? {
        let message = slots.messages + slot
        let header = readControlMessages(&message.pointee.msg_hdr)
        if message.pointee.msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 {
            truncatedDatagrams += 1
            return nil
        }
        guard let interface = header.interface, let destination = header.destination,
            let source = SocketAddress(slots.source(slot))
        else { return nil }
        return ReceivedDatagram(
            bytes: [UInt8](slots.payload(slot)), source: source, interface: interface,
            isMulticast: destination.isMulticast)
    }

    /// What the control messages of one received datagram said.
    private struct ReceivedHeader {
        var interface: InterfaceID?
        var destination: IPAddress?
    }

    /// Walks the control messages (CMSG_FIRSTHDR / CMSG_NXTHDR) for PKTINFO and the SO_RXQ_OVFL
    /// drop counter.
    private func readControlMessages(_ message: inout msghdr) -> ReceivedHeader {
        var result = ReceivedHeader()
        var next = ciao_cmsg_firsthdr(&message)
        while let header = next {
            let data = UnsafeRawPointer(ciao_cmsg_data(header)!)
            let level = header.pointee.cmsg_level, type = header.pointee.cmsg_type
            let dataLength = Int(header.pointee.cmsg_len) - ciao_cmsg_len(0)
            switch (level, type) {
            case (Int32(IPPROTO_IP), IP_PKTINFO) where dataLength >= MemoryLayout<in_pktinfo>.size:
                let info = data.loadUnaligned(as: in_pktinfo.self)
                result.interface = InterfaceID(UInt32(bitPattern: info.ipi_ifindex))
                result.destination = .v4(IPv4Address(info.ipi_addr))
            case (Int32(IPPROTO_IPV6), IPV6_PKTINFO) where dataLength >= MemoryLayout<ciao_in6_pktinfo>.size:
                let info = data.loadUnaligned(as: ciao_in6_pktinfo.self)
                result.interface = InterfaceID(info.ipi6_ifindex)
                result.destination = .v6(IPv6Address(info.ipi6_addr))
            case (SOL_SOCKET, SO_RXQ_OVFL) where dataLength >= MemoryLayout<UInt32>.size:
                droppedDatagrams = UInt64(data.loadUnaligned(as: UInt32.self))
            default:
                break
            }
            next = ciao_cmsg_nxthdr(&message, header)
        }
        return result
    }
}

@available(*, unavailable, message: "a MulticastSocket belongs to the one thread that polls it")
extension MulticastSocket: Sendable {}
