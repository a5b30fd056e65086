@testable import CiaoEngine
import CiaoWire
import Testing

/// The outbox alone: datagrams handed out once and in order, known as ours only once sent, and
/// the records they multicast handed back when they leave (RFC 6762 §6).
@Suite struct OutboxTests {
    private let start = Instant.zero + .seconds(10)
    private let interface = InterfaceID(1)

    private func datagram(_ bytes: [UInt8]) -> OutgoingDatagram {
        OutgoingDatagram(bytes: bytes, interface: interface, destination: .multicast(.v4), purpose: .announcement)
    }

    private func sent(_ name: String) -> SentRecord {
        let record = ResourceRecord(name: DomainName(name)!, ttl: 120, data: .a(IPv4Address(198, 18, 0, 1)))
        return SentRecord(interface: interface, family: .v4, key: RecordKey(record))
    }

    @Test func datagramsAreTakenOnceInOrder() {
        var outbox = Outbox()
        outbox.enqueue(datagram([1]))
        outbox.enqueue(datagram([2]))
        let first = outbox.take().map(\.bytes)
        let second = outbox.take()
        #expect(first == [[1], [2]] && second.isEmpty)
    }

    /// A datagram is ours from when the transport says it left, not from when it was made or
    /// taken, and its multicast records come back then, once.
    @Test func sendingLogsTheTakenDatagramsAndHandsBackTheirRecords() {
        var outbox = Outbox()
        outbox.enqueue(datagram([1, 2, 3]))
        outbox.noteMulticast(sent("a.local."))
        let beforeTake = outbox.wasSentLately([1, 2, 3], at: start)
        _ = outbox.take()
        // Made after the take: it goes with the next one.
        outbox.enqueue(datagram([4]))
        outbox.noteMulticast(sent("b.local."))
        let beforeSend = outbox.wasSentLately([1, 2, 3], at: start)
        let firstSent = outbox.noteSent(at: start)
        let afterSend = outbox.wasSentLately([1, 2, 3], at: start + .seconds(1))
        let notYetSent = outbox.wasSentLately([4], at: start + .seconds(1))
        let sentAgain = outbox.noteSent(at: start + .seconds(1))
        _ = outbox.take()
        let secondSent = outbox.noteSent(at: start + .seconds(2))
        let laterAfterSend = outbox.wasSentLately([4], at: start + .seconds(2))
        #expect(!beforeTake && !beforeSend && afterSend && !notYetSent && laterAfterSend)
        #expect(firstSent == [sent("a.local.")] && sentAgain.isEmpty && secondSent == [sent("b.local.")])
    }
}
