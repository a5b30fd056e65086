import Ciao

/// `ciao query NAME TYPE`: any record by multicast DNS, or by unicast DNS for a name outside
/// `local.`, once as `dig` prints it, or continuously as `dns-sd -Q` does.
enum QueryCommand {
    static let spec = CommandSpec(
        name: "query",
        summary: "Asks for records of a name and type: the answers once, or as they come and go.",
        options: [
            .init(
                names: ["-c", "--continuous"], value: nil,
                help: "report records as they come, change and go, until interrupted"),
            .init(
                names: ["--timeout"], value: "SECONDS",
                help: "give up (or, with -c, stop) after this long (default 5; -c none)"),
            CommonOptions.server,
        ] + CommonOptions.network + LookupPrinter.options,
        positionals: [
            .init(name: "NAME", help: "the name, such as alpha.local, _http._tcp.local or www.example.com"),
            .init(name: "TYPE", help: "A, AAAA, PTR, SRV, TXT, NSEC, HINFO, ANY, TYPE65 or a number"),
        ],
        details: """
            Output: each record as dig prints it, "NAME TTL IN TYPE DATA" separated by tabs, with
            "; INTERFACE" after it; types this tool does not parse print as \\# LENGTH HEX (RFC 3597).
            Once, every record that answers before answers pause for a quarter of a second is
            printed, for two seconds at least when they are shared (PTR). With -c each line starts
            with the time and Add, Upd (the record's data changed) or Rmv. When the name's
            responder says it has no record of TYPE (an NSEC record, RFC 6762 §6.1), the query
            ends at once with no such record; with -c an Add line shows TYPE with No Such Record
            for its data, as dns-sd -Q does. With --json one object per record per line; a denied
            type is the event noSuchRecord, with the NSEC in nsec.
            A name of two labels or more outside local. and the reverse zones (in-addr.arpa,
            ip6.arpa), such as www.example.com, is asked of the DNS servers of /etc/resolv.conf
            (or of --server) by unicast DNS, as dns-sd -Q asks it, and asked again at 80 % of its
            TTL with -c. Its records show interface any (a CNAME chain in the reply followed, the
            records at its end under their own name); the query ends once every type has its
            answer; NODATA or NXDOMAIN is no such record, with the zone's SOA in soa. When no
            server will answer (refused, or none within resolv.conf's timeout), the query ends
            then with the reason; with -c the reason is printed on standard error each round, and
            the question asked again.

            Exit status: 0 answered, or with -c interrupted or timed out; 1 no answer in time, no
            such record, or no server would answer; 2 bad arguments.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let name: String
        let type: DNSRecordType
        let timeout: Duration?
        let parsed: ParsedArguments
        let scope: NetworkScope
        do {
            parsed = try spec.parse(arguments)
            name = parsed.positional("NAME") ?? ""
            let typeText = parsed.positional("TYPE") ?? ""
            guard let known = DNSRecordType(typeText) else {
                throw ArgumentError(
                    "\"\(typeText)\" is not a record type: give a mnemonic such as AAAA, TYPE65 or a number")
            }
            type = known
            let continuous = parsed.has("--continuous")
            timeout = try (parsed.value("--timeout") ?? (continuous ? nil : "5")).map { (text) throws(ArgumentError) in
                try BrowseOptions.seconds(text, option: "--timeout")
            }
            scope = try CommonOptions.applyNetworkScope(parsed)
            try CommonOptions.useServer(parsed)
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        if CiaoResolver.asksMulticastDNS(name) {
            await CommonOptions.waitForInterface(scope, atMost: parsed.has("--continuous") ? nil : .zero)
            CommonOptions.warnAboutMembershipFailures()
        }
        let printer = LookupPrinter(format: LookupPrinter.format(parsed), scope: scope)
        guard parsed.has("--continuous") else {
            return await CommonOptions.lookUpEach([name], spec: spec) { name in
                for record in try await CiaoResolver.query(name: name, type: type, timeout: timeout!) {
                    printer.print(record)
                }
            } describingFailure: { name in
                "no \(type) record of \(name) answered within \(timeout!)"
            }
        }
        return await follow(name, type, until: timeout, printer: printer)
    }

    /// Prints the events of a session asking for `type` records of `name`, and each question no
    /// server would answer on standard error, until SIGINT or SIGTERM, or until `timeout`.
    private static func follow(
        _ name: String, _ type: DNSRecordType, until timeout: Duration?, printer: LookupPrinter
    ) async -> Int32 {
        enum Input {
            case event(RecordEvent)
            case questionFailed(CiaoError)
            case failed(any Error)
            case done
        }
        let (feed, sink) = AsyncStream<Input>.makeStream()
        let session = RecordQuerySession(name: name, type: type) { sink.yield(.questionFailed($0)) }
        let tasks = [
            Task {
                do {
                    for try await event in session.events { sink.yield(.event(event)) }
                } catch {
                    sink.yield(.failed(error))
                }
                sink.yield(.done)
            },
            Task {
                for await _ in SignalMonitor.interruptions() { sink.yield(.done) }
            },
            Task {
                guard let timeout else { return }
                try? await Task.sleep(for: timeout)
                sink.yield(.done)
            },
        ]
        defer {
            session.stop()
            for task in tasks { task.cancel() }
        }
        printer.printContinuousHeader()
        for await input in feed {
            switch input {
            case .event(let event): printer.print(event.record, change: event, askedName: name)
            case .questionFailed(let error): CommandLineTool.printError("\(type) records of \(name): \(error)")
            case .failed(let error) where CommandLineTool.isArgumentError(error):
                return CommandLineTool.usageError("\(error)", spec: spec)
            case .failed(let error):
                CommandLineTool.printError("\(error)")
                return 1
            case .done:
                return 0
            }
        }
        return 0
    }
}
