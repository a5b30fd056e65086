import Ciao
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `ciao explore` at work: keys, signals and discovery and publication events merged into
/// one stream that drives the ``ExploreModel``, the actions it asks for carried out with the
/// public API, and the screen drawn anew: at once after a key, 50 ms after other news (so that a
/// burst draws once), and once a second.
struct ExploreSession {
    private enum Input {
        case bytes([UInt8])
        case inputClosed
        case resize
        case signal
        case typeFound(ServiceType)
        case browsing(ServiceType, DiscoverySession)
        case discovery(DiscoveryEvent)
        case published(Int, PublishedService)
        case stopped(Int)
        case failed(Int, String)
        case txtUpdated(Int, TXTRecord)
        case message(String)
        /// A second has passed: expiry, "last seen … ago", and whether an interface is there.
        case tick
        /// The redraw put off after a change, so that a burst of changes draws once.
        case drawDue
    }

    private let terminal: RawTerminal
    private let styled: Bool
    private var model = ExploreModel()
    private var decoder = KeyDecoder()
    private let scope: NetworkScope
    private var interfaces: InterfaceDirectory
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation
    private let browser = CiaoBrowser()
    private var browsed: Set<ServiceType> = []
    private var sessions: [ServiceType: DiscoverySession] = [:]
    private var servers: [Int: CiaoServer] = [:]
    private var tasks: [Task<Void, Never>] = []
    private var shown: Screen?
    private var isDirty = true
    private var isDrawDue = false
    /// How long a change waits for others before the screen shows it.
    private static let drawDelay = Duration.milliseconds(50)

    init(terminal: RawTerminal, scope: NetworkScope, styled: Bool) {
        self.terminal = terminal
        self.styled = styled
        self.scope = scope
        interfaces = InterfaceDirectory(scope: scope)
        (inputs, feed) = AsyncStream.makeStream()
    }

    mutating func run() async {
        terminal.enter()
        let feed = self.feed
        let reader = KeyboardReader(
            descriptor: STDIN_FILENO, deliver: { feed.yield(.bytes($0)) }, closed: { feed.yield(.inputClosed) })
        startFeeds()
        lookForInterface()
        draw()
        loop: for await input in inputs {
            for action in handle(input) {
                if action == .quit { break loop }
                await perform(action)
            }
            switch input {
            case .bytes:
                draw()
                reader.resumeReading()
            case .tick: draw()
            case .drawDue: if isDirty { draw() }
            default: putOffDraw()
            }
        }
        reader.cancel()
        for task in tasks { task.cancel() }
        terminal.write("\u{1B}[\(terminal.size.rows);1H\u{1B}[0mwithdrawing publications…")
        for server in servers.values { await server.stop() }
        for session in sessions.values { await session.stop() }
        feed.finish()
        terminal.restore()
    }

    private mutating func startFeeds() {
        let feed = self.feed
        let types = ServiceTypeSession()
        tasks += [
            Task {
                for await _ in SignalMonitor.interruptions([SIGINT, SIGTERM, SIGHUP]) { feed.yield(.signal) }
            },
            Task {
                for await _ in SignalMonitor.interruptions([SIGWINCH]) { feed.yield(.resize) }
            },
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    feed.yield(.tick)
                }
            },
            Task {
                defer { types.stop() }
                do {
                    for try await type in types.types { feed.yield(.typeFound(type)) }
                } catch {
                    feed.yield(.message("type enumeration failed: \(error)"))
                }
            },
        ]
    }

    private mutating func handle(_ input: Input) -> [ExploreAction] {
        // Any news dirties the screen; so does a tick, as "last seen … s ago" moves on.
        if case .drawDue = input { isDrawDue = false } else { isDirty = true }
        switch input {
        case .bytes(let bytes):
            return decoder.keys(from: bytes).flatMap { model.handle($0) }
        case .inputClosed, .signal:
            return [.quit]
        case .resize:
            shown = nil
        case .typeFound(let type):
            model.typeFound(type)
            browse(type)
        case .browsing(let type, let session):
            sessions[type] = session
        case .discovery(let event):
            let index = event.serviceIndex
            model.discovery(event, interfaceName: index.map { interfaces.info(for: $0).name } ?? "", at: Date())
        case .published(let id, let published):
            model.publicationStarted(id, published)
        case .stopped(let id):
            model.publicationStopped(id)
        case .failed(let id, let reason):
            model.publicationFailed(id, reason)
        case .txtUpdated(let id, let record):
            model.txtUpdated(id, record)
        case .message(let text):
            model.message = text
        case .tick:
            model.expire(at: Date())
            lookForInterface()
        case .drawDue:
            break
        }
        return []
    }

    private mutating func browse(_ type: ServiceType) {
        guard browsed.insert(type).inserted else { return }
        let feed = self.feed
        let browser = self.browser
        tasks.append(
            Task {
                do {
                    let session = try await browser.browse(type: type)
                    feed.yield(.browsing(type, session))
                    for try await event in session.events { feed.yield(.discovery(event)) }
                } catch {
                    feed.yield(.message("browsing \(type) failed: \(error)"))
                }
            })
    }

    private mutating func perform(_ action: ExploreAction) async {
        let feed = self.feed
        switch action {
        case .quit:
            return
        case .redraw:
            shown = nil
        case .suspend:
            terminal.restore()
            kill(getpid(), SIGTSTP)
            terminal.enter()
            shown = nil
        case .publish(let id, let configuration):
            let server = server(for: id)
            tasks.append(
                Task {
                    do {
                        _ = try await server.start(configuration)
                    } catch {
                        feed.yield(.failed(id, "\(error)"))
                    }
                })
        case .updateTXT(let id, let record):
            guard let server = servers[id] else { return }
            tasks.append(
                Task {
                    do {
                        try await server.updateTXT(record)
                        feed.yield(.txtUpdated(id, record))
                    } catch {
                        feed.yield(.message("TXT update failed: \(error)"))
                    }
                })
        case .stop(let id):
            guard let server = servers[id] else { return }
            tasks.append(Task { await server.stop() })
        case .reconfirm(let service):
            sessions[service.type]?.reconfirm(service)
        }
        draw()
    }

    /// The server of publication `id`, created with a task following its events.
    private mutating func server(for id: Int) -> CiaoServer {
        if let server = servers[id] { return server }
        let server = CiaoServer()
        servers[id] = server
        let feed = self.feed
        tasks.append(
            Task {
                for await event in server.events {
                    switch event {
                    case .started(let published): feed.yield(.published(id, published))
                    case .stopped: feed.yield(.stopped(id))
                    case .failed(let error): feed.yield(.failed(id, error.description))
                    }
                }
            })
        return server
    }

    /// Notes whether an interface is there, so that an empty screen says why; what cannot be read
    /// counts as present (the runtime reports it).
    private mutating func lookForInterface() {
        model.hasInterface = (try? CommonOptions.hasInterface(scope)) ?? true
    }

    /// Draws ``drawDelay`` from now, unless a draw is due already.
    private mutating func putOffDraw() {
        guard isDirty, !isDrawDue else { return }
        isDrawDue = true
        let feed = self.feed
        Task {
            try? await Task.sleep(for: Self.drawDelay)
            feed.yield(.drawDue)
        }
    }

    private mutating func draw() {
        let size = terminal.size
        let screen = ExploreView.render(model, width: size.columns, height: size.rows, now: Date())
        terminal.write(screen.rendering(from: shown, styled: styled))
        shown = screen
        isDirty = false
    }
}

extension DiscoveryEvent {
    /// The index of the interface the event's service was seen on.
    fileprivate var serviceIndex: UInt32? {
        switch self {
        case .found(let service), .removed(let service), .resolutionFailed(let service, _):
            service.interfaceIndex
        case .resolved(let resolved): resolved.service.interfaceIndex
        case .started, .stopped: nil
        }
    }
}
