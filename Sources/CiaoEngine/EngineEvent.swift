import CiaoWire

/// Identifies a service, or another host's name, registered with the engine.
public struct RegistrationID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public static func < (lhs: RegistrationID, rhs: RegistrationID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "registration \(rawValue)" }
}

/// Identifies a continuous query started with the engine.
public struct QueryID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public static func < (lhs: QueryID, rhs: QueryID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "query \(rawValue)" }
}

/// Something the engine reports to its user.
public enum EngineEvent: Hashable, Sendable {
    /// The service finished probing and announcing starts, under `name` (RFC 6762 §8.3).
    case registered(RegistrationID, name: DomainName)
    /// The service lost a conflict and is probing again, under `to` (RFC 6762 §9).
    case renamed(RegistrationID, from: DomainName, to: DomainName)
    /// The name is taken and renaming is off: the registration is withdrawn (DNS-SD error −65548).
    case nameConflict(RegistrationID, name: DomainName)
    /// The host name lost a conflict and the new one is settled (won by probing, or held by
    /// another responder on this host): the SRV records of services on this host now name it, and
    /// are announced again (§9, §8.4).
    case hostRenamed(from: DomainName, to: DomainName)
    /// A record answering the query appeared on an interface.
    case added(QueryID, ResourceRecord, InterfaceID)
    /// A unique record answering the query changed its data (a cache-flush replacement, RFC 6762
    /// §10.2), e.g. a TXT update; `record` is the new one.
    case updated(QueryID, ResourceRecord, InterfaceID)
    /// A record answering the query expired, said goodbye or its interface went away.
    case removed(QueryID, ResourceRecord, InterfaceID)
    /// A responder says the query's name has no record of the query's type, `type`, on an
    /// interface: `nsec` is the NSEC it sent, listing the types the name has (RFC 6762 §6.1).
    /// Reported when it comes, or when the query starts with it cached; a record of the type that
    /// comes later is reported as ``added(_:_:_:)``.
    case noSuchRecord(QueryID, RecordType, nsec: ResourceRecord, InterfaceID)
    /// A record reported as answering the query came for the first time over another address
    /// family: its responder speaks both, as `avahi-browse` shows with a line per protocol.
    /// ``MDNSEngine/arrival(of:on:)`` tells the families it has come over so far.
    case heardOver(QueryID, ResourceRecord, InterfaceID, IPFamily)
}

/// A DNS-SD service to publish (RFC 6763 §4–§7).
public struct ServiceRegistration: Hashable, Sendable {
    /// The instance name, up to 63 bytes of UTF-8.
    public var instanceName: String
    /// The service type and domain, e.g. `_http._tcp.local.`.
    public var serviceType: DomainName
    /// Subtype labels such as `_printer` (RFC 6763 §7.1).
    public var subtypes: [String]
    public var port: UInt16
    public var txt: TXTData
    /// On a conflict, rename to `Name (2)`, `Name (3)` …; otherwise report ``EngineEvent/nameConflict(_:name:)``.
    public var allowsRenaming: Bool
    /// The interfaces to publish on; `nil` for all.
    public var interfaces: Set<InterfaceID>?
    /// The host the service runs on, named by its SRV record, when that is another host: one that
    /// answers for its own addresses, or one whose name and addresses are registered for it
    /// (``OtherHostRegistration``); `nil` for this host (RFC 6763 §5).
    public var hostName: DomainName?

    public init(
        instanceName: String, serviceType: DomainName, subtypes: [String] = [], port: UInt16,
        txt: TXTData, allowsRenaming: Bool = true, interfaces: Set<InterfaceID>? = nil,
        hostName: DomainName? = nil
    ) {
        self.instanceName = instanceName
        self.serviceType = serviceType
        self.subtypes = subtypes
        self.port = port
        self.txt = txt
        self.allowsRenaming = allowsRenaming
        self.interfaces = interfaces
        self.hostName = hostName
    }
}
