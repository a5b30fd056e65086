import CiaoWire

/// One outstanding question and its current attempt: the server, transport, message ID and the
/// attempt (a socket of its own, so a fresh source port) it went out on.
struct PendingQuery: Sendable {
    var question: Question
    /// Which attempt this is, counting over the servers round after round (`attempts` rounds).
    var attemptIndex = 0
    var attempt: Attempt
    var server: DNSServer
    var transport: Transport
    var messageID: UInt16
    /// When the current attempt gives up.
    var deadline: Duration
    /// What the last server said, reported when every attempt has failed.
    var lastError: UnicastDNSError?
}
