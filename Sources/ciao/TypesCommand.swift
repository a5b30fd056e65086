import Ciao
import CiaoUnicastDNS

/// `ciao types`: the service types on the network (RFC 6763 §9).
enum TypesCommand {
    static let spec = CommandSpec(
        name: "types",
        summary: "Lists the service types announced on the network, until interrupted.",
        options: [CommonOptions.terminate] + CommonOptions.network + [CommonOptions.domain, CommonOptions.server]
            + CommonOptions.output,
        positionals: [],
        details: "Exit status: 0 done or interrupted; 1 enumeration failed; 2 bad arguments.")

    /// What the listing loop waits for; an interruption ends the stream.
    private enum Input {
        case found(ServiceType)
        case failed(any Error)
        case tick
    }

    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: ParsedArguments
        let format: OutputFormat
        let scope: NetworkScope
        let domain: String
        do {
            parsed = try spec.parse(arguments)
            format = try CommonOptions.outputFormat(parsed)
            domain = try CommonOptions.domain(parsed)
            if domain != "local." {
                let configuration = try CommonOptions.resolverConfiguration(parsed)
                return await unicastTypes(
                    in: domain, configuration: configuration, format: format, terminate: parsed.has("--terminate"))
            }
            scope = try CommonOptions.applyNetworkScope(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        guard await CommonOptions.waitForInterface(scope, terminating: parsed.has("--terminate")) else { return 1 }
        CommonOptions.warnAboutMembershipFailures()
        let printer = OutputPrinter(format: format)
        let session = ServiceTypeSession()
        defer { session.stop() }
        var quiet = QuietPeriod()
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let tasks = [
            Task {
                do {
                    for try await type in session.types { feed.yield(.found(type)) }
                } catch {
                    feed.yield(.failed(error))
                }
            },
            Task {
                for await _ in SignalMonitor.interruptions() { break }
                feed.finish()
            },
            Task {
                guard parsed.has("--terminate") else { return }
                for await _ in QuietPeriod.ticks() { feed.yield(.tick) }
            },
        ]
        defer { for task in tasks { task.cancel() } }
        for await input in inputs {
            switch input {
            case .found(let type):
                quiet.noteNews()
                printer.print(.type(type))
            case .failed(let error):
                CommandLineTool.printError("\(error)")
                return 1
            case .tick:
                if quiet.hasSettled { return 0 }
            }
        }
        return 0
    }

    /// The types a unicast DNS domain lists (wide-area DNS-SD), until interrupted or, with -t,
    /// once the first answer is in; 1 when that first answer failed.
    private static func unicastTypes(
        in domain: String, configuration: ResolverConfiguration, format: OutputFormat, terminate: Bool
    ) async -> Int32 {
        let printer = OutputPrinter(format: format)
        let events: AsyncStream<WideAreaBrowse.Event>
        do {
            events = try WideAreaBrowse(configuration: configuration).typeEvents(domain: domain)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        return await WideAreaEventLoop.run(events, terminate: terminate, what: "the service types of \(domain)") {
            if case .typeFound(let type) = $0 { printer.print(.type(type, domain: domain)) }
        }
    }
}
