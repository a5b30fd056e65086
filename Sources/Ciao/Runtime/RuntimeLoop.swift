#if canImport(Glibc)
import Glibc
#endif
import CiaoEngine
import CiaoTransport

/// The runtime's thread: one poll(2) over the mDNS sockets, the netlink monitor and a wake-up
/// descriptor, sleeping until the engine's next deadline. It is the engine's serial executor:
/// jobs from the API, received datagrams, interface changes and timers all run here, in order.
///
/// Idle, it wakes only for the protocol's own timers (RFC 6762 §5.2 query intervals, §10 record
/// refreshes and expiries).
final class RuntimeLoop {
    var engine: MDNSEngine
    var directory = ServiceDirectory()
    let wakeup: Wakeup
    private let sockets: [IPFamily: MulticastSocket]
    private let monitor: NetlinkMonitor
    private let selection: InterfaceSelection
    private var interfaces: [InterfaceID: NetworkInterface] = [:]
    /// Told after each interface scan whether any interface is usable.
    private let reportInterfacesPresent: (Bool) -> Void
    /// Told after each interface scan which group memberships could not be made (retried at every
    /// scan).
    private let reportMembershipFailures: ([NetworkScope.MembershipFailure]) -> Void
    private var sentDatagrams = SentDatagramLog()
    private var poller = Poller()
    private let origin = ContinuousClock.now
    /// Datagrams read per socket before the loop looks at its other descriptors again.
    private static let receiveBatch = 256

    init(
        scope: NetworkScope, hostName: String, reportInterfacesPresent: @escaping (Bool) -> Void,
        reportMembershipFailures: @escaping ([NetworkScope.MembershipFailure]) -> Void
    ) throws(TransportError) {
        self.reportInterfacesPresent = reportInterfacesPresent
        self.reportMembershipFailures = reportMembershipFailures
        selection = scope.interfaceSelection
        var sockets: [IPFamily: MulticastSocket] = [:]
        for family in IPFamily.allCases where selection.includes(family) {
            sockets[family] = try MulticastSocket(family: family)
        }
        self.sockets = sockets
        monitor = try NetlinkMonitor()
        wakeup = try Wakeup()
        var seed: UInt64 = 0
        withUnsafeMutableBytes(of: &seed) { $0.copyBytes(from: (0..<8).map { _ in UInt8.random(in: .min ... .max) }) }
        // Unicast replies reach us only over a family on which no other stack shares port 5353.
        let unicastReplyFamilies = Set(sockets.filter { !$0.value.portWasInUse }.keys)
        engine = MDNSEngine(configuration: .init(hostName: hostName, unicastReplyFamilies: unicastReplyFamilies), seed: seed)
    }

    /// The engine's time: monotonic, from the loop's creation.
    var now: Instant {
        Instant(nanoseconds: (ContinuousClock.now - origin).nanoseconds)
    }

    /// Runs forever: jobs, datagrams, interface changes and timers, in the order they come.
    func run(takeJobs: () -> [MDNSRuntime.Job]) -> Never {
        Self.nameCurrentThread("ciao-mdns")
        rescanInterfaces()
        let descriptors = [wakeup.fileDescriptor, monitor.fileDescriptor] + sockets.values.map(\.fileDescriptor)
        while true {
            engine.advance(to: now)
            flush()
            let timeout = engine.nextDeadline.map { max($0 - now, .zero) }
            let readable = (try? poller.wait(fileDescriptors: descriptors, timeout: timeout)) ?? []
            if readable.contains(wakeup.fileDescriptor) {
                wakeup.drain()
                for job in takeJobs() { job(self) }
            }
            if readable.contains(monitor.fileDescriptor), monitor.drainChanges() {
                rescanInterfaces()
            }
            for socket in sockets.values where readable.contains(socket.fileDescriptor) {
                receive(from: socket)
            }
        }
    }

    /// Sends what the engine has to send and delivers what it has to report, until neither is
    /// left: a delivery can start queries (a resolution's address queries) with answers cached.
    /// Returns how many multicast datagrams went out over `family` (those the kernel accepted).
    @discardableResult
    func flush(countingMulticastOver family: IPFamily? = nil) -> Int {
        var multicastSent = 0
        while true {
            multicastSent += sendDatagrams(countingMulticastOver: family)
            let events = engine.takeEvents()
            guard !events.isEmpty else { return multicastSent }
            for delivery in directory.handle(events, engine: &engine, at: now) { delivery() }
        }
    }

    /// Sends the datagrams the engine has ready; returns how many multicast ones went out over
    /// `family` (those the kernel accepted).
    private func sendDatagrams(countingMulticastOver family: IPFamily?) -> Int {
        var multicastSent = 0
        for datagram in engine.takeDatagrams() {
            guard let socket = sockets[datagram.family] else { continue }
            sentDatagrams.record(datagram.bytes, at: now)
            // A failed send is a lost datagram; mDNS retransmits everything that matters (§8, §5.2).
            guard (try? socket.send(datagram.bytes, on: datagram.interface, to: datagram.destination)) != nil else {
                continue
            }
            if case .multicast = datagram.destination, datagram.family == family { multicastSent += 1 }
        }
        return multicastSent
    }

    /// Deregisters every publication and leaves every interface: goodbyes for all our records.
    func withdrawEverything() {
        directory.cancelAll(engine: &engine, at: now)
        for id in interfaces.keys.sorted() { engine.removeInterface(id, at: now) }
        interfaces = [:]
        flush()
    }

    /// The name /proc/PID/task/TID/comm shows (15 bytes at most), where the peer benchmark finds
    /// this thread: what pthread_setname_np does, which Glibc's module does not export to Swift.
    private static func nameCurrentThread(_ name: String) {
        #if canImport(Glibc)
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = write(file, name, name.utf8.count)
        close(file)
        #endif
    }

    /// Handles what waits on `socket` and sends the answers. When answers were multicast on this
    /// socket's family and the batch was not full, reads once more at once, about as many as were
    /// sent: the kernel loops our multicast back during the send (other stacks on this host must
    /// hear it), so it is already waiting, and reading it now saves a poll(2) round per answered
    /// query. A full batch goes back to poll first, so the other descriptors get their turn.
    private func receive(from socket: MulticastSocket) {
        let packets = try? socket.receiveWaiting(limit: Self.receiveBatch)
        let multicastSent = handle(packets, countingMulticastOver: socket.family)
        if multicastSent > 0, (packets?.count ?? 0) < Self.receiveBatch {
            handle(try? socket.receiveWaiting(limit: multicastSent), countingMulticastOver: socket.family)
        }
    }

    /// Hands the datagrams to the engine one by one, sending what each calls for before the next:
    /// the engine stamps a multicast with the time it handled the datagram, for the once-a-second
    /// rule (RFC 6762 §6), so the send must not wait for the rest of the batch, however long. The
    /// batch's events are delivered after it. Returns the multicast datagrams sent over `family`.
    @discardableResult
    private func handle(_ packets: [ReceivedPacket]?, countingMulticastOver family: IPFamily) -> Int {
        var multicastSent = 0
        for packet in packets ?? [] {
            let datagram = packet.datagram
            let time = now
            if isOwn(datagram, at: time) { continue }
            engine.receive(datagram, at: time)
            multicastSent += sendDatagrams(countingMulticastOver: family)
        }
        return multicastSent + flush(countingMulticastOver: family)
    }

    /// Our own multicast, looped back by the kernel so that other stacks on this host hear it:
    /// from one of our addresses, port 5353, with bytes we sent moments ago.
    private func isOwn(_ datagram: ReceivedDatagram, at time: Instant) -> Bool {
        guard datagram.source.port == mdnsPort,
            interfaces.values.contains(where: { $0.owns(datagram.source.address) })
        else { return false }
        return sentDatagrams.contains(datagram.bytes, at: time)
    }

    /// Brings the engine and the group memberships in line with the interfaces now present:
    /// new ones probed and announced, changed addresses announced, vanished ones withdrawn.
    private func rescanInterfaces() {
        guard let current = try? InterfaceScanner.current(selection: selection) else { return }
        let time = now
        let currentIDs = Set(current.map(\.id))
        for id in interfaces.keys.sorted() where !currentIDs.contains(id) {
            engine.removeInterface(id, at: time)
            for socket in sockets.values { try? socket.leave(id) }
            interfaces[id] = nil
            directory.interfaceNames[id] = nil
        }
        // In index order, so that under the kernel's limit of memberships per socket the
        // lowest-numbered interfaces hold them: an interface whose membership is given up for a
        // lower one comes later in the scan and finds no room (see MulticastSocket.joinMakingRoom).
        var failures: [NetworkScope.MembershipFailure] = []
        for interface in current {
            for family in IPFamily.allCases {
                guard let socket = sockets[family] else { continue }
                do {
                    if interface.families.contains(family) {
                        _ = try socket.joinMakingRoom(interface.id)
                    } else if socket.joinedInterfaces.contains(interface.id) {
                        try socket.leave(interface.id)
                    }
                } catch {
                    let limit = error.errno == ENOBUFS && family == .v4
                        ? "; Linux allows net.ipv4.igmp_max_memberships (20 by default) per socket: raise it above the number of interfaces (sysctl)"
                        : ""
                    failures.append(NetworkScope.MembershipFailure(
                        interface: interface.name, family: family == .v4 ? .ipv4 : .ipv6, reason: "\(error)\(limit)"))
                }
            }
            interfaces[interface.id] = interface
            directory.interfaceNames[interface.id] = interface.name
            engine.setInterface(interface, at: time)
        }
        reportInterfacesPresent(!interfaces.isEmpty)
        reportMembershipFailures(failures)
        flush()
    }
}
