#if canImport(Glibc)
import Glibc
#endif
import CiaoEngine
import CiaoTransport
import CiaoUnicastDNS
import CiaoWire
import Synchronization

/// Runs a ``UnicastDNSClient`` on a thread of its own over real sockets: a UDP socket per attempt,
/// TCP when a reply was truncated (RFC 7766), poll(2) for replies and deadlines. Questions come
/// in from any thread; each answer or failure resumes its caller.
final class UnicastDNSLoop: Sendable {
    private let jobs = Mutex<[@Sendable (inout LoopState) -> Void]>([])
    private let wakeup: Wakeup
    private let nextHandle = Atomic<UInt64>(0)

    /// Starts the loop's thread, asking the servers of `configuration`.
    init(configuration: ResolverConfiguration) throws(CiaoError) {
        do {
            wakeup = try Wakeup()
        } catch {
            throw .network("cannot start unicast DNS: \(error)")
        }
        let state = LoopTransfer(
            state: LoopState(
                client: UnicastDNSClient(configuration: configuration, random: SystemRandomNumberGenerator())))
        try DetachedThread.start("unicast DNS") { [self] in run(state.state) }
    }

    /// The answer to `type` at `name`: from the cache as `cacheUse` allows, or from the servers.
    func query(_ name: DomainName, _ type: RecordType, cacheUse: CacheUse = .any) async -> Result<
        DNSAnswer, UnicastDNSError
    > {
        await withCheckedContinuation { continuation in
            submit { state in
                let id = state.client.query(name, type: type, cacheUse: cacheUse, at: state.now)
                state.waiting[id] = continuation
            }
        }
    }

    /// Starts `registration`'s updates to `server` (a socket of its own); `onEvent` gets what
    /// becomes of it, on the loop's thread, until it is deregistered or has failed.
    func register(
        _ registration: WideAreaRegistration, server: DNSServer,
        onEvent: @escaping @Sendable (WideAreaRegistration.Event) -> Void
    ) -> RegistrationHandle {
        let handle = RegistrationHandle(rawValue: nextHandle.add(1, ordering: .relaxed).newValue)
        submit { state in state.start(registration, handle: handle, server: server, onEvent: onEvent) }
        return handle
    }

    /// After ``WideAreaRegistration/Event/nameInUse(_:)``: tries `name`.
    func rename(_ handle: RegistrationHandle, to name: String) {
        submit { state in state.update(handle) { $0.rename(to: name, at: $1) } }
    }

    /// Replaces the registration's TXT record.
    func updateTXT(_ handle: RegistrationHandle, _ txt: TXTData) {
        submit { state in state.update(handle) { $0.updateTXT(txt, at: $1) } }
    }

    /// Deletes the registration's records; ``WideAreaRegistration/Event/deregistered`` follows.
    func deregister(_ handle: RegistrationHandle) {
        submit { state in state.update(handle) { $0.stop(at: $1) } }
    }

    private func submit(_ job: @escaping @Sendable (inout LoopState) -> Void) {
        jobs.withLock { $0.append(job) }
        wakeup.signal()
    }

    private func run(_ initial: LoopState) -> Never {
        var state = initial
        var poller = Poller()
        while true {
            for job in jobs.withLock({ jobs in
                defer { jobs = [] }
                return jobs
            }) { job(&state) }
            state.client.advance(to: state.now)
            state.carryOut()
            state.advanceRegistrations()
            let timeout = [state.client.nextDeadline, state.registrationDeadline].compactMap { $0 }.min()
                .map { max($0 - state.now, .zero) }
            let readable: [Int32]
            do {
                readable = try poller.wait(
                    fileDescriptors: [wakeup.fileDescriptor] + state.descriptors, writable: state.writableDescriptors,
                    timeout: timeout)
            } catch {
                // poll(2) fails only for a descriptor that is not open: a bug here, not the network
                fatalError("unicast DNS loop: \(error)")
            }
            if readable.contains(wakeup.fileDescriptor) { wakeup.drain() }
            state.serve(Set(readable))
        }
    }
}

/// Names a registration the loop runs.
struct RegistrationHandle: Hashable, Sendable {
    var rawValue: UInt64
}

/// Hands the loop's state to its thread, its only user from then on.
private struct LoopTransfer: @unchecked Sendable {
    let state: LoopState
}

/// What the loop's thread owns: the client, the open sockets by attempt, and who waits for what.
struct LoopState {
    var client: UnicastDNSClient<SystemRandomNumberGenerator>
    var waiting:
        [UnicastDNSClient<SystemRandomNumberGenerator>.QueryID: CheckedContinuation<
            Result<DNSAnswer, UnicastDNSError>, Never
        >] = [:]
    private var datagramSockets: [Attempt: (socket: DNSDatagramSocket, server: DNSServer)] = [:]
    private var streamSockets: [Attempt: (socket: DNSStreamSocket, server: DNSServer)] = [:]
    private var registrations: [RegistrationHandle: RegistrationSlot] = [:]

    /// One registration, its socket to the update server, and who hears of it.
    private struct RegistrationSlot {
        var registration: WideAreaRegistration
        let socket: DNSDatagramSocket
        let onEvent: @Sendable (WideAreaRegistration.Event) -> Void
    }
    private let origin = ContinuousClock.now

    init(client: UnicastDNSClient<SystemRandomNumberGenerator>) {
        self.client = client
    }

    /// The client's time: monotonic, from the loop's start.
    var now: Duration { ContinuousClock.now - origin }

    var descriptors: [Int32] {
        datagramSockets.values.map(\.socket.fileDescriptor) + streamSockets.values.map(\.socket.fileDescriptor)
            + registrations.values.map(\.socket.fileDescriptor)
    }

    /// The registrations' earliest retransmission or refresh.
    var registrationDeadline: Duration? { registrations.values.compactMap(\.registration.nextDeadline).min() }

    /// A registration's time: the loop's clock, and seconds since 1970 for TSIG.
    var registrationTime: WideAreaRegistration.Time {
        WideAreaRegistration.Time(monotonic: now, unixSeconds: UInt64(max(0, time(nil))))
    }

    mutating func start(
        _ registration: WideAreaRegistration, handle: RegistrationHandle, server: DNSServer,
        onEvent: @escaping @Sendable (WideAreaRegistration.Event) -> Void
    ) {
        let socket: DNSDatagramSocket
        do {
            socket = try DNSDatagramSocket(connectingTo: server.socketAddress)
        } catch {
            onEvent(.failed(.invalidUpdate("cannot open a socket to \(server): \(error)")))
            return
        }
        registrations[handle] = RegistrationSlot(registration: registration, socket: socket, onEvent: onEvent)
        update(handle) { $0.start(at: $1) }
    }

    /// Runs `change` on a registration and carries out what it asks.
    mutating func update(
        _ handle: RegistrationHandle,
        _ change: (inout WideAreaRegistration, WideAreaRegistration.Time) -> [WideAreaRegistration.Output]
    ) {
        guard var slot = registrations[handle] else { return }
        let outputs = change(&slot.registration, registrationTime)
        registrations[handle] = slot
        for output in outputs {
            switch output {
            case .send(let datagram):
                // A datagram that cannot leave is a lost one: the registration retransmits, and
                // fails with timedOut, naming this failure, after its last wait.
                do throws(TransportError) {
                    try slot.socket.send(datagram)
                } catch {
                    registrations[handle]?.registration.transportFailed("\(error)")
                }
            case .event(let event):
                slot.onEvent(event)
                switch event {
                case .deregistered, .failed:
                    registrations[handle] = nil
                    slot.socket.close()
                default: break
                }
            }
        }
    }

    /// Retransmissions and refreshes that are due.
    mutating func advanceRegistrations() {
        for (handle, slot) in registrations where slot.registration.nextDeadline.map({ $0 <= now }) ?? false {
            update(handle) { $0.advance(to: $1) }
        }
    }

    var writableDescriptors: [Int32] {
        streamSockets.values.filter(\.socket.wantsToWrite).map(\.socket.fileDescriptor)
    }

    /// Sends what the client asks to send, closes the sockets of finished attempts and resumes the
    /// callers of answered questions; again while that makes more to do.
    mutating func carryOut() {
        while true {
            let transmissions = client.takeTransmissions()
            let finished = client.takeFinishedAttempts()
            let completions = client.takeCompletions()
            if transmissions.isEmpty && finished.isEmpty && completions.isEmpty { return }
            for attempt in finished {
                datagramSockets.removeValue(forKey: attempt)?.socket.close()
                streamSockets.removeValue(forKey: attempt)?.socket.close()
            }
            for transmission in transmissions { send(transmission) }
            for completion in completions {
                waiting.removeValue(forKey: completion.query)?.resume(returning: completion.result)
            }
        }
    }

    private mutating func send(_ transmission: Transmission) {
        let address = transmission.server.socketAddress
        do throws(TransportError) {
            switch transmission.transport {
            case .udp:
                let socket = try DNSDatagramSocket(connectingTo: address)
                datagramSockets[transmission.attempt] = (socket, transmission.server)
                try socket.send(transmission.message)
            case .tcp:
                let socket = try DNSStreamSocket(connectingTo: address)
                streamSockets[transmission.attempt] = (socket, transmission.server)
                try socket.send(transmission.message)
            }
        } catch {
            client.attemptFailed(transmission.attempt, because: "\(error)", at: now)
        }
    }

    /// Reads the sockets poll(2) found ready and hands what came to the client.
    mutating func serve(_ ready: Set<Int32>) {
        for (attempt, entry) in datagramSockets where ready.contains(entry.socket.fileDescriptor) {
            do throws(TransportError) {
                while let (bytes, source) = try entry.socket.receive() {
                    client.receive(bytes, on: attempt, from: DNSServer(source), at: now)
                }
            } catch {
                client.attemptFailed(attempt, because: "\(error)", at: now)
            }
        }
        for (handle, slot) in registrations where ready.contains(slot.socket.fileDescriptor) {
            do throws(TransportError) {
                while let (bytes, _) = try slot.socket.receive() {
                    update(handle) { $0.receive(bytes, at: $1) }
                }
            } catch {
                registrations[handle]?.registration.transportFailed("\(error)")
            }
        }
        for (attempt, entry) in streamSockets where ready.contains(entry.socket.fileDescriptor) {
            do throws(TransportError) {
                try entry.socket.writeQueued()
                if let reply = try entry.socket.receive() {
                    client.receive(reply, on: attempt, from: entry.server, at: now)
                }
            } catch {
                client.attemptFailed(attempt, because: "\(error)", at: now)
            }
        }
        carryOut()
    }
}

extension DNSServer {
    /// The server's address and port as the transport takes them.
    var socketAddress: SocketAddress {
        switch address {
        case .ipv4(let ipv4): SocketAddress(.v4(ipv4), port: port)
        case .ipv6(let ipv6): SocketAddress(.v6(ipv6), port: port)
        }
    }

    /// The server a datagram came from.
    init(_ source: SocketAddress) {
        switch source.address {
        case .v4(let address): self.init(.ipv4(address), port: source.port)
        case .v6(let address): self.init(.ipv6(address), port: source.port)
        }
    }
}
