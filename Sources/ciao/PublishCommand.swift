import Ciao
import CiaoUnicastDNS

/// `ciao publish NAME TYPE PORT [TXT...]`: publishes a service until interrupted, then withdraws it
/// with goodbyes.
enum PublishCommand {
    static let spec = CommandSpec(
        name: "publish",
        summary: "Publishes a service and keeps it published until SIGINT or SIGTERM; prints the name in use.",
        options: [
            .init(names: ["-l", "--listener"], value: nil, help: "let Ciao hold an ephemeral port (no PORT argument)"),
            .init(names: ["--no-rename"], value: nil, help: "fail instead of renaming to \"NAME (2)\" on a conflict"),
            .init(
                names: ["-s", "--subtype"], value: "SUB",
                help: "also publish under a subtype such as _printer (repeatable)",
                repeatable: true),
            .init(
                names: ["--key"], value: "FILE",
                help: "with -d: the TSIG key (tsig-keygen's format) that signs the DNS UPDATEs"),
            .init(
                names: ["--host"], value: "NAME",
                help: "the SRV target: in local. another host that answers for its own addresses, as printer.local"
                    + " (avahi-publish -H); with -d the label registered with this host's addresses"
                    + " (default: this host's name)"),
            .init(
                names: ["--address"], value: "ADDR",
                help: "with --host in local.: that host's address, published for it (dns-sd -P, avahi-publish -a)"
                    + " when it does not answer for itself (repeatable)",
                repeatable: true),
        ] + CommonOptions.network + [CommonOptions.domain, CommonOptions.server] + [CommonOptions.output[1]],
        positionals: [
            .init(
                name: "NAME", help: "the instance name, up to 63 bytes; \"\" for the host name (--host's, when given)"),
            .init(name: "TYPE", help: "the service type, such as _http._tcp"),
            .init(name: "PORT", help: "the port your service listens on (left out with --listener)", isOptional: true),
            .init(
                name: "TXT", help: "KEY=VALUE, KEY= (empty) or KEY (flag); \\xHH in a value is a byte", isVariadic: true
            ),
        ],
        details: "Exit status: 0 withdrawn after a signal; 1 publishing failed (e.g. name conflict with --no-rename);"
            + " 2 bad arguments.")

    static func run(_ arguments: [String]) async -> Int32 {
        let configuration: PublicationConfiguration
        let format: OutputFormat
        let scope: NetworkScope
        do {
            let parsed = try spec.parse(arguments)
            configuration = try publication(parsed)
            format = try CommonOptions.outputFormat(parsed)
            if configuration.domain != "local." {
                return await unicastPublish(
                    configuration, resolver: try CommonOptions.resolverConfiguration(parsed),
                    printer: OutputPrinter(format: format))
            }
            scope = try CommonOptions.applyNetworkScope(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        let printer = OutputPrinter(format: format)
        let server = CiaoServer()
        let (outcomes, outcome) = AsyncStream<Outcome>.makeStream()
        let interruptions = SignalMonitor.interruptions()
        let follower = Task {
            for await event in server.events {
                switch event {
                case .started(let published): printer.print(.published(published))
                case .failed: return  // the start's error, printed below
                case .stopped: return
                }
            }
        }
        let tasks = [
            Task {
                for await _ in interruptions { break }
                outcome.yield(.interrupted)
            },
            Task {
                // As avahi-publish does, wait for a network rather than fail without one.
                guard await CommonOptions.waitForInterface(scope, atMost: nil) else { return }
                CommonOptions.warnAboutMembershipFailures()
                do {
                    _ = try await server.start(configuration)
                } catch {
                    outcome.yield(.failed(error))
                }
            },
        ]
        defer { for task in tasks + [follower] { task.cancel() } }
        for await next in outcomes {
            switch next {
            case .interrupted:
                await server.stop()
                return 0
            case .failed(let error):
                if CommandLineTool.isArgumentError(error) {
                    return CommandLineTool.usageError("\(error)", spec: spec)
                }
                CommandLineTool.printError(failureText(error, configuration))
                return 1
            }
        }
        return 0
    }

    /// How a publication ends: a signal, or a start that failed.
    private enum Outcome {
        case interrupted
        case failed(any Error)
    }

    /// What a failed start prints: a name conflict of a proxy may be over the host name too,
    /// which no renaming of the service avoids.
    static func failureText(_ error: any Error, _ configuration: PublicationConfiguration) -> String {
        guard error as? CiaoError == .dnsService(CiaoError.Code.nameConflict), !configuration.hostAddresses.isEmpty,
            let hostName = configuration.hostName
        else { return "\(error)" }
        return "\(error) (the name may be the host name \(hostName), which another responder holds with other "
            + "addresses; a host name is not renamed)"
    }

    /// The configuration the arguments describe: PORT comes first among the trailing arguments
    /// unless --listener is given.
    static func publication(_ arguments: ParsedArguments) throws -> PublicationConfiguration {
        let listener = arguments.has("--listener")
        var trailing = (arguments.positional("PORT").map { [$0] } ?? []) + arguments.variadic("TXT")
        var port: UInt16 = 0
        if listener, let first = trailing.first, UInt16(first) != nil {
            throw ArgumentError(
                "with --listener Ciao chooses the port: \"\(first)\" would be published as a TXT entry; leave out one of them"
            )
        }
        if !listener {
            guard let text = trailing.first else { throw ArgumentError("missing PORT (or use --listener)") }
            guard let value = UInt16(text), value > 0 else {
                throw ArgumentError("PORT must be 1–65535, not \"\(text)\"")
            }
            port = value
            trailing.removeFirst()
        }
        let type = try CommonOptions.serviceType(arguments.positional("TYPE") ?? "")
        let domain = try CommonOptions.domain(arguments)
        var wideArea: WideAreaOptions?
        if domain != "local." {
            guard let keyFile = arguments.value("--key") else {
                throw ArgumentError("publishing in \(domain) is a signed DNS UPDATE: give the key with --key FILE")
            }
            guard !listener else { throw ArgumentError("--listener is for local. only: give the PORT") }
            guard arguments.all("--address").isEmpty else {
                throw ArgumentError("--address is for local.; in \(domain) the host's addresses are this host's")
            }
            wideArea = WideAreaOptions(
                key: try RegistrationKey(contentsOfFile: keyFile), server: arguments.value("--server"),
                hostName: arguments.value("--host"))
        } else if arguments.value("--key") != nil {
            throw ArgumentError("--key is for a domain other than local. (-d DOMAIN)")
        } else if !arguments.all("--address").isEmpty, arguments.value("--host") == nil {
            throw ArgumentError("--address needs --host NAME, the host the address belongs to")
        } else if listener, arguments.value("--host") != nil {
            throw ArgumentError(
                "with --host the service runs on that host: give the PORT it listens on, not --listener")
        }
        return PublicationConfiguration(
            type: type, name: arguments.positional("NAME") ?? "", domain: domain, port: port,
            mode: listener ? .listener : .externalPort,
            allowsRenaming: !arguments.has("--no-rename"), txtRecord: try TXTArguments.record(trailing),
            subtypes: arguments.all("--subtype"), wideArea: wideArea,
            hostName: domain == "local." ? arguments.value("--host") : nil, hostAddresses: arguments.all("--address"))
    }

    /// Registers in a unicast DNS domain until SIGINT or SIGTERM, then deletes the records.
    private static func unicastPublish(
        _ configuration: PublicationConfiguration, resolver: ResolverConfiguration, printer: OutputPrinter
    ) async -> Int32 {
        let publication: WideAreaPublication
        do {
            publication = try WideAreaPublication(configuration, resolver: resolver)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        let interruption = Task {
            for await _ in SignalMonitor.interruptions() { break }
            publication.stop()
        }
        defer { interruption.cancel() }
        for await event in publication.events {
            switch event {
            case .registered(let name, let hostName, let port, _):
                printer.print(
                    .published(
                        PublishedService(
                            service: Service(name: name, type: configuration.type, domain: configuration.domain),
                            port: port, hostName: hostName)))
            case .failed(let error):
                CommandLineTool.printError("\(error)")
                return 1
            case .deregistered:
                return 0
            }
        }
        return 0
    }
}
