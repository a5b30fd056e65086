import Ciao

/// `ciao browse TYPE... | --all`: services as they come and go, optionally resolved.
enum BrowseCommand {
    static let spec = CommandSpec(
        name: "browse",
        summary: "Lists services of the given types as they appear and disappear, until interrupted.",
        options: [
            .init(names: ["-a", "--all"], value: nil, help: "browse every type found by type enumeration"),
            .init(names: ["-r", "--resolve"], value: nil, help: "resolve each service: host, port, addresses, TXT"),
            CommonOptions.terminate,
            .init(
                names: ["-c", "--cache"], value: nil,
                help: "as -t: there is no daemon whose cache to dump (avahi-browse -c)"),
            .init(names: ["-l", "--ignore-local"], value: nil, help: "leave out services published on this host"),
            .init(
                names: ["--timeout"], value: "SECONDS", help: "give up resolving a service after this long (default 10)"
            ),
        ] + CommonOptions.network + [CommonOptions.domain, CommonOptions.server] + CommonOptions.output,
        positionals: [
            .init(
                name: "TYPE",
                help: "a service type such as _http._tcp; a subtype as _printer._sub._http._tcp or _http._tcp,_printer",
                isVariadic: true)
        ],
        details: CommonOptions.formatsHelp
            + "\n\nExit status: 0 done or interrupted; 1 browsing failed; 2 bad arguments.")

    static func run(_ arguments: [String]) async -> Int32 {
        let options: BrowseOptions
        let scope: NetworkScope
        do {
            options = try BrowseOptions(try spec.parse(arguments))
            scope = try CommonOptions.applyNetworkScope(options.arguments)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        if options.domain != "local." {
            do {
                return await WideAreaBrowseRun(
                    options: options, configuration: try CommonOptions.resolverConfiguration(options.arguments)
                ).run()
            } catch {
                return CommandLineTool.usageError("\(error)", spec: spec)
            }
        }
        guard await CommonOptions.waitForInterface(scope, terminating: options.terminate) else { return 1 }
        CommonOptions.warnAboutMembershipFailures()
        do {
            var browse = try BrowseRun(options: options, scope: scope)
            return await browse.run()
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
    }
}

/// The options of one `ciao browse`, checked.
struct BrowseOptions {
    var arguments: ParsedArguments
    var targets: [BrowseTarget]
    var all: Bool
    var resolve: Bool
    var terminate: Bool
    var ignoreLocal: Bool
    var resolutionTimeout: Duration
    var format: OutputFormat
    /// `local.` for multicast DNS, or the unicast DNS domain to browse.
    var domain: String

    init(_ arguments: ParsedArguments) throws {
        self.arguments = arguments
        all = arguments.has("--all")
        targets = try arguments.variadic("TYPE").map { (text) throws(ArgumentError) in try BrowseTarget(parsing: text) }
        guard all || !targets.isEmpty else { throw ArgumentError("give a service TYPE, or --all") }
        resolve = arguments.has("--resolve")
        // avahi-browse -c dumps avahi-daemon's cache and exits; a ciao process has no cache before
        // it asks, so -c asks and exits once the answers have settled, as -t does.
        terminate = arguments.has("--terminate") || arguments.has("--cache")
        ignoreLocal = arguments.has("--ignore-local")
        resolutionTimeout = try Self.seconds(arguments.value("--timeout") ?? "10", option: "--timeout")
        format = try CommonOptions.outputFormat(arguments)
        domain = try CommonOptions.domain(arguments)
        if domain != "local.", all { throw ArgumentError("--all is not available for a domain other than local.") }
    }

    static func seconds(_ text: String, option: String) throws(ArgumentError) -> Duration {
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw ArgumentError("\(option) needs a positive number of seconds, not \"\(text)\"")
        }
        return .milliseconds(max(1, Int((seconds * 1000).rounded(.up))))
    }
}

/// One `ciao browse` at work: every session's events merged into one stream and printed.
struct BrowseRun {
    private enum Input {
        case discovery(DiscoveryEvent, DiscoverySession)
        /// News for `-p` of a service's records over another family (``DiscoverySession/observeArrivals(_:)``).
        case arrival(Service, DiscoverySession)
        case typeFound(ServiceType)
        case failed(any Error)
        case interrupted
        case tick
    }

    private let options: BrowseOptions
    private let printer: OutputPrinter
    private var interfaces: InterfaceDirectory
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation
    private var sessions: [BrowseTarget: DiscoverySession] = [:]
    private var typeSession: ServiceTypeSession?
    private var tasks: [Task<Void, Never>] = []
    private var found: Set<Service> = []
    /// Services this host publishes, left out with -l.
    private var ignored: Set<Service> = []
    private var unresolved: Set<Service> = []
    private var printedFamilies = FamilyLedger()
    private var quiet = QuietPeriod()

    init(options: BrowseOptions, scope: NetworkScope) throws {
        self.options = options
        printer = OutputPrinter(format: options.format)
        interfaces = InterfaceDirectory(scope: scope)
        (inputs, feed) = AsyncStream.makeStream()
    }

    mutating func run() async -> Int32 {
        let status = await browseUntilDone()
        printer.progress(nil)
        for task in tasks { task.cancel() }
        typeSession?.stop()
        for session in sessions.values { await session.stop() }
        feed.finish()
        return status
    }

    private mutating func browseUntilDone() async -> Int32 {
        let feed = self.feed
        tasks.append(
            Task {
                for await _ in SignalMonitor.interruptions() {
                    feed.yield(.interrupted)
                    return
                }
            })
        if options.terminate {
            tasks.append(
                Task {
                    for await _ in QuietPeriod.ticks() { feed.yield(.tick) }
                })
        }
        do {
            for target in options.targets { try await browse(target) }
            if options.all {
                let session = ServiceTypeSession()
                typeSession = session
                tasks.append(
                    Task {
                        do {
                            for try await type in session.types { feed.yield(.typeFound(type)) }
                        } catch {
                            feed.yield(.failed(error))
                        }
                    })
            }
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        for await input in inputs {
            switch input {
            case .discovery(let event, let session):
                handle(event, from: session)
            case .arrival(let service, let session):
                handleArrival(of: service, from: session)
            case .typeFound(let type):
                quiet.noteNews()
                if sessions[BrowseTarget(type: type)] == nil {
                    do {
                        try await browse(BrowseTarget(type: type))
                    } catch {
                        CommandLineTool.printError("\(error)")
                        return 1
                    }
                }
            case .failed(let error):
                CommandLineTool.printError("\(error)")
                return 1
            case .interrupted:
                return 0
            case .tick:
                if quiet.hasSettled && unresolved.isEmpty { return 0 }
            }
        }
        return 0
    }

    private mutating func browse(_ target: BrowseTarget) async throws {
        let browser = CiaoBrowser()
        let session =
            if let subtype = target.subtype {
                try await browser.browse(
                    type: target.type, subtype: subtype, automaticallyResolve: options.resolve,
                    resolutionTimeout: options.resolutionTimeout)
            } else {
                try await browser.browse(
                    type: target.type, automaticallyResolve: options.resolve,
                    resolutionTimeout: options.resolutionTimeout)
            }
        sessions[target] = session
        let feed = self.feed
        if case .parsable = options.format {
            session.observeArrivals { service in feed.yield(.arrival(service, session)) }
        }
        tasks.append(
            Task {
                do {
                    for try await event in session.events { feed.yield(.discovery(event, session)) }
                } catch {
                    feed.yield(.failed(error))
                }
            })
    }

    private mutating func handle(_ event: DiscoveryEvent, from session: DiscoverySession) {
        if options.ignoreLocal, let service = event.service {
            if case .found = event, session.isFromThisHost(service) { ignored.insert(service) }
            if ignored.contains(service) {
                if case .removed = event { ignored.remove(service) }
                return
            }
        }
        switch event {
        case .started, .stopped:
            return
        case .found(let service):
            found.insert(service)
            if options.resolve { unresolved.insert(service) }
            let interface = interfaces.info(for: service.interfaceIndex)
            let families = printedFamilies.found(
                service, heard: session.families(of: service), fallback: interface.families)
            printer.print(.found(service, InterfaceInfo(name: interface.name, families: families)))
        case .removed(let service):
            found.remove(service)
            unresolved.remove(service)
            let interface = interfaces.info(for: service.interfaceIndex)
            let families = printedFamilies.removed(service, fallback: interface.families)
            printer.print(.removed(service, InterfaceInfo(name: interface.name, families: families)))
        case .resolved(let reported):
            unresolved.remove(reported.service)
            // The same result as it stands now: the families its addresses came over may have grown.
            let latest = session.latestResolution(of: reported.service).flatMap { $0 == reported ? $0 : nil }
            printResolved(latest ?? reported, isNews: true)
        case .resolutionFailed(let service, let error):
            unresolved.remove(service)
            printer.print(.resolutionFailed(service, interfaces.info(for: service.interfaceIndex), error))
        }
        quiet.noteNews()
        showProgress()
    }

    /// A found service's records came over another family: its lines for that protocol.
    private mutating func handleArrival(of service: Service, from session: DiscoverySession) {
        guard found.contains(service), !ignored.contains(service) else { return }
        let interface = interfaces.info(for: service.interfaceIndex)
        let families = printedFamilies.found(service, heard: session.families(of: service), fallback: [])
        if !families.isEmpty {
            printer.print(.found(service, InterfaceInfo(name: interface.name, families: families)))
        }
        // A result that has changed meanwhile comes as an event of its own.
        if let printed = printedFamilies.lastResolved(service), let latest = session.latestResolution(of: service),
            latest == printed
        {
            printResolved(latest, isNews: false)
        }
        quiet.noteNews()
    }

    private mutating func printResolved(_ resolved: ResolvedService, isNews: Bool) {
        let interface = interfaces.info(for: resolved.service.interfaceIndex)
        let families = printedFamilies.resolved(resolved, isNews: isNews)
        guard isNews || !families.isEmpty else { return }
        printer.print(.resolved(resolved, InterfaceInfo(name: interface.name, families: families)))
    }

    private func showProgress() {
        if options.resolve {
            printer.progress(
                unresolved.isEmpty ? nil : "resolving… \(found.count - unresolved.count) of \(found.count) done")
        }
    }
}

extension DiscoveryEvent {
    /// The service the event is about; nil for `started` and `stopped`.
    fileprivate var service: Service? {
        switch self {
        case .found(let service), .removed(let service), .resolutionFailed(let service, _): service
        case .resolved(let resolved): resolved.service
        case .started, .stopped: nil
        }
    }
}
