import Ciao
import CiaoUnicastDNS

/// One `ciao browse -d DOMAIN` (a domain other than `local.`) at work: each type browsed by
/// unicast DNS (``WideAreaBrowse``), the events printed as for `local.` with `n/a` for interface
/// and protocol, as `avahi-browse -d DOMAIN` prints them.
struct WideAreaBrowseRun {
    private enum Input {
        case event(WideAreaBrowse.Event, BrowseTarget)
        case interrupted
    }

    let options: BrowseOptions
    let configuration: ResolverConfiguration

    /// Browses until interrupted, or with -t until every type's first round is in; 1 when a
    /// type's first round failed with -t.
    func run() async -> Int32 {
        let printer = OutputPrinter(format: options.format)
        let browse: WideAreaBrowse
        do {
            browse = try WideAreaBrowse(configuration: configuration)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        var tasks = [
            Task {
                for await _ in SignalMonitor.interruptions() {
                    feed.yield(.interrupted)
                    return
                }
            }
        ]
        defer { for task in tasks { task.cancel() } }
        for target in options.targets {
            let events: AsyncStream<WideAreaBrowse.Event>
            do {
                events = try browse.events(
                    type: target.type, subtype: target.subtype, domain: options.domain, resolving: options.resolve)
            } catch {
                CommandLineTool.printError("\(error)")
                return 1
            }
            tasks.append(Task { for await event in events { feed.yield(.event(event, target)) } })
        }
        var unsettled = Set(options.targets)
        var status: Int32 = 0
        for await input in inputs {
            guard case .event(let event, let target) = input else { break }
            switch event {
            case .found(let service): printer.print(.found(service, .unicastDNS))
            case .removed(let service): printer.print(.removed(service, .unicastDNS))
            case .resolved(let resolved): printer.print(.resolved(resolved, .unicastDNS))
            case .resolutionFailed(let service, let error):
                printer.print(.resolutionFailed(service, .unicastDNS, error))
            case .failed(let error):
                CommandLineTool.printError("\(target.type) in \(options.domain): \(error)")
                if options.terminate, unsettled.contains(target) { status = 1 }
            case .settled:
                unsettled.remove(target)
            case .typeFound, .domainFound, .domainRemoved, .records, .questionFailed:
                break  // a type browse sees no enumeration and no lookup
            }
            if options.terminate && unsettled.isEmpty { break }
        }
        return status
    }
}
