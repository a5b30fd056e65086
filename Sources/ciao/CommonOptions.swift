import Ciao
import CiaoTransport
import CiaoUnicastDNS
import CiaoWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Options several subcommands share: where to look (interfaces, families, domain) and how to
/// print (for people, `avahi-browse -p` lines, JSON lines).
enum CommonOptions {
    static let network: [CommandSpec.Option] = [
        .init(
            names: ["-i", "--interface"], value: "NAME", help: "use only this interface (repeatable)", repeatable: true),
        .init(names: ["-4"], value: nil, help: "use IPv4 only"),
        .init(names: ["-6"], value: nil, help: "use IPv6 only"),
        .init(
            names: ["-v", "--verbose"], value: nil,
            help: "log on standard error what Ciao does on the network, and the counters at the end"),
    ]

    /// `browse -t` and `types -t`: list what is there and exit (see
    /// ``waitForInterface(_:terminating:)`` for the wait it allows).
    static let terminate = CommandSpec.Option(
        names: ["-t", "--terminate"], value: nil,
        help: "exit once the first answers have settled (1 if no interface comes within 10 s)")

    static let domain = CommandSpec.Option(
        names: ["-d", "--domain"], value: "DOMAIN",
        help: "the domain: local. by multicast DNS, any other by unicast DNS")

    /// The DNS server a domain other than `local.` is asked through.
    static let server = CommandSpec.Option(
        names: ["--server"], value: "ADDR[#PORT]",
        help: "the DNS server for a domain other than local. (default: those of /etc/resolv.conf)")

    static let output: [CommandSpec.Option] = [
        .init(names: ["-p", "--parsable"], value: nil, help: "print avahi-browse -p lines (fields split by ;)"),
        .init(names: ["--json"], value: nil, help: "print one JSON object per event per line"),
        .init(
            names: ["-k", "--no-db-lookup"], value: nil,
            help: "with -p, print service types as they are, not avahi's descriptions"),
    ]

    static let formatsHelp = """
        Output: for people by default (colour on a terminal unless NO_COLOR is set); with -p the
        lines of avahi-browse -p: "+;IFACE;IPv4;NAME;TYPE;DOMAIN", "-;..." and
        "=;IFACE;IPv4;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;\\"TXT\\" ..." with names escaped as avahi
        does (\\DDD) and the types avahi's database knows given by its descriptions ("Web Site"; -k
        prints "_http._tcp"); with --json one object per event per line, with an ISO 8601 "time";
        a resolved service's "txt" holds each key once (its first value, RFC 6763 §6.4) and
        "txtData" the whole TXT record in hex, every string in wire order.
        """

    /// Restricts the process's mDNS runtime to the interfaces and families asked for; an
    /// interface this host lacks is a bad argument. With `-p` (avahi-browse's lines, one per
    /// protocol a record came over) each family's queries list only its own known answers.
    static func applyNetworkScope(_ arguments: ParsedArguments) throws(ArgumentError) -> NetworkScope {
        let interfaces = arguments.all("--interface")
        var families: Set<NetworkScope.AddressFamily> = []
        if arguments.has("-4") { families.insert(.ipv4) }
        if arguments.has("-6") { families.insert(.ipv6) }
        var scope = NetworkScope(
            interfaces: interfaces.isEmpty ? nil : Set(interfaces),
            families: families.isEmpty ? [.ipv4, .ipv6] : families)
        scope.knownAnswersPerFamily = arguments.has("--parsable")
        do {
            try NetworkScope.use(scope)
        } catch {
            throw ArgumentError("\(error)")
        }
        if arguments.has("--verbose") { Verbose.start() }
        return scope
    }

    /// While `scope` has no usable interface, says "waiting for a network interface…" on
    /// standard error, as avahi's tools wait for their daemon, and waits for one: until it comes
    /// when `limit` is nil, else at most `limit` (`.zero` for a command whose library call waits
    /// itself). Returns whether one is there: false at the limit or once the task is cancelled;
    /// true when the interfaces cannot be read, a failure the runtime meets and reports too.
    @discardableResult
    static func waitForInterface(_ scope: NetworkScope, atMost limit: Duration?) async -> Bool {
        guard !hasInterfaceOrCannotTell(scope) else { return true }
        var everyFamily = scope
        everyFamily.families = [.ipv4, .ipv6]
        let usableOverEither = (try? InterfaceScanner.current(filter: everyFamily.interfaceFilter).map(\.name)) ?? []
        let hint = familyHint(scope, usableOverEither: usableOverEither).map { " (\($0))" } ?? ""
        CommandLineTool.printError("waiting for a network interface…" + hint)
        let deadline = limit.map { ContinuousClock.now + $0 }
        while !Task.isCancelled, deadline.map({ ContinuousClock.now < $0 }) ?? true {
            try? await Task.sleep(for: .milliseconds(250))
            if hasInterfaceOrCannotTell(scope) { return true }
        }
        return false
    }

    /// For `browse` and `types`: waits for an interface until one comes, or, with `-t` (list
    /// what is there and exit), at most ``interfaceWaitBeforeTerminating``, then says
    /// ``CiaoError/noUsableInterface`` on standard error. Returns whether one is there.
    static func waitForInterface(_ scope: NetworkScope, terminating: Bool) async -> Bool {
        guard terminating else { return await waitForInterface(scope, atMost: nil) }
        guard await waitForInterface(scope, atMost: interfaceWaitBeforeTerminating) else {
            CommandLineTool.printError("\(CiaoError.noUsableInterface)")
            return false
        }
        return true
    }

    /// How long `browse -t` and `types -t` wait for an interface before they fail.
    static let interfaceWaitBeforeTerminating = Duration.seconds(10)

    /// Whether `scope` has an interface that is up, connected and able to multicast now.
    static func hasInterface(_ scope: NetworkScope) throws(TransportError) -> Bool {
        try !InterfaceScanner.current(filter: scope.interfaceFilter).isEmpty
    }

    /// Why `scope`, limited to one family (`-4`, `-6`), finds no interface when the interfaces
    /// `usableOverEither` (its interfaces, over both families) would serve over the other: "nlv0
    /// has no IPv6 address; -6 uses IPv6 alone"; nil otherwise.
    static func familyHint(_ scope: NetworkScope, usableOverEither names: [String]) -> String? {
        guard scope.families.count == 1, let family = scope.families.first, !names.isEmpty else { return nil }
        let (name, flag) = family == .ipv4 ? ("IPv4", "-4") : ("IPv6", "-6")
        let list = names.sorted().joined(separator: ", ")
        return "\(list) \(names.count == 1 ? "has" : "have") no \(name) address; \(flag) uses \(name) alone"
    }

    /// ``hasInterface(_:)``, or true when the interfaces cannot be read, after saying why on
    /// standard error: the runtime meets the same failure and reports it.
    private static func hasInterfaceOrCannotTell(_ scope: NetworkScope) -> Bool {
        do {
            return try hasInterface(scope)
        } catch {
            CommandLineTool.printError("\(error)")
            return true
        }
    }

    /// From now until the command ends, says on standard error when the runtime cannot join the
    /// mDNS group on an interface, once per interface and family (again if it fails anew).
    static func warnAboutMembershipFailures() {
        Task.detached {
            var told: Set<NetworkScope.MembershipFailure> = []
            for await changed in NetworkScope.membershipFailureChanges() {
                let failures = Set(changed)
                for failure in failures.subtracting(told).sorted(by: { $0.interface < $1.interface }) {
                    let family = failure.family == .ipv4 ? "IPv4" : "IPv6"
                    CommandLineTool.printError(
                        "warning: multicast DNS over \(family) is not heard on \(failure.interface): \(failure.reason)")
                }
                told = failures
            }
        }
    }

    /// Runs `lookUp` for each argument in turn, as `avahi-resolve` does: a lookup that times out
    /// is reported with `describingFailure`, one its responder denies as having no such record,
    /// and the others still run. Returns the exit status: 0
    /// when all succeeded, 1 when one failed, 2 (with the usage line) for an argument the library refuses.
    static func lookUpEach(
        _ arguments: [String], spec: CommandSpec, _ lookUp: (String) async throws -> Void,
        describingFailure: (String) -> String
    ) async -> Int32 {
        var status: Int32 = 0
        for argument in arguments {
            do {
                try await lookUp(argument)
            } catch CiaoError.timedOut {
                CommandLineTool.printError(describingFailure(argument))
                status = 1
            } catch CiaoError.dnsService(CiaoError.Code.noSuchRecord) {
                CommandLineTool.printError(
                    "\(argument): no such record: the name has none of the records asked for, as its responder"
                        + " (an NSEC record, RFC 6762 §6.1) or its zone's DNS server (RFC 2308) says")
                status = 1
            } catch  where CommandLineTool.isArgumentError(error) {
                return CommandLineTool.usageError("\(error)", spec: spec)
            } catch {
                CommandLineTool.printError("\(error)")
                status = 1
            }
        }
        return status
    }

    static func outputFormat(_ arguments: ParsedArguments) throws(ArgumentError) -> OutputFormat {
        switch (arguments.has("--parsable"), arguments.has("--json")) {
        case (true, true): throw ArgumentError("choose one of --parsable and --json")
        case (true, false): return .parsable(describingTypes: !arguments.has("--no-db-lookup"))
        case (false, true): return .json
        case (false, false): return .human(TerminalStyle.current())
        }
    }

    /// The domain given with --domain, `local.` when none is; with a trailing dot. A name that is
    /// not a domain name is refused up front.
    static func domain(_ arguments: ParsedArguments) throws(ArgumentError) -> String {
        try domain(named: arguments.value("--domain") ?? "local.")
    }

    /// `text` as a domain: `local.`, or a unicast DNS domain with its trailing dot.
    static func domain(named text: String) throws(ArgumentError) -> String {
        let domain = Service.normalisedDomain(text)
        if Service.isLocalDomain(domain) { return domain }
        do {
            return try DomainName(parsing: domain).description
        } catch {
            throw ArgumentError("domain \"\(text)\" is not a domain name: \(error)")
        }
    }

    /// With `--server`, makes the process ask that server for names outside `local.`.
    static func useServer(_ arguments: ParsedArguments) throws(ArgumentError) {
        guard arguments.value("--server") != nil else { return }
        guard SystemResolver.use(servers: try resolverConfiguration(arguments).servers) else {
            throw ArgumentError("--server came after this process had asked unicast DNS already")
        }
    }

    /// Where to ask for a domain other than `local.`: the --server given, else resolv.conf's.
    static func resolverConfiguration(_ arguments: ParsedArguments) throws(ArgumentError) -> ResolverConfiguration {
        if let text = arguments.value("--server") {
            guard let server = DNSServer(parsing: text) else {
                throw ArgumentError("--server needs an IPv4 or IPv6 address with an optional #PORT, not \"\(text)\"")
            }
            return ResolverConfiguration(servers: [server])
        }
        do {
            return try ResolverConfiguration.system()
        } catch {
            throw ArgumentError("\(error)")
        }
    }

    /// A service type argument, its parse error reported as a bad argument: any type a peer may
    /// publish (RFC 6335 names and longer ones).
    static func serviceType(_ text: String) throws(ArgumentError) -> ServiceType {
        do {
            return try ServiceType(observed: text)
        } catch {
            throw ArgumentError("\(error)")
        }
    }
}
