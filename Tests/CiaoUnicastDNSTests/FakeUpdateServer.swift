import CiaoWire

/// An authoritative server for one zone that carries out TSIG-signed DNS UPDATEs as RFC 2136 §3
/// says, on an in-memory set of records: enough of BIND to drive ``WideAreaRegistration`` against.
struct FakeUpdateServer {
    var zone: DomainName
    var key: TSIGKey
    var records: Set<ResourceRecord> = []
    /// The lease granted to an update that asks for one; nil grants none, as BIND 9.18 does.
    var grantedLease: UInt32?
    /// RCODE 5 for every update (a policy that does not cover the names).
    var refusesEverything = false
    var updatesSeen: [Message] = []

    /// The server's signed reply to `datagram`: NOTAUTH unsigned when the signature fails,
    /// FORMERR when a record does not decode.
    mutating func handle(_ datagram: [UInt8], at unixTime: UInt64) -> [UInt8]? {
        guard datagram.count >= MessageHeader.size else { return nil }
        guard let request = try? TSIG.verify(datagram, with: key, requestMAC: nil, at: unixTime) else {
            return reply(to: datagram, rcode: 9, requestMAC: nil, at: unixTime)
        }
        // FORMERR for what the decoder cannot read whole (an SRV RRset deletion's empty RDATA, say)
        guard let decoded = try? Message.decode(datagram, limits: .unicast), decoded.skippedRecords.isEmpty else {
            return reply(to: datagram, rcode: 1, requestMAC: request.mac, at: unixTime)
        }
        let message = decoded.message
        updatesSeen.append(message)
        if refusesEverything { return reply(to: datagram, rcode: 5, requestMAC: request.mac, at: unixTime) }
        for prerequisite in message.answers where prerequisite.type == .any {
            let inUse = records.contains { $0.name == prerequisite.name }
            if prerequisite.rrClass == DNSUpdate.classNone && inUse {
                return reply(to: datagram, rcode: 6, requestMAC: request.mac, at: unixTime)
            }
        }
        for update in message.authorities {
            switch update.rrClass {
            case .any: records = records.filter { !($0.name == update.name && $0.type == update.type) }
            case DNSUpdate.classNone:
                var kept = update
                kept.rrClass = RecordClass.internet
                records = records.filter { !($0.name == kept.name && $0.data == kept.data) }
            default:
                records = records.filter { !($0.name == update.name && $0.data == update.data) }
                records.insert(update)
            }
        }
        let askedLease = message.additionals.contains {
            if case .opt(let options) = $0.data { options.contains { $0.updateLease != nil } } else { false }
        }
        return reply(
            to: datagram, rcode: 0, requestMAC: request.mac, lease: askedLease ? grantedLease : nil, at: unixTime)
    }

    /// A reply with `rcode`, the request's question, and an Update Lease when granting one; signed
    /// when the request's signature held.
    func reply(to datagram: [UInt8], rcode: UInt8, requestMAC: [UInt8]?, lease: UInt32? = nil, at unixTime: UInt64)
        -> [UInt8]
    {
        var header = MessageHeader(id: UInt16(datagram[0]) << 8 | UInt16(datagram[1]), flags: 0x8000 | UInt16(rcode))
        header.opcode = DNSUpdate.opcode
        var additionals: [ResourceRecord] = []
        if let lease {
            var opt = ResourceRecord.opt(udpPayloadSize: 1232)
            opt.data = .opt([.updateLease(lease)])
            additionals.append(opt)
        }
        let message = Message(
            header: header, questions: [Question(name: zone, type: .soa)],
            additionals: additionals)
        let bytes = try! message.encoded()
        guard let requestMAC else { return bytes }
        return try! TSIG.sign(bytes, with: key, at: unixTime, requestMAC: requestMAC).message
    }

    /// The zone's records at `name`.
    func records(named name: DomainName) -> Set<ResourceRecord> { records.filter { $0.name == name } }
}
