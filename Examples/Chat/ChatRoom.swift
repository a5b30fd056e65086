import Ciao

/// The peers this instance is connected to, and the rule that decides who dials whom.
///
/// **The dial rule.** Each pair of instances keeps exactly one TCP connection, opened by the
/// instance whose published service name is the smaller (Swift `String` `<`, the same answer on
/// both sides). The other one only accepts. Service names are unique on the link — mDNS probing
/// renames a duplicate to `Name (2)` — so the two always agree. As a safety net, a second
/// connection greeting with a service name that is already connected is closed.
///
/// A connection counts as *joined* once the peer's ``Greeting`` has arrived (`joined NICK`), and
/// *left* when it closes for any reason (`left NICK`): the peer hung up, its service was removed,
/// or sending to it failed.
actor ChatRoom {
    /// One connection, from the moment it opens; `greeting` is nil until the peer has greeted.
    private struct Peer {
        let connection: PeerConnection
        var greeting: Greeting?
    }

    private let nick: String
    /// Our published service name: never dialed, and the left side of the dial rule.
    private var ownName: String
    private var peers: [Int: Peer] = [:]
    private var nextPeerID = 0
    /// Service names being dialed now, so a repeated `resolved` event does not dial twice.
    private var dialing: Set<String> = []

    init(nick: String, ownName: String) {
        self.nick = nick
        self.ownName = ownName
    }

    /// Our publication was renamed after a conflict.
    func rename(to name: String) {
        ownName = name
    }

    /// The browser resolved another instance: dial it if the dial rule says so and we have no
    /// connection to it yet. Reported again on every change of its addresses, which retries a
    /// failed dial.
    func discovered(_ service: ResolvedService) {
        let name = service.service.name
        guard name != ownName, ownName < name else { return }  // ourselves, or it dials us
        guard !dialing.contains(name), !isConnected(to: name) else { return }
        dialing.insert(name)
        Task {
            let result = await Socket.connect(toAnyOf: service.addresses, port: service.port)
            self.dialed(name, result: result)
        }
    }

    /// The browser saw an instance go: hang up on it (its connection then reports `left`).
    func lost(serviceName: String) {
        dialing.remove(serviceName)
        for peer in peers.values where peer.greeting?.serviceName == serviceName {
            peer.connection.close()
        }
    }

    /// Someone connected to our listener.
    func accepted(_ socket: Socket) {
        adopt(socket)
    }

    /// Sends `text`, typed here, to every joined peer as `NICK: TEXT`.
    func broadcast(_ text: String) {
        for peer in peers.values where peer.greeting != nil {
            if !peer.connection.send(line: "\(nick): \(text)") {
                peer.connection.close()
            }
        }
    }

    /// Hangs up on everyone (at shutdown).
    func leave() {
        for peer in peers.values { peer.connection.close() }
    }

    // MARK: Connections

    private func isConnected(to serviceName: String) -> Bool {
        peers.values.contains { $0.greeting?.serviceName == serviceName }
    }

    private func dialed(_ serviceName: String, result: Result<Socket, SocketError>) {
        let stillWanted = dialing.remove(serviceName) != nil  // not removed meanwhile
        switch result {
        case .success(let socket) where stillWanted && !isConnected(to: serviceName):
            adopt(socket)
        case .success(let socket):
            socket.close()
        case .failure(let error):
            Console.diagnose("cannot connect to \(serviceName): \(error)")
        }
    }

    /// Greets a new connection and reads it until it closes.
    private func adopt(_ socket: Socket) {
        let connection = PeerConnection(socket: socket)
        let id = nextPeerID
        nextPeerID += 1
        peers[id] = Peer(connection: connection)
        connection.send(line: Greeting(serviceName: ownName, nick: nick).line)
        Task {
            for await line in connection.lines {
                self.received(line, from: id)
            }
            self.closed(id)
        }
    }

    private func received(_ line: String, from id: Int) {
        guard let peer = peers[id] else { return }
        guard let greeting = peer.greeting else {
            guard let greeting = Greeting(line: line), greeting.serviceName != ownName else {
                Console.diagnose("a connection did not greet as a chat peer; closing it")
                peer.connection.close()
                return
            }
            if isConnected(to: greeting.serviceName) {
                peer.connection.close()  // a second connection to the same peer
                return
            }
            peers[id]?.greeting = greeting
            Console.print("joined \(greeting.nick)")
            return
        }
        // A message is "NICK: TEXT"; it is shown under the nick the peer greeted with.
        let prefix = "\(greeting.nick): "
        let text = line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line
        Console.print("\(greeting.nick): \(text)")
    }

    private func closed(_ id: Int) {
        if let peer = peers.removeValue(forKey: id), let greeting = peer.greeting {
            Console.print("left \(greeting.nick)")
        }
    }
}
