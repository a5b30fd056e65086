import Ciao

/// `ciao resolve-host NAME...`: the addresses of hosts, as `avahi-resolve -n` prints them: in
/// `local.` by multicast DNS, elsewhere by unicast DNS.
enum ResolveHostCommand {
    static let spec = CommandSpec(
        name: "resolve-host",
        summary: "Resolves host names to their addresses (A and AAAA records).",
        options: [
            .init(names: ["--timeout"], value: "SECONDS", help: "give up after this long (default 5)"),
            CommonOptions.server,
        ] + CommonOptions.network + LookupPrinter.options,
        positionals: [
            .init(
                name: "NAME", help: "a host name such as raspberrypi, raspberrypi.local or printer.example.com",
                isVariadic: true)
        ],
        details: """
            Output: a line per address, "NAME<TAB>ADDRESS", IPv4 first; an IPv6 link-local address
            carries its interface as %zone. -4 or -6 asks for that family only. With --json one
            object per address per line. Every address that answers before answers pause for a
            quarter of a second is printed; while only IPv6 addresses have come, for two seconds
            at least (a responder answers the same question at most once a second), unless the
            host's responder says it has no IPv4 address (an NSEC record, RFC 6762 §6.1). When it
            says it has no address of the families asked for, the name fails at once. A name of
            one label is in local.; a name of two labels or more in another domain is asked of the
            DNS servers of /etc/resolv.conf (or of --server) by unicast DNS, its addresses printed
            once both families have their answer; it fails at once on NODATA for both families
            or NXDOMAIN.

            Exit status: 0 every name resolved; 1 a name not resolved in time, or without an
            address of the families asked for; 2 bad arguments.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        await LookupRun.run(arguments, spec: spec, each: "NAME", of: .hostName) { name, timeout, scope, printer in
            let addresses = try await CiaoResolver.resolveHost(name, families: scope.families, timeout: timeout)
            for address in addresses { printer.print(address, of: CiaoResolver.qualifiedHostName(name)) }
        } describingFailure: { name, timeout in
            "\(name) was not resolved within \(timeout)"
        }
    }
}
