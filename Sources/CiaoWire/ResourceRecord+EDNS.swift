/// The EDNS(0) OPT pseudo-record (RFC 6891 §6.1): root name, type OPT, the sender's UDP payload
/// size in the class field, extended RCODE, version and flags in the TTL.
extension ResourceRecord {
    /// Requestors may not offer less than this (RFC 6891 §6.2.5); without an OPT record it is
    /// all a unicast DNS querier takes over UDP (RFC 1035 §4.2.1).
    public static let minimumUDPPayloadSize = 512

    /// An OPT record of version 0, no flags and no options, offering `udpPayloadSize` bytes; a
    /// nonzero `extendedRCode` holds the upper 8 bits of a 12-bit RCODE (§6.1.3).
    public static func opt(udpPayloadSize: UInt16, extendedRCode: UInt8 = 0) -> ResourceRecord {
        ResourceRecord(
            name: .root, rrClass: RecordClass(rawValue: udpPayloadSize & 0x7FFF),
            cacheFlush: udpPayloadSize & 0x8000 != 0,
            ttl: UInt32(extendedRCode) << 24, data: .opt([]))
    }

    /// BADVERS (16), the extended RCODE for an EDNS version we do not implement (§6.1.3): its
    /// upper 8 bits, as ``opt(udpPayloadSize:extendedRCode:)`` takes them.
    public static let badVersionExtendedRCode: UInt8 = 1

    /// For an OPT record, the EDNS version of its sender (the TTL's second byte); nil for others.
    public var ednsVersion: UInt8? {
        type == .opt ? UInt8(truncatingIfNeeded: ttl >> 16) : nil
    }

    /// An OPT record's size on the wire: the root name, type, class, TTL, RDLENGTH and options.
    var optWireSize: Int {
        get throws(EncodingError) {
            guard case .opt(let options) = data else { return 0 }
            let length = options.reduce(0) { $0 + 4 + $1.data.count }
            guard length <= Int(UInt16.max) else { throw .rdataTooLong(type: .opt, length: length) }
            return 11 + length
        }
    }

    /// For an OPT record, the UDP payload size its sender can take (the whole class field: mDNS's
    /// cache-flush bit is its top bit); nil for other records.
    public var udpPayloadSize: Int? {
        guard type == .opt else { return nil }
        return Int(rrClass.rawValue) | (cacheFlush ? 0x8000 : 0)
    }
}
