/// SOA RDATA (RFC 1035 §3.3.13): the zone's primary server and contact, its serial and timers,
/// and `minimum`, which bounds how long a negative answer may be cached (RFC 2308 §5).
public struct SOAData: Hashable, Sendable {
    public var primaryServer: DomainName
    public var responsibleMailbox: DomainName
    public var serial: UInt32
    public var refresh: UInt32
    public var retry: UInt32
    public var expire: UInt32
    public var minimum: UInt32

    public init(
        primaryServer: DomainName, responsibleMailbox: DomainName, serial: UInt32, refresh: UInt32,
        retry: UInt32, expire: UInt32, minimum: UInt32
    ) {
        self.primaryServer = primaryServer
        self.responsibleMailbox = responsibleMailbox
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }

    /// Reads SOA RDATA as the decoder keeps it (names written out in full); nil unless the bytes
    /// are exactly MNAME, RNAME and the five 32-bit fields.
    public init?(rdata: [UInt8]) {
        var offset = 0
        guard let primary = DomainName(uncompressed: rdata, offset: &offset),
            let mailbox = DomainName(uncompressed: rdata, offset: &offset),
            rdata.count - offset == 20
        else { return nil }
        let fields = (0..<5).map { field in
            rdata[(offset + 4 * field)..<(offset + 4 * field + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        self.init(
            primaryServer: primary, responsibleMailbox: mailbox, serial: fields[0], refresh: fields[1],
            retry: fields[2], expire: fields[3], minimum: fields[4])
    }

    /// The RDATA in uncompressed wire form.
    public var rdata: [UInt8] {
        let fields = [serial, refresh, retry, expire, minimum].flatMap { (value: UInt32) -> [UInt8] in
            [24, 16, 8, 0].map { (shift: UInt32) -> UInt8 in UInt8(truncatingIfNeeded: value >> shift) }
        }
        return primaryServer.storage + [0] + responsibleMailbox.storage + [0] + fields
    }
}

extension RecordData {
    /// The SOA fields of an SOA record's data; nil for any other type or malformed RDATA.
    public var soa: SOAData? {
        guard case .unknown(.soa, let bytes) = self else { return nil }
        return SOAData(rdata: bytes)
    }

    /// The target of a CNAME record (RFC 1035 §3.3.1); nil for any other type or malformed RDATA.
    public var canonicalName: DomainName? {
        guard case .unknown(.cname, let bytes) = self else { return nil }
        var offset = 0
        guard let name = DomainName(uncompressed: bytes, offset: &offset), offset == bytes.count else { return nil }
        return name
    }

    /// SOA data as a record's data.
    public static func soa(_ soa: SOAData) -> RecordData { .unknown(.soa, soa.rdata) }

    /// A CNAME record's data pointing at `target`.
    public static func canonicalName(_ target: DomainName) -> RecordData { .unknown(.cname, target.storage + [0]) }
}

extension SOAData {
    /// `MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM`, as `dig` prints it (RFC 1035 §5.1).
    var presentation: String {
        "\(primaryServer) \(responsibleMailbox) \(serial) \(refresh) \(retry) \(expire) \(minimum)"
    }
}
