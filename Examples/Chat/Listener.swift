import Foundation

/// The chat's TCP listening socket, with its accept loop on a dedicated thread.
///
/// Connections arrive on ``connections``; ``stop()`` shuts the socket down, which ends the loop,
/// closes the socket and finishes the stream.
final class Listener: Sendable {
    /// The port peers connect to (the kernel's choice when 0 was asked for).
    let port: UInt16
    /// The accepted connections, in order.
    let connections: AsyncStream<Socket>
    private let socket: Socket

    /// Listens on `port` (0: an ephemeral port).
    init(port: UInt16) throws(SocketError) {
        let socket = try Socket.listen(port: port)
        self.socket = socket
        self.port = socket.localPort
        let (connections, sink) = AsyncStream<Socket>.makeStream()
        self.connections = connections
        Thread.detachNewThread {
            while let connection = socket.accept() {
                sink.yield(connection)
            }
            sink.finish()
            socket.close()
        }
    }

    /// Stops accepting; connections already accepted are unaffected.
    func stop() {
        socket.shutdown()
    }
}
