#if canImport(Glibc)
import Glibc
#endif
import CiaoEngine
import CiaoTransport
import CiaoWire

/// The runtime's thread: one poll(2) over the mDNS sockets, the netlink monitor and a wake-up
/// descriptor, sleeping until the driver's next deadline. It runs the ``DiscoveryDriver``, which
/// decides everything, over the sockets: commands from the API, received datagrams, interface
/// changes and timers go in, in order; datagrams go out and updates to their callbacks.
///
/// Idle, it wakes only for the protocol's own timers (RFC 6762 §5.2 query intervals, §10 record
/// refreshes and expiries).
final class RuntimeLoop {
    private var driver: DiscoveryDriver
    /// Where the updates of each token go, until it is cancelled.
    private var callbacks: [BackendToken: @Sendable (BackendUpdate) -> Void] = [:]
    let wakeup: Wakeup
    private let sockets: [IPFamily: MulticastSocket]
    private let monitor: NetlinkMonitor
    private let filter: InterfaceFilter
    /// Told after each interface scan whether any interface is usable.
    private let reportInterfacesPresent: (Bool) -> Void
    /// Told after each interface scan which group memberships could not be made (retried at every
    /// scan).
    private let reportMembershipFailures: ([NetworkScope.MembershipFailure]) -> Void
    private var poller = Poller()
    private let diagnostics = DiagnosticHub.shared
    private var statistics = RuntimeStatistics()
    /// What each socket had counted when last looked at, to report what it counts anew.
    private var socketCountersSeen: [IPFamily: MulticastSocketCounters] = [:]
    /// Consecutive failed polls, for the back-off.
    private var pollFailures = 0
    /// The group memberships the last interface scan could not make, to report each failure once.
    private var membershipFailures: Set<NetworkScope.MembershipFailure> = []
    /// The names of the interfaces an interface scan found gone, until their goodbyes are sent.
    private var departingNames: [InterfaceID: String] = [:]
    private let origin = ContinuousClock.now
    /// Datagrams read per socket before the loop looks at its other descriptors again.
    private static let receiveBatch = 256

    init(
        scope: NetworkScope, hostLabel: String, reportInterfacesPresent: @escaping (Bool) -> Void,
        reportMembershipFailures: @escaping ([NetworkScope.MembershipFailure]) -> Void
    ) throws(TransportError) {
        self.reportInterfacesPresent = reportInterfacesPresent
        self.reportMembershipFailures = reportMembershipFailures
        filter = scope.interfaceFilter
        var sockets: [IPFamily: MulticastSocket] = [:]
        for family in IPFamily.allCases where filter.includes(family) {
            sockets[family] = try MulticastSocket(family: family)
        }
        self.sockets = sockets
        monitor = try NetlinkMonitor()
        wakeup = try Wakeup()
        var seed: UInt64 = 0
        withUnsafeMutableBytes(of: &seed) { $0.copyBytes(from: (0..<8).map { _ in UInt8.random(in: .min ... .max) }) }
        // Unicast replies are surely ours only over a family on which no other socket holds port
        // 5353; the engine learns of responders started later by hearing them.
        let unicastReplyFamilies = Set(sockets.filter { !$0.value.portWasInUse }.keys)
        driver = DiscoveryDriver(
            engine: MDNSEngine(
                configuration: .init(
                    hostLabel: hostLabel, unicastReplyFamilies: unicastReplyFamilies,
                    knownAnswersPerFamily: scope.knownAnswersPerFamily), seed: seed))
    }

    /// The driver's time: monotonic, from the loop's creation.
    var now: Instant {
        Instant(nanoseconds: (ContinuousClock.now - origin).nanoseconds)
    }

    /// Runs forever: jobs, datagrams, interface changes and timers, in the order they come.
    func run(takeJobs: () -> [MDNSRuntime.Job]) -> Never {
        Self.nameCurrentThread("ciao-mdns")
        rescanInterfaces()
        let descriptors = [wakeup.fileDescriptor, monitor.fileDescriptor] + sockets.values.map(\.fileDescriptor)
        while true {
            driver.reportsDiagnostics = diagnostics.isOn
            driver.handle(.advance, at: now)
            sendAndDeliver()
            let timeout = driver.nextDeadline.map { max($0 - now, .zero) }
            let readable: [Int32]
            do {
                readable = try poller.wait(fileDescriptors: descriptors, timeout: timeout)
                pollFailures = 0
            } catch {
                backOff(after: error)
                continue
            }
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

    /// Carries out `command` for the API; `callback` receives the updates of the token it names
    /// until a `cancel` of that token.
    func handle(_ command: DiscoveryDriver.Command, callback: (@Sendable (BackendUpdate) -> Void)? = nil) {
        switch command {
        case .publish(_, let token), .browse(_, _, _, let token), .resolve(_, let token), .browseTypes(let token),
            .lookUp(_, let token):
            callbacks[token] = callback
        case .cancel(let token):
            callbacks[token] = nil
        case .updateTXT, .reconfirm, .withdrawEverything:
            break
        }
        driver.handle(.command(command), at: now)
    }

    /// Sends what the driver has to send and passes its updates to their callbacks. Returns how
    /// many multicast datagrams went out over `family` (those the kernel accepted).
    @discardableResult
    func sendAndDeliver(countingMulticastOver family: IPFamily? = nil) -> Int {
        let diagnosed = driver.takeDiagnostics()
        report(diagnosed.filter { !$0.isAboutPublication })
        let multicastSent = sendDatagrams(countingMulticastOver: family)
        // A name won or lost is said after the announcements or probes that go with it.
        report(diagnosed.filter(\.isAboutPublication))
        for update in driver.takeUpdates() { callbacks[update.token]?(update) }
        return multicastSent
    }

    /// The counters since the loop started.
    func statisticsSnapshot() -> CiaoStatistics {
        statistics.snapshot(sockets: sockets.mapValues(\.counters))
    }

    /// After a failed poll(2), waits before the next: 10 ms, doubling up to a second while it
    /// keeps failing, so that a persistent failure neither spins nor goes unsaid.
    private func backOff(after error: TransportError) {
        pollFailures += 1
        let milliseconds = min(10 << min(pollFailures - 1, 7), 1000)
        diagnostics.emit(.error, .socket, "poll(2) failed, trying again in \(milliseconds) ms: \(error)")
        var pause = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
        nanosleep(&pause, nil)
    }

    /// Sends the datagrams the driver has ready; returns how many multicast ones went out over
    /// `family` (those the kernel accepted).
    private func sendDatagrams(countingMulticastOver family: IPFamily?) -> Int {
        var multicastSent = 0
        for datagram in driver.takeDatagrams() {
            guard let socket = sockets[datagram.family] else { continue }
            do {
                try socket.send(datagram.bytes, on: datagram.interface, to: datagram.destination)
            } catch {
                // A lost datagram: mDNS retransmits everything that matters (§8, §5.2).
                statistics.update(datagram.interface, datagram.family, name: interfaceName(datagram.interface)) {
                    $0.sendFailures += 1
                }
                let isDeparting = departingNames[datagram.interface] != nil
                diagnostics.emit(
                    isDeparting ? .info : .warning, .socket, interface: interfaceName(datagram.interface),
                    "could not send \(Self.noun(for: datagram.purpose)) to \(Self.name(of: datagram.destination))"
                        + (isDeparting ? ", the interface being down or without addresses" : "") + ": \(error)")
                continue
            }
            statistics.update(datagram.interface, datagram.family, name: interfaceName(datagram.interface)) {
                $0.packetsSent += 1
                $0.bytesSent += UInt64(datagram.bytes.count)
            }
            reportSent(datagram)
            if case .multicast = datagram.destination, datagram.family == family { multicastSent += 1 }
        }
        // The once-a-second rule counts from when the records left, not from when they were made.
        driver.noteSent(at: now)
        return multicastSent
    }

    /// Deregisters every publication and leaves every interface: goodbyes for all our records.
    func withdrawEverything() {
        driver.handle(.command(.withdrawEverything), at: now)
        sendAndDeliver()
    }

    /// The name /proc/PID/task/TID/comm shows (15 bytes at most), where the wire benchmark finds
    /// this thread: what pthread_setname_np does, which Glibc's module does not export to Swift.
    private static func nameCurrentThread(_ name: String) {
        #if canImport(Glibc)
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = write(file, name, name.utf8.count)
        close(file)
        #endif
    }

    /// Hands what waits on `socket` to the driver, datagram by datagram, sending what each calls
    /// for and delivering its updates before the next: the engine stamps a multicast with the
    /// time it handled the datagram, for the once-a-second rule (RFC 6762 §6), so the send must
    /// not wait for the rest of the batch. When answers were multicast on this socket's family
    /// and the batch was not full, reads once more at once, about as many as were sent: the
    /// kernel loops our multicast back during the send (other responders on this host must hear it),
    /// so it is already waiting, and reading it now saves a poll(2) round per answered query. A
    /// full batch goes back to poll first, so the other descriptors get their turn.
    private func receive(from socket: MulticastSocket) {
        var limit = Self.receiveBatch
        for read in 1...2 {
            let datagrams: [ReceivedDatagram]
            do {
                datagrams = try socket.receiveWaiting(limit: limit)
            } catch {
                statistics.noteReceiveFailure(over: socket.family)
                diagnostics.emit(
                    .warning, .socket, "reading the \(Self.familyName(socket.family)) socket failed: \(error)")
                datagrams = []
            }
            reportNewSocketCounts(socket)
            var multicastSent = 0
            for datagram in datagrams {
                let name = interfaceName(datagram.interface)
                statistics.update(datagram.interface, socket.family, name: name) {
                    $0.packetsReceived += 1
                    $0.bytesReceived += UInt64(datagram.bytes.count)
                }
                if let reason = driver.handle(.receive(datagram), at: now) {
                    statistics.update(datagram.interface, socket.family, name: name) {
                        switch reason {
                        case .ownMulticast: $0.ownPacketsIgnored += 1
                        case .undecodable: $0.undecodable += 1
                        case .offLink: $0.offLink += 1
                        default: $0.otherDropped += 1
                        }
                    }
                }
                multicastSent += sendAndDeliver(countingMulticastOver: socket.family)
            }
            guard read == 1, multicastSent > 0, datagrams.count < limit else { return }
            limit = multicastSent
        }
    }

    /// Brings the engine and the group memberships in line with the interfaces now present:
    /// new ones probed and announced, changed addresses announced, vanished ones withdrawn.
    private func rescanInterfaces() {
        let current: [NetworkInterface]
        do {
            current = try InterfaceScanner.current(filter: filter)
        } catch {
            diagnostics.emit(.error, .interface, "cannot list the network interfaces: \(error)")
            return
        }
        let time = now
        let currentIDs = Set(current.map(\.id))
        for gone in driver.interfaces where !currentIDs.contains(gone.id) {
            departingNames[gone.id] = gone.name
            driver.handle(.removeInterface(gone.id), at: time)
            for socket in sockets.values {
                do {
                    try socket.leave(gone.id)
                } catch {
                    diagnostics.emit(
                        .warning, .interface, interface: gone.name,
                        "could not leave the \(Self.familyName(socket.family)) mDNS group: \(error)")
                }
            }
            diagnostics.emit(.info, .interface, interface: gone.name, "gone or down: its records are withdrawn")
        }
        // In index order, so that under the kernel's limit of memberships per socket the
        // lowest-numbered interfaces hold them: an interface whose membership is given up for a
        // lower one comes later in the scan and finds no room (see MulticastSocket.joinMakingRoom).
        var failures: [NetworkScope.MembershipFailure] = []
        for interface in current {
            failures += joinGroups(on: interface)
            let previous = driver.interface(interface.id)
            if previous?.name != interface.name || Set(previous?.addresses ?? []) != Set(interface.addresses) {
                diagnostics.emit(
                    .info, .interface, interface: interface.name,
                    (previous == nil ? "in use" : "addresses changed") + ": "
                        + interface.addresses.map {
                            "\($0.address)/\($0.prefixLength)" + ($0.isDeprecated ? " (deprecated)" : "")
                        }.joined(separator: ", "))
            }
            driver.handle(.setInterface(interface), at: time)
        }
        reportInterfacesPresent(!driver.interfaces.isEmpty)
        reportMembershipFailures(failures)
        membershipFailures = Set(failures)
        sendAndDeliver()
        departingNames = [:]
    }

    /// Joins the mDNS group of each family `interface` has an address of and leaves the others;
    /// returns the memberships that could not be made, each said once while it keeps failing.
    private func joinGroups(on interface: NetworkInterface) -> [NetworkScope.MembershipFailure] {
        var failures: [NetworkScope.MembershipFailure] = []
        for family in IPFamily.allCases {
            guard let socket = sockets[family] else { continue }
            do {
                if interface.families.contains(family) {
                    let wasJoined = socket.joinedInterfaces.contains(interface.id)
                    let displaced = try socket.joinMakingRoom(interface.id)
                    if !wasJoined {
                        diagnostics.emit(
                            .info, .interface, interface: interface.name,
                            "joined the \(Self.familyName(family)) mDNS group \(family == .v4 ? "224.0.0.251" : "ff02::fb")"
                        )
                    }
                    if let displaced {
                        diagnostics.emit(
                            .warning, .interface, interface: interfaceName(displaced),
                            "gave up the \(Self.familyName(family)) mDNS group membership to \(interface.name), "
                                + "a lower-numbered interface: the kernel allows no more per socket")
                    }
                } else if socket.joinedInterfaces.contains(interface.id) {
                    try socket.leave(interface.id)
                    diagnostics.emit(
                        .info, .interface, interface: interface.name,
                        "left the \(Self.familyName(family)) mDNS group: no \(Self.familyName(family)) address")
                }
            } catch {
                let limit =
                    error.errno == ENOBUFS && family == .v4
                    ? "; Linux allows net.ipv4.igmp_max_memberships (20 by default) per socket: raise it above the number of interfaces (sysctl)"
                    : ""
                let failure = NetworkScope.MembershipFailure(
                    interface: interface.name, family: NetworkScope.AddressFamily(family), reason: "\(error)\(limit)")
                failures.append(failure)
                if !membershipFailures.contains(failure) {
                    diagnostics.emit(
                        .warning, .interface, interface: interface.name,
                        "cannot join the \(Self.familyName(family)) mDNS group, so nothing sent to it is heard: \(error)\(limit)"
                    )
                }
            }
        }
        return failures
    }

    // MARK: Diagnostics

    private static func familyName(_ family: IPFamily) -> String {
        family == .v4 ? "IPv4" : "IPv6"
    }

    /// "the IPv4 group", or the unicast address.
    private static func name(of destination: OutgoingDatagram.Destination) -> String {
        switch destination {
        case .multicast(let family): "the \(familyName(family)) group"
        case .unicast(let address): "\(address)"
        }
    }

    /// The name of interface `id`, one that went included until its goodbyes are sent, or its index.
    private func interfaceName(_ id: InterfaceID) -> String {
        departingNames[id] ?? driver.interfaceName(id)
    }

    private static func noun(for purpose: OutgoingDatagram.Purpose) -> String {
        switch purpose {
        case .probe: "a probe"
        case .announcement: "an announcement"
        case .answer: "a response"
        case .goodbye: "a goodbye"
        case .query: "a query"
        }
    }

    /// Says what went out: probes, announcements and goodbyes at `info`, the rest at `debug`.
    private func reportSent(_ datagram: OutgoingDatagram) {
        let level: CiaoDiagnostic.Level = [.query, .answer].contains(datagram.purpose) ? .debug : .info
        guard diagnostics.wants(level) else { return }
        let category: CiaoDiagnostic.Category =
            switch datagram.purpose {
            case .query: .query
            case .answer: .response
            case .probe, .announcement, .goodbye: .publication
            }
        let summary: String
        do {
            summary = MessageSummary.describe(try Message(decoding: datagram.bytes))
        } catch {
            summary = "\(datagram.bytes.count) bytes that do not decode: \(error)"
        }
        diagnostics.emit(
            level, category, interface: interfaceName(datagram.interface),
            "sent \(Self.noun(for: datagram.purpose)) to \(Self.name(of: datagram.destination)): \(summary)")
    }

    /// Says what the engine met: each message received and from whom, drops and why, conflicts;
    /// and names won, lost and renamed.
    private func report(_ engineDiagnostics: [EngineDiagnostic]) {
        for diagnostic in engineDiagnostics {
            switch diagnostic {
            case .received(let message, let source, let interface):
                let kind =
                    message.header.isResponse ? "a response" : message.authorities.isEmpty ? "a query" : "a probe"
                diagnostics.emit(
                    .debug, message.header.isResponse ? .response : .query, interface: interfaceName(interface),
                    "received \(kind) from \(source): \(MessageSummary.describe(message))")
            case .dropped(let reason, let source, let interface):
                let level: CiaoDiagnostic.Level = if case .undecodable = reason { .info } else { .debug }
                diagnostics.emit(
                    level, .packet, interface: interfaceName(interface),
                    "dropped a datagram from \(source): \(reason)")
            case .conflict(let name, let source, let interface, let whileProbing):
                diagnostics.emit(
                    .info, .publication, interface: interfaceName(interface),
                    "\(source) answers for \(name) with other data (RFC 6762 §9): "
                        + (whileProbing ? "choosing another name" : "probing for it again"))
            case .lostProbeTieBreak(let name, let source, let interface):
                diagnostics.emit(
                    .info, .publication, interface: interfaceName(interface),
                    "\(source) probes for \(name) too and wins the tie-break (RFC 6762 §8.2): probing again in a second"
                )
            case .registered(let name):
                diagnostics.emit(.info, .publication, "\(name) is ours: probed and announced (RFC 6762 §8)")
            case .renamed(let old, let new):
                diagnostics.emit(.info, .publication, "lost \(old) to a conflict: renamed \(new), probing for it")
            case .nameConflict(let name):
                diagnostics.emit(
                    .warning, .publication, "\(name) is taken and renaming is off: the service is withdrawn")
            case .hostRenamed(let old, let new):
                diagnostics.emit(.info, .publication, "host name \(old) is now \(new)")
            case .responderOnThisHost(let source, let interface):
                diagnostics.emit(
                    .info, .socket, interface: interfaceName(interface),
                    "another mDNS responder on this host (\(source)) shares port 5353, and the kernel may hand it "
                        + "our unicast replies: asking for multicast ones over \(Self.familyName(source.address.family)) "
                        + "from now on (RFC 6762 §15.1)")
            case .sharedLink(let interface, let sender):
                diagnostics.emit(
                    .info, .interface, interface: interfaceName(interface),
                    "on the same link as \(interfaceName(sender)), whose multicast came in here: what both "
                        + "publish gets no goodbye when one of them goes (RFC 6762 §14)")
            case .unsendable(let purpose, let error, let interface):
                diagnostics.emit(
                    .error, .packet, interface: interfaceName(interface),
                    "could not encode \(Self.noun(for: purpose)), not sent: \(error)")
            }
        }
    }

    /// Says what `socket` has counted since last time: datagrams the kernel dropped, and ones too
    /// long for mDNS.
    private func reportNewSocketCounts(_ socket: MulticastSocket) {
        let counted = socket.counters
        let seen = socketCountersSeen[socket.family] ?? MulticastSocketCounters(kernelDrops: 0, truncated: 0)
        guard counted.kernelDrops != seen.kernelDrops || counted.truncated != seen.truncated else { return }
        socketCountersSeen[socket.family] = counted
        let family = Self.familyName(socket.family)
        if counted.kernelDrops > seen.kernelDrops {
            diagnostics.emit(
                .warning, .socket,
                "the kernel dropped \(counted.kernelDrops &- seen.kernelDrops) \(family) datagrams: the receive queue was full"
            )
        }
        if counted.truncated > seen.truncated {
            diagnostics.emit(
                .warning, .socket,
                "dropped \(counted.truncated - seen.truncated) \(family) datagrams longer than mDNS allows (9000 bytes)"
            )
        }
    }
}

extension MulticastSocket {
    var counters: MulticastSocketCounters {
        MulticastSocketCounters(kernelDrops: droppedDatagrams, truncated: truncatedDatagrams)
    }
}
