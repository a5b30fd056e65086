import CiaoEngine
import CiaoTransport
import CiaoUnicastDNS
import CiaoWire
import Synchronization

/// Runs a ``UnicastDNSClient`` on a thread of its own over real sockets: a UDP socket per try,
/// TCP when a reply was truncated (RFC 7766), poll(2) for replies and deadlines. Questions come
/// in from any thread; each answer or failure resumes its caller.
final class UnicastDNSLoop: Sendable {
    private let jobs = Mutex<[@Sendable (inout LoopState) -> Void]>([])
    private let wakeup: Wakeup

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

    /// The answer to `type` at `name`, from the cache unless `fresh`.
    func query(_ name: DomainName, _ type: RecordType, fresh: Bool = false) async -> Result<DNSAnswer, UnicastDNSError>
    {
        await withCheckedContinuation { continuation in
            submit { state in
                let id = state.client.query(name, type: type, usingCache: !fresh, at: state.now)
                state.waiting[id] = continuation
            }
        }
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
            let timeout = state.client.nextDeadline.map { max($0 - state.now, .zero) }
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

/// Hands the loop's state to its thread, its only user from then on.
private struct LoopTransfer: @unchecked Sendable {
    let state: LoopState
}

/// What the loop's thread owns: the client, the open sockets by try, and who waits for what.
struct LoopState {
    var client: UnicastDNSClient<SystemRandomNumberGenerator>
    var waiting:
        [UnicastDNSClient<SystemRandomNumberGenerator>.QueryID: CheckedContinuation<
            Result<DNSAnswer, UnicastDNSError>, Never
        >] = [:]
    private var datagramSockets: [Attempt: (socket: DNSDatagramSocket, server: DNSServer)] = [:]
    private var streamSockets: [Attempt: (socket: DNSStreamSocket, server: DNSServer)] = [:]
    private let origin = ContinuousClock.now

    init(client: UnicastDNSClient<SystemRandomNumberGenerator>) {
        self.client = client
    }

    /// The client's time: monotonic, from the loop's start.
    var now: Duration { ContinuousClock.now - origin }

    var descriptors: [Int32] {
        datagramSockets.values.map(\.socket.fileDescriptor) + streamSockets.values.map(\.socket.fileDescriptor)
    }

    var writableDescriptors: [Int32] {
        streamSockets.values.filter(\.socket.wantsToWrite).map(\.socket.fileDescriptor)
    }

    /// Sends what the client asks to send, closes the sockets of finished tries and resumes the
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
        let address = SocketAddress(transmission.server.address.ipAddress, port: transmission.server.port)
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
            client.attemptFailed(transmission.attempt, at: now)
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
                client.attemptFailed(attempt, at: now)
            }
        }
        for (attempt, entry) in streamSockets where ready.contains(entry.socket.fileDescriptor) {
            do throws(TransportError) {
                try entry.socket.flush()
                if let reply = try entry.socket.receive() {
                    client.receive(reply, on: attempt, from: entry.server, at: now)
                }
            } catch {
                client.attemptFailed(attempt, at: now)
            }
        }
        carryOut()
    }
}

extension DNSServer.Address {
    /// The same address as the transport takes it.
    var ipAddress: IPAddress {
        switch self {
        case .ipv4(let address): .v4(address)
        case .ipv6(let address): .v6(address)
        }
    }
}

extension DNSServer {
    /// The server a datagram came from.
    init(_ source: SocketAddress) {
        switch source.address {
        case .v4(let address): self.init(.ipv4(address), port: source.port)
        case .v6(let address): self.init(.ipv6(address), port: source.port)
        }
    }
}
