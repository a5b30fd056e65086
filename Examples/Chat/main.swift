// Chat: a chat room on the local network — Bonjour discovery paired with plain TCP sockets.
//
// Each instance listens on a TCP port of its own, publishes it as a `_ciaochat._tcp` service
// with Ciao (TXT `nick=NAME`, `v=1`), browses for the other instances, connects to each of them
// and relays every line typed on standard input to all of them. See ChatApp.swift for the
// flow and ChatRoom.swift for who connects to whom.
//
//   Chat [--nick NAME] [--port N] [--interface NAME]...
//
// Output, one line each: `ready NAME PORT` once published, `joined NICK` / `left NICK` as
// peers come and go, and `NICK: TEXT` for each message received.

import Glibc

let options: ChatOptions
do {
    options = try ChatOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message {
        Console.diagnose(message)
        Console.diagnose("see Chat --help")
        exit(2)
    }
    Console.print(ChatOptions.usage)
    exit(0)
}
exit(await ChatApp(options: options).run())
