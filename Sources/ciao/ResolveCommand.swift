import Ciao

/// `ciao resolve NAME TYPE [DOMAIN]`: host, port, addresses and TXT of one service.
enum ResolveCommand {
    static let spec = CommandSpec(
        name: "resolve",
        summary: "Resolves one service to its host, port, addresses and TXT record.",
        options: [.init(names: ["--timeout"], value: "SECONDS", help: "give up after this long (default 10)")]
            + CommonOptions.network + CommonOptions.output,
        positionals: [
            .init(name: "NAME", help: "the instance name"),
            .init(name: "TYPE", help: "the service type, such as _http._tcp"),
            .init(name: "DOMAIN", help: "local. (the default)", isOptional: true),
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
            try CommonOptions.checkLocal(parsed.positional("DOMAIN") ?? "local.")
            let type = try CommonOptions.serviceType(parsed.positional("TYPE") ?? "")
            service = Service(name: parsed.positional("NAME") ?? "", type: type)
            timeout = try BrowseOptions.seconds(parsed.value("--timeout") ?? "10", option: "--timeout")
            format = try CommonOptions.outputFormat(parsed)
            scope = try CommonOptions.applyNetworkScope(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", usage: spec.usage)
        }
        // The resolution itself waits, up to its timeout, for an interface to come.
        await CommonOptions.waitForInterface(scope, untilPresent: false)
        CommonOptions.warnAboutMembershipFailures()
        do {
            var interfaces = InterfaceDirectory(scope: scope)
            var resolved = try await CiaoResolver.resolve(service, timeout: timeout)
            // -4 / -6: the addresses of that family only, whichever family carried them.
            resolved.addresses = resolved.addresses.filter { address in
                scope.families.contains(address.contains(":") ? .ipv6 : .ipv4)
            }
            OutputPrinter(format: format).print(
                .resolved(resolved, interfaces.info(for: resolved.service.interfaceIndex)))
            return 0
        } catch CiaoError.timedOut {
            CommandLineTool.printError("\(service) was not resolved within \(timeout)")
            return 1
        } catch  where CommandLineTool.isArgumentError(error) {
            return CommandLineTool.usageError("\(error)", usage: spec.usage)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
    }
}
