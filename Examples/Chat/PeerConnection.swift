import Foundation

/// One TCP connection to another chat instance, carrying UTF-8 text lines ending in `\n`.
///
/// A dedicated thread blocks in `recv` and delivers each complete line on ``lines``; the stream
/// finishes when the peer closes the connection, on an error, or after ``close()``. Sending
/// never blocks (see ``Socket/send(_:)``).
///
/// The wire protocol is two kinds of line:
/// - first, from each side, a greeting: ``Greeting`` — the sender's published service name and nick;
/// - then messages: `NICK: TEXT`.
final class PeerConnection: Sendable {
    /// The lines received, without their line ends.
    let lines: AsyncStream<String>
    private let socket: Socket

    /// The longest line accepted; a peer that sends more without a line end is dropped.
    static let maximumLineLength = 64 * 1024

    init(socket: Socket) {
        self.socket = socket
        let (lines, sink) = AsyncStream<String>.makeStream()
        self.lines = lines
        sink.onTermination = { _ in socket.shutdown() }  // the consumer went away: hang up
        Thread.detachNewThread {
            Self.readLines(from: socket, into: sink)
            sink.finish()
            socket.close()
        }
    }

    /// Sends one line (a line end is added). False if the connection is gone or congested.
    @discardableResult
    func send(line: String) -> Bool {
        socket.send(Array((line + "\n").utf8))
    }

    /// Hangs up; ``lines`` finishes soon after.
    func close() {
        socket.shutdown()
    }

    /// The reading thread's loop: splits the byte stream into lines until end-of-file.
    private static func readLines(from socket: Socket, into sink: AsyncStream<String>.Continuation) {
        var pending: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = socket.receive(into: chunk)
            guard count > 0 else { return }
            pending.append(contentsOf: chunk.prefix(count))
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = pending[..<end]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                sink.yield(String(decoding: line, as: UTF8.self))
                pending.removeSubrange(...end)
            }
            guard pending.count <= maximumLineLength else { return }
        }
    }
}

/// The first line each side sends: `ciaochat/1<TAB>SERVICE NAME<TAB>NICK`.
///
/// The service name is what the sender is published as, so the receiver can match the
/// connection to the service its browser reports, keep one connection per peer, and drop it
/// when that service is removed.
struct Greeting: Equatable {
    var serviceName: String
    var nick: String

    private static let tag = "ciaochat/1"

    var line: String {
        [Self.tag, Self.clean(serviceName), Self.clean(nick)].joined(separator: "\t")
    }

    init(serviceName: String, nick: String) {
        self.serviceName = serviceName
        self.nick = nick
    }

    /// Parses a greeting line; nil if it is not one.
    init?(line: String) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == Self.tag, !fields[2].isEmpty else { return nil }
        serviceName = String(fields[1])
        nick = String(fields[2])
    }

    /// Tabs and line ends would break the framing; they become spaces.
    private static func clean(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
