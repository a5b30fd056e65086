import Ciao
import CiaoUnicastDNS

/// `ciao domains`: the domains the network recommends for browsing or registering (RFC 6763 §11),
/// as `dns-sd -F` / `dns-sd -E` list them.
enum DomainsCommand {
    static let spec = CommandSpec(
        name: "domains",
        summary: "Lists the domains recommended for browsing (or registering, with -R), until interrupted.",
        options: [
            .init(names: ["-t", "--terminate"], value: nil, help: "exit once the first answers are in"),
            .init(names: ["-R", "--registration"], value: nil, help: "registration domains, not browsing domains"),
            CommonOptions.server,
        ] + CommonOptions.output,
        positionals: [],
        details: """
            local. comes first, the default of multicast DNS. The others are the PTR records b, db and lb \
            (r and dr with -R) under _dns-sd._udp of each search domain in /etc/resolv.conf and of the reverse \
            name of each global network of this host (RFC 6763 §11), asked for again at 80 % of their TTL.
            Exit status: 0 done or interrupted; 1 no DNS server answered; 2 bad arguments.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: ParsedArguments
        let format: OutputFormat
        let servers: [DNSServer]?
        do {
            parsed = try spec.parse(arguments)
            format = try CommonOptions.outputFormat(parsed)
            servers = try parsed.value("--server").map { _ in try CommonOptions.resolverConfiguration(parsed).servers }
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        let printer = OutputPrinter(format: format)
        let events: AsyncStream<WideAreaBrowse.Event>
        do {
            events = try DomainSearch.events(
                for: parsed.has("--registration") ? .registration : .browsing, servers: servers)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        printer.print(.domainFound("local.", isDefault: true))
        return await WideAreaEventLoop.run(events, terminate: parsed.has("--terminate"), what: "domain enumeration") {
            switch $0 {
            case .domainFound(let domain, let isDefault): printer.print(.domainFound(domain, isDefault: isDefault))
            case .domainRemoved(let domain): printer.print(.domainRemoved(domain))
            default: break
            }
        }
    }
}
