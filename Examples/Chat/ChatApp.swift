import Ciao

/// One chat instance from start to finish: listen on a TCP port, publish it with Ciao, browse for
/// the other instances, relay lines between standard input and the peers, and shut down in order.
///
/// The control flow is Swift concurrency: one task per source of events (accepted connections,
/// the publication, the browse session, standard input, signals), each forwarding into the
/// ``ChatRoom`` actor; the first reason to stop ends ``run()``. Blocking socket and terminal
/// I/O happens on dedicated threads (``Listener``, ``PeerConnection``, ``StandardInput``).
struct ChatApp {
    /// The DNS-SD service type every chat instance publishes and browses.
    static let serviceType = "_ciaochat._tcp"

    /// Why the chat stops.
    enum StopReason: Sendable {
        case endOfInput
        case signal(Int32)
        case failure(String)
    }

    let options: ChatOptions

    /// Runs until end-of-file on standard input, SIGINT or SIGTERM, or a failure; returns the
    /// exit status (0 for a normal stop).
    func run() async -> Int32 {
        let watcher = SignalWatcher()  // first: from here on a signal stops the chat cleanly
        let (stops, stop) = AsyncStream<StopReason>.makeStream()
        let server = CiaoServer()
        var session: DiscoverySession?
        var room: ChatRoom?
        var listener: Listener?
        do {
            if !options.interfaces.isEmpty {
                try NetworkScope.use(NetworkScope(interfaces: options.interfaces))
            }
            let type = try ServiceType(Self.serviceType)
            let tcp = try Listener(port: options.port)
            listener = tcp

            // Publish the port we own: external-port mode, with the nick and a protocol version in TXT.
            let published = try await server.start(
                PublicationConfiguration(
                    type: type, name: options.nick, port: tcp.port, mode: .externalPort,
                    txtRecord: try TXTRecord(strings: ["nick": options.nick, "v": "1"])))
            let chat = ChatRoom(nick: options.nick, ownName: published.service.name)
            room = chat
            let browse = try await CiaoBrowser().browse(type: type)  // resolves automatically
            session = browse

            Task {
                for await socket in tcp.connections { await chat.accepted(socket) }
            }
            Task {
                for await event in server.events {
                    switch event {
                    case .started(let service): await chat.rename(to: service.service.name)
                    case .failed(let error): stop.yield(.failure("the publication ended: \(error)"))
                    case .stopped: break
                    }
                }
            }
            Task {
                do {
                    try await Self.follow(browse, into: chat)
                } catch {
                    stop.yield(.failure("browsing failed: \(error)"))
                }
            }
            Task {
                for await line in StandardInput.lines() { await chat.broadcast(line) }
                stop.yield(.endOfInput)
            }
            let signals = watcher.signals
            Task {
                for await number in signals { stop.yield(.signal(number)) }
            }
            Console.print("ready \(published.service.name) \(tcp.port)")
        } catch {
            stop.yield(.failure("\(error)"))
        }

        var reason = StopReason.endOfInput
        for await first in stops {
            reason = first
            break
        }
        // Stop browsing, withdraw the service with goodbyes, then hang up.
        await session?.stop()
        await server.stop()
        await room?.leave()
        listener?.stop()
        withExtendedLifetime(watcher) {}
        if case .failure(let message) = reason {
            Console.diagnose(message)
            return 1
        }
        return 0
    }

    /// Feeds the browse session's events to the room until the session ends.
    ///
    /// The same instance can be seen on several interfaces (one ``Service`` each); it is gone
    /// only when the last of them is removed.
    private static func follow(_ session: DiscoverySession, into room: ChatRoom) async throws {
        var present: [String: Set<Service>] = [:]
        for try await event in session.events {
            switch event {
            case .found(let service):
                present[service.name, default: []].insert(service)
            case .resolved(let resolved):
                await room.discovered(resolved)
            case .removed(let service):
                present[service.name]?.remove(service)
                if present[service.name]?.isEmpty ?? true {
                    present[service.name] = nil
                    await room.lost(serviceName: service.name)
                }
            case .resolutionFailed(let service, let error):
                Console.diagnose("cannot resolve \(service.name): \(error)")
            case .started, .stopped:
                break
            }
        }
    }
}
