import CiaoWire

/// One service registered in a unicast DNS zone by TSIG-signed DNS UPDATE (RFC 6763 §4–§6 over
/// RFC 2136, RFC 8945 and RFC 9664), without I/O: calls and received datagrams in, datagrams to
/// send and events out.
///
/// One update is in flight at a time, retransmitted unchanged until its reply comes; a TXT
/// change, a lease refresh or the deregistration asked for meanwhile follows it, in order.
public struct WideAreaRegistration: Sendable {
    /// A moment: `monotonic` on the clock the timers use, `unixSeconds` for TSIG's time signed.
    public struct Time: Hashable, Sendable {
        public var monotonic: Duration
        public var unixSeconds: UInt64

        public init(monotonic: Duration, unixSeconds: UInt64) {
            self.monotonic = monotonic
            self.unixSeconds = unixSeconds
        }
    }

    /// What became of the registration.
    public enum Event: Hashable, Sendable {
        /// The records are in the zone under `name`; `lease` is what the server granted.
        case registered(name: String, lease: UInt32?)
        /// `name` is taken in the zone: call ``rename(to:at:)`` with the next name (renaming is on).
        case nameInUse(String)
        case txtUpdated
        /// The lease was renewed.
        case refreshed(lease: UInt32?)
        /// Exactly this registration's records are gone from the zone.
        case deregistered
        /// The registration has stopped; nothing more is sent.
        case failed(RegistrationError)
    }

    /// What to do: send a datagram to the server, or report an event.
    public enum Output: Hashable, Sendable {
        case send([UInt8])
        case event(Event)
    }

    /// The waits before each retransmission of an unanswered update, then the last wait before
    /// it fails: 15 s in all.
    public static let retransmissionWaits: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8)]
    /// The UDP payload size the updates' OPT record offers (RFC 6891).
    public static let udpPayloadSize: UInt16 = 1232

    public let zone: DomainName
    public private(set) var records: ServiceRegistrationRecords
    /// The server, as errors name it.
    public let server: String
    private let key: TSIGKey
    private let allowsRenaming: Bool
    private let requestedLease: UInt32?
    private var state: State = .idle
    private var inFlight: InFlight?
    private var queue: [Operation] = []
    private var refreshDeadline: Duration?

    enum State: Hashable, Sendable {
        case idle, registering, registered, waitingForName, deregistered, failed
    }

    enum Operation: Hashable, Sendable {
        case register, refresh
        case updateTXT(TXTData)
        case deregister
    }

    struct InFlight: Hashable, Sendable {
        var operation: Operation
        var id: UInt16
        var datagram: [UInt8]
        var requestMAC: [UInt8]
        var sends: Int
        var deadline: Duration
        /// The last failure of the transport while this update was in flight.
        var transportFailure: String?
    }

    /// A registration of `records` in `zone` through `server`, signed with `key`, asking for
    /// `requestedLease` seconds (nil: no Update Lease option).
    public init(
        records: ServiceRegistrationRecords, zone: DomainName, server: String, key: TSIGKey, allowsRenaming: Bool,
        requestedLease: UInt32? = 7200
    ) {
        self.records = records
        self.zone = zone
        self.server = server
        self.key = key
        self.allowsRenaming = allowsRenaming
        self.requestedLease = requestedLease
    }

    /// When ``advance(to:)`` is next due: a retransmission, a failure or a lease refresh.
    public var nextDeadline: Duration? {
        [inFlight?.deadline, refreshDeadline].compactMap { $0 }.min()
    }

    /// Sends the registration: its records, with the prerequisite that the instance name is not
    /// in use (RFC 2136 §2.4.5), so that it never overwrites another registrant's service.
    public mutating func start(at time: Time) -> [Output] {
        guard state == .idle else { return [] }
        state = .registering
        return enqueue(.register, at: time)
    }

    /// After ``Event/nameInUse(_:)``: registers again under `name`.
    public mutating func rename(to name: String, at time: Time) -> [Output] {
        guard state == .waitingForName else { return [] }
        do throws(NameError) {
            records = try records.renamed(to: name)
        } catch {
            return fail(.invalidUpdate("the name \"\(name)\": \(error)"))
        }
        state = .registering
        return enqueue(.register, at: time)
    }

    /// Replaces the TXT RRset of the instance (RFC 2136 §2.5.2 then §2.5.1, in one update).
    public mutating func updateTXT(_ txt: TXTData, at time: Time) -> [Output] {
        guard state == .registering || state == .registered else { return [] }
        return enqueue(.updateTXT(txt), at: time)
    }

    /// Deletes exactly this registration's records (RFC 2136 §2.5.4), never another member of a
    /// shared PTR RRset. Before the registration is in the zone, nothing is sent.
    public mutating func stop(at time: Time) -> [Output] {
        switch state {
        case .idle, .waitingForName:
            state = .deregistered
            return [.event(.deregistered)]
        case .registering, .registered:
            queue.removeAll { $0 != .register }
            refreshDeadline = nil
            return enqueue(.deregister, at: time)
        case .deregistered, .failed:
            return []
        }
    }

    /// A datagram from the server; anything that is not the reply to the update in flight is ignored.
    public mutating func receive(_ datagram: [UInt8], at time: Time) -> [Output] {
        guard let flight = inFlight else { return [] }
        let response: UpdateResponse?
        do throws(RegistrationError) {
            response = try UpdateResponse.read(
                datagram, id: flight.id, instance: records.instance, zone: zone, key: key,
                requestMAC: flight.requestMAC, unixTime: time.unixSeconds)
        } catch {
            inFlight = nil
            if case .nameInUse = error, flight.operation == .register {
                guard allowsRenaming else { return fail(error) }
                state = .waitingForName
                return [.event(.nameInUse(records.instanceName))]
            }
            return fail(error)
        }
        guard let response else { return [] }
        inFlight = nil
        var outputs = completed(flight.operation, lease: response.grantedLease, at: time)
        outputs += sendNext(at: time)
        return outputs
    }

    /// The update in flight could not be sent, or the server's host answered with an error (an
    /// ICMP unreachable read back as a refusal), for `reason`: the update is retransmitted as if
    /// lost, and fails naming `reason` if no reply comes.
    public mutating func transportFailed(_ reason: String) {
        inFlight?.transportFailure = reason
    }

    /// Retransmits an unanswered update, fails one whose last wait is over, or starts a due refresh.
    public mutating func advance(to time: Time) -> [Output] {
        var outputs: [Output] = []
        if var flight = inFlight, time.monotonic >= flight.deadline {
            guard flight.sends < Self.retransmissionWaits.count else {
                return fail(.timedOut(server: server, transportFailure: flight.transportFailure))
            }
            flight.deadline = time.monotonic + Self.retransmissionWaits[flight.sends]
            flight.sends += 1
            inFlight = flight
            outputs.append(.send(flight.datagram))
        }
        if let due = refreshDeadline, time.monotonic >= due {
            refreshDeadline = nil
            outputs += enqueue(.refresh, at: time)
        }
        return outputs
    }

    private mutating func enqueue(_ operation: Operation, at time: Time) -> [Output] {
        queue.append(operation)
        return sendNext(at: time)
    }

    private mutating func sendNext(at time: Time) -> [Output] {
        guard inFlight == nil, !queue.isEmpty else { return [] }
        let operation = queue.removeFirst()
        let id = UInt16.random(in: .min ... .max)
        do {
            let bytes = try update(for: operation, id: id).message.encoded(maximumSize: 65_535)
            let signed = try TSIG.sign(bytes, with: key, at: time.unixSeconds)
            inFlight = InFlight(
                operation: operation, id: id, datagram: signed.message, requestMAC: signed.mac, sends: 1,
                deadline: time.monotonic + Self.retransmissionWaits[0])
            return [.send(signed.message)]
        } catch let error as TSIGError {
            return fail(.authentication(error))
        } catch {
            return fail(.invalidUpdate("\(error)"))
        }
    }

    /// The update that carries out `operation` on the zone.
    func update(for operation: Operation, id: UInt16) -> DNSUpdate {
        switch operation {
        case .register:
            DNSUpdate(
                id: id, zone: zone, prerequisites: [DNSUpdate.nameIsNotInUse(records.instance)], updates: records.all,
                additionals: leaseOption)
        case .refresh:
            DNSUpdate(id: id, zone: zone, updates: records.all, additionals: leaseOption)
        case .updateTXT(let txt):
            DNSUpdate(
                id: id, zone: zone,
                updates: [
                    DNSUpdate.deleteRRset(named: records.instance, type: .txt),
                    records.replacingTXT(with: txt).txtRecord,
                ])
        case .deregister:
            DNSUpdate(id: id, zone: zone, updates: records.all.map(DNSUpdate.delete))
        }
    }

    private var leaseOption: [ResourceRecord] {
        guard let requestedLease else { return [] }
        var opt = ResourceRecord.opt(udpPayloadSize: Self.udpPayloadSize)
        opt.data = .opt([.updateLease(requestedLease)])
        return [opt]
    }

    private mutating func completed(_ operation: Operation, lease: UInt32?, at time: Time) -> [Output] {
        switch operation {
        case .register:
            state = .registered
            scheduleRefresh(lease: lease, at: time)
            return [.event(.registered(name: records.instanceName, lease: lease))]
        case .refresh:
            scheduleRefresh(lease: lease, at: time)
            return [.event(.refreshed(lease: lease))]
        case .updateTXT(let txt):
            records = records.replacingTXT(with: txt)
            return [.event(.txtUpdated)]
        case .deregister:
            state = .deregistered
            queue.removeAll()
            return [.event(.deregistered)]
        }
    }

    /// A granted lease is renewed at 80 % of its length plus up to 5 % jitter (RFC 9664 §4.2
    /// leaves the margin to the client); with no lease granted the records stay until deleted.
    private mutating func scheduleRefresh(lease: UInt32?, at time: Time) {
        guard let lease, lease > 0, state == .registered else {
            refreshDeadline = nil
            return
        }
        refreshDeadline = time.monotonic + .seconds(Double(lease) * (0.8 + Double.random(in: 0...0.05)))
    }

    private mutating func fail(_ error: RegistrationError) -> [Output] {
        state = .failed
        inFlight = nil
        queue.removeAll()
        refreshDeadline = nil
        return [.event(.failed(error))]
    }
}
