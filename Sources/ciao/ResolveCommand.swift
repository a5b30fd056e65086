import Ciao
import CiaoUnicastDNS
import CiaoWire

/// `ciao resolve NAME TYPE [DOMAIN]`: host, port, addresses and TXT of one service.
enum ResolveCommand {
    static let spec = CommandSpec(
        name: "resolve",
        summary: "Resolves one service to its host, port, addresses and TXT record.",
        options: [.init(names: ["--timeout"], value: "SECONDS", help: "give up after this long (default 10)")]
            + CommonOptions.network + [CommonOptions.server] + CommonOptions.output,
        positionals: [
            .init(name: "NAME", help: "the instance name"),
            .init(name: "TYPE", help: "the service type, such as _http._tcp"),
            .init(
                name: "DOMAIN", help: "local. (the default) by multicast DNS, any other by unicast DNS",
                isOptional: true),
        ],
        details: CommonOptions.formatsHelp + "\n\nExit status: 0 resolved; 1 not resolved in time; 2 bad arguments.")

    static func run(_ arguments: [String]) async -> Int32 {
        let service: Service
        let timeout: Duration
        let format: OutputFormat
        let parsed: ParsedArguments
        let scope: NetworkScope
        do {
            parsed = try spec.parse(arguments)
            let domain = try CommonOptions.domain(named: parsed.positional("DOMAIN") ?? "local.")
            let type = try CommonOptions.serviceType(parsed.positional("TYPE") ?? "")
            service = Service(name: parsed.positional("NAME") ?? "", type: type, domain: domain)
            timeout = try BrowseOptions.seconds(parsed.value("--timeout") ?? "10", option: "--timeout")
            format = try CommonOptions.outputFormat(parsed)
            if domain != "local." {
                let configuration = try CommonOptions.resolverConfiguration(parsed)
                return await unicastResolve(service, timeout: timeout, configuration: configuration, format: format)
            }
            scope = try CommonOptions.applyNetworkScope(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        // The resolution itself waits, up to its timeout, for an interface to come.
        await CommonOptions.waitForInterface(scope, atMost: .zero)
        CommonOptions.warnAboutMembershipFailures()
        do {
            var interfaces = InterfaceDirectory(scope: scope)
            var resolved = try await CiaoResolver.resolve(service, timeout: timeout)
            // -4 / -6: the addresses of that family only, whichever family carried them.
            resolved.addresses = resolved.addresses.filter {
                scope.families.contains(NetworkScope.AddressFamily(ofAddress: $0))
            }
            OutputPrinter(format: format).print(
                .resolved(resolved, interfaces.info(for: resolved.service.interfaceIndex)))
            return 0
        } catch CiaoError.timedOut {
            CommandLineTool.printError(notResolved(service, within: timeout))
            return 1
        } catch  where CommandLineTool.isArgumentError(error) {
            return CommandLineTool.usageError("\(error)", spec: spec)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
    }

    /// Why `service` has no result. A name holding the escapes `avahi-browse -p` and `ciao browse
    /// -p` print (`Office\032Printer`) is resolved as written, backslashes and all, as `dns-sd -L`
    /// does; the message then names the plain form and how `-p` prints it.
    static func notResolved(_ service: Service, within timeout: Duration) -> String {
        let message = "\(service) was not resolved within \(timeout)"
        guard service.name.contains("\\"), hasOnlyDashPEscapes(service.name),
            let parsed = try? DomainName(parsing: service.name + "."), parsed.labelCount == 1,
            let label = parsed.labels.first,
            case let plain = String(decoding: label, as: UTF8.self), plain != service.name
        else { return message }
        return message
            + "; the name is taken as written: \"\(plain)\" is the name that -p prints as "
            + "\"\(ParsableFormatter.escapedName(plain))\""
    }

    /// Whether every backslash in `name` starts an escape that `-p` prints: `\DDD`, `\.` or `\\`.
    private static func hasOnlyDashPEscapes(_ name: String) -> Bool {
        var rest = Array(name.utf8)[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\") else { continue }
            if rest.first == UInt8(ascii: ".") || rest.first == UInt8(ascii: "\\") {
                rest = rest.dropFirst()
            } else if rest.prefix(3).count == 3, rest.prefix(3).allSatisfy({ (0x30...0x39).contains($0) }) {
                rest = rest.dropFirst(3)
            } else {
                return false
            }
        }
        return true
    }

    /// Resolves a service of a unicast DNS domain (wide-area DNS-SD).
    private static func unicastResolve(
        _ service: Service, timeout: Duration, configuration: ResolverConfiguration, format: OutputFormat
    ) async -> Int32 {
        let result: Result<ResolvedService, CiaoError>
        do {
            result = try await WideAreaBrowse(configuration: configuration).resolve(service, timeout: timeout)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        switch result {
        case .success(let resolved):
            OutputPrinter(format: format).print(.resolved(resolved, .unicastDNS))
            return 0
        case .failure(.timedOut):
            CommandLineTool.printError(notResolved(service, within: timeout))
            return 1
        case .failure(let error):
            CommandLineTool.printError("\(error)")
            return 1
        }
    }
}
