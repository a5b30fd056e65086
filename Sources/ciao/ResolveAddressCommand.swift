import Ciao

/// `ciao resolve-address ADDRESS...`: the host name each address maps back to, as
/// `avahi-resolve -a` prints them.
enum ResolveAddressCommand {
    static let spec = CommandSpec(
        name: "resolve-address",
        summary: "Resolves IPv4 and IPv6 addresses to host names (reverse PTR records).",
        options: [.init(names: ["--timeout"], value: "SECONDS", help: "give up after this long (default 5)")]
            + CommonOptions.network + LookupPrinter.options,
        positionals: [.init(name: "ADDRESS", help: "an address such as 192.0.2.7 or fe80::1%eth0", isVariadic: true)],
        details: """
            Output: a line per address, "ADDRESS<TAB>NAME"; with --json one object per line.

            Exit status: 0 every address resolved; 1 an address not resolved in time, or whose
            reverse name's responder says it has no PTR record (NSEC); 2 bad arguments.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        await LookupRun.run(arguments, spec: spec, each: "ADDRESS", of: .address) { address, timeout, _, printer in
            let hostName = try await CiaoResolver.resolveAddress(address, timeout: timeout)
            printer.print(hostName: hostName, of: address)
        } describingFailure: { address, timeout in
            "\(address) was not resolved within \(timeout)"
        }
    }
}
