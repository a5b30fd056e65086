/// Signing and verifying DNS messages with TSIG and hmac-sha256 (RFC 8945 §4, §5), on their wire
/// bytes: the MAC covers the message as sent, so the signature is added after encoding.
public enum TSIG {
    /// The clock difference a signature allows, in seconds (RFC 8945 §10 recommends 300).
    public static let defaultFudge: UInt16 = 300

    /// `message` with a TSIG record appended (ARCOUNT one more), and the MAC to verify the reply
    /// with. `time` is seconds since 1970; `requestMAC` signs a response to a signed request.
    public static func sign(
        _ message: [UInt8], with key: TSIGKey, at time: UInt64, fudge: UInt16 = defaultFudge,
        requestMAC: [UInt8]? = nil
    ) throws(TSIGError) -> (message: [UInt8], mac: [UInt8]) {
        guard message.count >= 12 else { throw .malformed("a message shorter than its header") }
        let originalID = UInt16(message[0]) << 8 | UInt16(message[1])
        var record = TSIGRecord(keyName: key.name, timeSigned: time, fudge: fudge, mac: [], originalID: originalID)
        record.mac = HMACSHA256.authenticationCode(
            for: digestInput(message, record: record, requestMAC: requestMAC), key: key.secret)
        var signed = message
        let count = UInt16(message[10]) << 8 | UInt16(message[11])
        guard count < .max else { throw .malformed("no room for another additional record") }
        signed[10] = UInt8((count + 1) >> 8)
        signed[11] = UInt8((count + 1) & 0xFF)
        signed += record.encoded
        return (signed, record.mac)
    }

    /// Checks the TSIG record that ends `message` (RFC 8945 §5.3): the key, an error the signer
    /// reports, the MAC over the message and `requestMAC`, and the time within the fudge of
    /// `now`. Returns the record.
    @discardableResult
    public static func verify(_ message: [UInt8], with key: TSIGKey, requestMAC: [UInt8]?, at now: UInt64)
        throws(TSIGError) -> TSIGRecord
    {
        let (unsigned, offset) = try unsignedMessage(message)
        let record = try TSIGRecord(in: message, at: offset)
        guard record.keyName == key.name, record.algorithm == TSIGKey.hmacSHA256 else { throw .badKey(record.keyName) }
        switch record.error {
        case 0: break
        case TSIGRecord.badKey: throw .badKey(key.name)
        case TSIGRecord.badSignature: throw .badSignature
        case TSIGRecord.badTime:
            let serverTime = record.otherData.count == 6 ? record.otherData.reduce(0) { $0 << 8 | UInt64($1) } : 0
            throw .badTime(signed: serverTime, now: now)
        default: throw .malformed("error code \(record.error)")
        }
        var original = unsigned
        original[0] = UInt8(record.originalID >> 8)
        original[1] = UInt8(record.originalID & 0xFF)
        let expected = HMACSHA256.authenticationCode(
            for: digestInput(original, record: record, requestMAC: requestMAC), key: key.secret)
        guard HMACSHA256.isEqual(record.mac, expected) else { throw .badSignature }
        let skew = record.timeSigned > now ? record.timeSigned - now : now - record.timeSigned
        guard skew <= UInt64(record.fudge) else { throw .badTime(signed: record.timeSigned, now: now) }
        return record
    }

    /// What the MAC covers (§4.3.3): the request's MAC for a response, the message without its
    /// TSIG record, then the TSIG variables.
    static func digestInput(_ message: [UInt8], record: TSIGRecord, requestMAC: [UInt8]?) -> [UInt8] {
        var input: [UInt8] = []
        if let requestMAC { input += TSIGRecord.bytes(UInt16(requestMAC.count)) + requestMAC }
        input += message
        input +=
            record.keyName.canonicalWireForm + TSIGRecord.bytes(RecordClass.any.rawValue) + TSIGRecord.bytes(UInt32(0))
        input += record.algorithm.canonicalWireForm + TSIGRecord.bytes(record.timeSigned, count: 6)
        input += TSIGRecord.bytes(record.fudge) + TSIGRecord.bytes(record.error)
        input += TSIGRecord.bytes(UInt16(record.otherData.count)) + record.otherData
        return input
    }

    /// The message without its last record, ARCOUNT one less, and where that record starts;
    /// `unsigned` when the message has no additional record.
    static func unsignedMessage(_ message: [UInt8]) throws(TSIGError) -> (message: [UInt8], recordOffset: Int) {
        var reader = TSIGReader(bytes: message, position: 4)
        let counts = [try reader.uint16(), try reader.uint16(), try reader.uint16(), try reader.uint16()]
        guard counts[3] > 0 else { throw .unsigned }
        for _ in 0..<counts[0] {
            try reader.skipName()
            _ = try reader.bytes(4)
        }
        let records = Int(counts[1]) + Int(counts[2]) + Int(counts[3])
        var offset = reader.position
        for _ in 0..<records {
            offset = reader.position
            try reader.skipName()
            _ = try reader.bytes(8)
            _ = try reader.bytes(Int(try reader.uint16()))
        }
        guard reader.position == message.count else { throw .malformed("bytes after the last record") }
        var unsigned = Array(message[..<offset])
        unsigned[10] = UInt8((counts[3] - 1) >> 8)
        unsigned[11] = UInt8((counts[3] - 1) & 0xFF)
        return (unsigned, offset)
    }
}
