import CiaoWire

/// The records one wide-area service registration owns (RFC 6763 §4.1, §6, §7.1): the PTR of its
/// type and of each subtype naming the instance, its SRV and TXT, and the addresses of its target
/// host when it registers that host too.
///
/// The PTRs are members of RRsets other registrants share; the SRV, TXT and host addresses are
/// this registration's alone. Deregistration deletes exactly these records, one by one.
public struct ServiceRegistrationRecords: Hashable, Sendable {
    /// The TTL given to every record: short enough that browsers polling at 80 % of it see a
    /// change within two minutes.
    public static let defaultTTL: UInt32 = 120

    /// The instance's full name, `<Instance>.<_type._proto>.<domain>`.
    public private(set) var instance: DomainName
    /// The service type's name in the domain, `<_type._proto>.<domain>`.
    public let serviceType: DomainName
    /// The subtype names (`_printer._sub.<_type._proto>.<domain>`) the instance is listed under.
    public let subtypeNames: [DomainName]
    public let srv: SRVData
    public private(set) var txt: TXTData
    /// A and AAAA records of the SRV target, when the registration publishes its host.
    public let hostAddresses: [ResourceRecord]
    public let ttl: UInt32

    /// The records of `instanceName` under `serviceType` (e.g. `_http._tcp.lab.example.`).
    /// Throws when the instance label or a subtype is not a valid DNS label.
    public init(
        instanceName: String, serviceType: DomainName, subtypes: [String] = [], srv: SRVData, txt: TXTData,
        ipv4Addresses: [IPv4Address] = [], ipv6Addresses: [IPv6Address] = [], ttl: UInt32 = defaultTTL
    ) throws(NameError) {
        self.serviceType = serviceType
        self.instance = try serviceType.prepending(label: Array(instanceName.utf8))
        var subtypeNames: [DomainName] = []
        for subtype in subtypes {
            let label = subtype.hasPrefix("_") ? subtype : "_" + subtype
            subtypeNames.append(try serviceType.subtypeName(label))
        }
        self.subtypeNames = subtypeNames
        self.srv = srv
        self.txt = txt
        self.ttl = ttl
        self.hostAddresses =
            ipv4Addresses.map { ResourceRecord(name: srv.target, ttl: ttl, data: .a($0)) }
            + ipv6Addresses.map { ResourceRecord(name: srv.target, ttl: ttl, data: .aaaa($0)) }
    }

    /// The instance label as registered (after any rename).
    public var instanceName: String { String(decoding: instance.firstLabel ?? [], as: UTF8.self) }

    /// The PTRs naming the instance, in RRsets shared with other registrants.
    public var pointers: [ResourceRecord] {
        ([serviceType] + subtypeNames).map { ResourceRecord(name: $0, ttl: ttl, data: .ptr(instance)) }
    }

    public var srvRecord: ResourceRecord { ResourceRecord(name: instance, ttl: ttl, data: .srv(srv)) }
    public var txtRecord: ResourceRecord { ResourceRecord(name: instance, ttl: ttl, data: .txt(txt)) }

    /// Every record, in the order an UPDATE adds them.
    public var all: [ResourceRecord] { pointers + [srvRecord, txtRecord] + hostAddresses }

    /// The same records under another instance label (a rename after a conflict).
    public func renamed(to instanceName: String) throws(NameError) -> ServiceRegistrationRecords {
        var copy = self
        copy.instance = try serviceType.prepending(label: Array(instanceName.utf8))
        return copy
    }

    /// The same records with another TXT.
    public func replacingTXT(with txt: TXTData) -> ServiceRegistrationRecords {
        var copy = self
        copy.txt = txt
        return copy
    }
}
