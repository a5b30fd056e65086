import Foundation

/// The command line: `Chat [--nick NAME] [--port N] [--interface NAME]...`.
struct ChatOptions {
    /// The nickname shown to others; also the instance name the chat is published under.
    var nick: String
    /// The TCP port to listen on; 0 lets the kernel choose an ephemeral one.
    var port: UInt16 = 0
    /// The interfaces mDNS may use (``NetworkScope``); empty means every multicast interface.
    var interfaces: Set<String> = []

    static let usage = """
        usage: Chat [--nick NAME] [--port N] [--interface NAME]...

        A chat room on the local network: finds the other instances with Bonjour (_ciaochat._tcp),
        connects to them over TCP and relays each line typed on standard input to all of them.

          --nick NAME        the name others see (default: the host name)
          --port N           the TCP port to listen on (default: an ephemeral port)
          --interface NAME   use only this network interface for mDNS (repeatable)

        Output: "ready NAME PORT", "joined NICK", "left NICK" and "NICK: TEXT", one per line.
        EOF on standard input, SIGINT or SIGTERM ends it.
        """

    /// Parses `arguments` (without the program name).
    /// - Throws: ``UsageError`` for an unknown option, a missing value or a bad port.
    init(arguments: [String]) throws(UsageError) {
        nick = Self.defaultNick()
        var remaining = arguments[...]
        func value(of option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--nick":
                nick = try value(of: argument)
                guard !nick.isEmpty, nick.utf8.count <= 63 else {
                    throw UsageError("the nickname must be 1 to 63 bytes of UTF-8 (it is the mDNS instance name)")
                }
            case "--port":
                let text = try value(of: argument)
                guard let port = UInt16(text) else { throw UsageError("--port \(text): not a port number 0–65535") }
                self.port = port
            case "--interface":
                interfaces.insert(try value(of: argument))
            case "-h", "--help":
                throw UsageError(nil)
            default:
                throw UsageError("unknown argument \(argument)")
            }
        }
    }

    /// The host name up to its first dot, as mDNS would use it.
    private static func defaultNick() -> String {
        let name = ProcessInfo.processInfo.hostName.prefix { $0 != "." }
        return name.isEmpty ? "chat" : String(name)
    }
}

/// A command-line mistake; `message` nil means that help was asked for.
struct UsageError: Error {
    var message: String?

    init(_ message: String?) {
        self.message = message
    }
}
