import Ciao

/// What `resolve-host` and `resolve-address` share: their arguments (names or addresses, a
/// timeout, the network options), and a lookup of each in turn, as `avahi-resolve` does.
enum LookupRun {
    /// What a run looks up.
    enum Target {
        /// Host names, in `local.` or asked of unicast DNS.
        case hostName
        /// Addresses, whose reverse names multicast DNS asks.
        case address
    }

    /// Parses `arguments` by `spec`, whose variadic positional `each` names the targets to look
    /// up, then runs `lookUp` for each (see ``CommonOptions/lookUpEach(_:spec:_:describingFailure:)``),
    /// first saying when no interface can carry those that multicast DNS asks.
    static func run(
        _ arguments: [String], spec: CommandSpec, each: String, of target: Target,
        lookUp: (String, Duration, NetworkScope, LookupPrinter) async throws -> Void,
        describingFailure: @escaping (String, Duration) -> String
    ) async -> Int32 {
        let targets: [String]
        let timeout: Duration
        let parsed: ParsedArguments
        let scope: NetworkScope
        do {
            parsed = try spec.parse(arguments)
            targets = parsed.variadic(each)
            guard !targets.isEmpty else { throw ArgumentError("give a \(each)") }
            timeout = try BrowseOptions.seconds(parsed.value("--timeout") ?? "5", option: "--timeout")
            scope = try CommonOptions.applyNetworkScope(parsed)
            try CommonOptions.useServer(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        if target == .address || targets.contains(where: { CiaoResolver.asksMulticastDNS($0, isHostName: true) }) {
            await CommonOptions.waitForInterface(scope, atMost: .zero)
            CommonOptions.warnAboutMembershipFailures()
        }
        let printer = LookupPrinter(format: LookupPrinter.format(parsed), scope: scope)
        return await CommonOptions.lookUpEach(targets, spec: spec) { target in
            try await lookUp(target, timeout, scope, printer)
        } describingFailure: { target in
            describingFailure(target, timeout)
        }
    }
}
