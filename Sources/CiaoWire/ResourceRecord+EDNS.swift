/// The EDNS(0) OPT pseudo-record (RFC 6891 §6.1): root name, type OPT, the sender's UDP payload
/// size in the class field, extended RCODE, version and flags in the TTL.
extension ResourceRecord {
    /// Requestors may not offer less than this (RFC 6891 §6.2.5); without an OPT record it is
    /// all a unicast DNS querier takes over UDP (RFC 1035 §4.2.1).
    public static let minimumUDPPayloadSize = 512

    /// An OPT record of version 0, no flags and no options, offering `udpPayloadSize` bytes.
    public static func opt(udpPayloadSize: UInt16) -> ResourceRecord {
        ResourceRecord(
            name: .root, rrClass: RecordClass(rawValue: udpPayloadSize & 0x7FFF), cacheFlush: udpPayloadSize & 0x8000 != 0,
            ttl: 0, data: .opt([]))
    }

    /// For an OPT record, the UDP payload size its sender can take (the whole class field: mDNS's
    /// cache-flush bit is its top bit); nil for other records.
    public var udpPayloadSize: Int? {
        guard type == .opt else { return nil }
        return Int(rrClass.rawValue) | (cacheFlush ? 0x8000 : 0)
    }
}
