import Ciao
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `ciao explore`: a full-screen browser and publisher (avahi-discover's and the sample apps'
/// jobs) for a terminal, over ssh or tmux; it uses only the public `Ciao` API.
enum ExploreCommand {
    static let spec = CommandSpec(
        name: "explore",
        summary: "Browses and publishes interactively in the terminal, until q, SIGINT, SIGTERM or SIGHUP.",
        options: Array(CommonOptions.network.prefix(3)),
        positionals: [],
        details: """
            Browse view: the service types on the network; Enter lists a type's instances on each
            interface, and then one's host, port, addresses, TXT and when it was last seen; / filters
            types and instances by name as you type; r asks whether the instance shown is still
            there, and marks it gone ten seconds later unless it answers (for a device unplugged
            without goodbyes). Publish view (Tab): n publishes a demo service
            (name, type, port or a port Ciao holds, TXT), e edits its TXT, s stops and restarts it,
            x removes it. q quits; every publication is withdrawn with goodbyes and the terminal is
            restored, also on SIGINT, SIGTERM and SIGHUP. While no network interface can be used,
            the status line says "waiting for a network interface…". Colour unless NO_COLOR is set.

            Exit status: 0 quit or interrupted; 1 not a terminal; 2 bad arguments.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let scope: NetworkScope
        do {
            scope = try CommonOptions.applyNetworkScope(try spec.parse(arguments))
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        let terminal: RawTerminal
        do {
            guard isatty(STDIN_FILENO) == 1 else { throw TerminalError.notATerminal }
            terminal = try RawTerminal(descriptor: STDOUT_FILENO)
        } catch {
            CommandLineTool.printError("\(error)")
            return 1
        }
        var session = ExploreSession(terminal: terminal, scope: scope, styled: TerminalStyle.current().usesColor)
        await session.run()
        return 0
    }
}
