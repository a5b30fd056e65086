extension RecordType {
    /// TSIG, a transaction signature (RFC 8945 §4.2): the last record of a signed message.
    public static let tsig = RecordType(250)
}

/// The fields of a TSIG record (RFC 8945 §4.2): owner name the key's, class ANY, TTL 0.
public struct TSIGRecord: Hashable, Sendable {
    /// The error codes a TSIG record carries (RFC 8945 §5.3.2).
    /// BADSIG: the MAC did not verify.
    public static let badSignature: UInt16 = 16
    /// BADKEY: the key is unknown to the verifier.
    public static let badKey: UInt16 = 17
    /// BADTIME: the time signed is outside the fudge.
    public static let badTime: UInt16 = 18

    /// The key's name: the record's owner name.
    public var keyName: DomainName
    /// The MAC algorithm, `hmac-sha256.`.
    public var algorithm: DomainName
    /// Seconds since 1970, 48 bits on the wire.
    public var timeSigned: UInt64
    /// How far, in seconds, the verifier's clock may differ.
    public var fudge: UInt16
    /// The message authentication code; empty in an unsigned error reply.
    public var mac: [UInt8]
    /// The message ID when it was signed (a forwarder may change the header's).
    public var originalID: UInt16
    /// 0, or one of the error codes above.
    public var error: UInt16
    /// With BADTIME, the server's time (48 bits).
    public var otherData: [UInt8]

    /// A record of the given fields.
    public init(
        keyName: DomainName, algorithm: DomainName = TSIGKey.hmacSHA256, timeSigned: UInt64, fudge: UInt16,
        mac: [UInt8], originalID: UInt16, error: UInt16 = 0, otherData: [UInt8] = []
    ) {
        self.keyName = keyName
        self.algorithm = algorithm
        self.timeSigned = timeSigned
        self.fudge = fudge
        self.mac = mac
        self.originalID = originalID
        self.error = error
        self.otherData = otherData
    }

    /// The record in wire form, names uncompressed (§4.2).
    public var encoded: [UInt8] {
        var rdata = algorithm.canonicalWireForm
        rdata += Self.bytes(timeSigned, count: 6) + Self.bytes(fudge)
        rdata += Self.bytes(UInt16(mac.count)) + mac
        rdata += Self.bytes(originalID) + Self.bytes(error) + Self.bytes(UInt16(otherData.count)) + otherData
        return keyName.canonicalWireForm + Self.bytes(RecordType.tsig.rawValue) + Self.bytes(RecordClass.any.rawValue)
            + Self.bytes(UInt32(0)) + Self.bytes(UInt16(rdata.count)) + rdata
    }

    /// Reads the record at `offset` of `message`, which must end there.
    init(in message: [UInt8], at offset: Int) throws(TSIGError) {
        var reader = TSIGReader(bytes: message, position: offset)
        keyName = try reader.name()
        guard try reader.uint16() == RecordType.tsig.rawValue else { throw .unsigned }
        guard try reader.uint16() == RecordClass.any.rawValue, try reader.uint32() == 0 else {
            throw .malformed("class or TTL not ANY and 0")
        }
        let length = Int(try reader.uint16())
        guard reader.position + length == message.count else { throw .malformed("not the message's last bytes") }
        algorithm = try reader.name()
        timeSigned = UInt64(try reader.uint16()) << 32 | UInt64(try reader.uint32())
        fudge = try reader.uint16()
        mac = try reader.bytes(Int(try reader.uint16()))
        originalID = try reader.uint16()
        error = try reader.uint16()
        otherData = try reader.bytes(Int(try reader.uint16()))
        guard reader.position == message.count else { throw .malformed("RDATA longer than its fields") }
    }

    static func bytes(_ value: some FixedWidthInteger, count: Int? = nil) -> [UInt8] {
        let width = count ?? value.bitWidth / 8
        return (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

extension DomainName {
    /// The uncompressed wire form with ASCII letters lowercased (RFC 4034 §6.2), as TSIG digests it.
    var canonicalWireForm: [UInt8] {
        storage.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 } + [0]
    }
}

/// Reads a signed message's fields, every read bounds-checked; names uncompressed (§4.2).
struct TSIGReader {
    let bytes: [UInt8]
    var position: Int

    mutating func uint16() throws(TSIGError) -> UInt16 {
        let read = try self.bytes(2)
        return UInt16(read[0]) << 8 | UInt16(read[1])
    }

    mutating func uint32() throws(TSIGError) -> UInt32 {
        let read = try self.bytes(4)
        return read.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func bytes(_ count: Int) throws(TSIGError) -> [UInt8] {
        guard count >= 0, position + count <= bytes.count else { throw .malformed("truncated") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func name() throws(TSIGError) -> DomainName {
        var labels: [[UInt8]] = []
        while true {
            let length = Int(try bytes(1)[0])
            if length == 0 { break }
            guard length <= DomainName.maximumLabelLength else { throw .malformed("a compressed or bad name") }
            labels.append(try bytes(length))
        }
        do {
            return try DomainName(labels: labels)
        } catch {
            throw .malformed("name: \(error)")
        }
    }

    /// Moves past a name, compressed or not.
    mutating func skipName() throws(TSIGError) {
        while true {
            let length = try bytes(1)[0]
            if length == 0 { return }
            if length & 0xC0 == 0xC0 {
                _ = try bytes(1)
                return
            }
            guard length & 0xC0 == 0 else { throw .malformed("bad label type") }
            _ = try bytes(Int(length))
        }
    }
}
