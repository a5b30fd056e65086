/// The engine's datagrams from when they are made until the transport says they left: queued
/// until ``take()``, then held until ``noteSent(at:)``, which logs them as sent, so that our own
/// multicast looped back by the kernel is known (``DropReason/ownMulticast``), and hands back the
/// records they multicast, whose times must move to when they left (RFC 6762 §6).
struct Outbox {
    private var queued: [OutgoingDatagram] = []
    /// The records multicast since ``take()``: those of the queued datagrams.
    private var multicastQueued: [SentRecord] = []
    /// The datagrams and multicast records ``take()`` last handed out, awaiting ``noteSent(at:)``.
    private var taken: [[UInt8]] = []
    private var multicastTaken: [SentRecord] = []
    private var sent = SentDatagramLog()

    /// Queues `datagram` to be sent.
    mutating func enqueue(_ datagram: OutgoingDatagram) {
        queued.append(datagram)
    }

    /// Notes a record the queued datagrams multicast.
    mutating func noteMulticast(_ record: SentRecord) {
        multicastQueued.append(record)
    }

    /// The queued datagrams, in order; they await ``noteSent(at:)`` from now on.
    mutating func take() -> [OutgoingDatagram] {
        multicastTaken = multicastQueued
        multicastQueued = []
        taken = queued.map(\.bytes)
        defer { queued = [] }
        return queued
    }

    /// Logs the datagrams last taken as sent at `time`; returns the records they multicast.
    mutating func noteSent(at time: Instant) -> [SentRecord] {
        for bytes in taken { sent.record(bytes, at: time) }
        taken = []
        defer { multicastTaken = [] }
        return multicastTaken
    }

    /// True when a datagram of exactly these bytes was sent within ``SentDatagramLog/lifetime``.
    mutating func wasSentLately(_ bytes: [UInt8], at now: Instant) -> Bool {
        sent.contains(bytes, at: now)
    }
}

/// A record multicast over one family of an interface, whose time ``MDNSEngine/noteSent(at:)`` sets.
struct SentRecord: Equatable {
    var interface: InterfaceID
    var family: IPFamily
    var key: RecordKey
}
