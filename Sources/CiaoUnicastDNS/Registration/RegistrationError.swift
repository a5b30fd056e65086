import CiaoWire

/// Why a DNS UPDATE registration failed (RFC 2136 §2.2 RCODEs, RFC 8945 TSIG errors), each with
/// what a user can do about it.
public enum RegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The instance name is taken in the zone and renaming is off (YXDOMAIN on our prerequisite).
    case nameInUse(DomainName)
    /// The server refused the update (REFUSED): its update-policy does not let this key write
    /// these names, or it accepts no updates for the zone.
    case refused(zone: DomainName)
    /// The server is not authoritative for the zone (NOTAUTH), or would not accept the key.
    case notAuthoritative(zone: DomainName)
    /// A name in the update lies outside the zone (NOTZONE).
    case notInZone(zone: DomainName)
    /// A prerequisite about an RRset did not hold (YXRRSET or NXRRSET).
    case prerequisiteFailed(rcode: UInt8)
    /// The server failed (SERVFAIL), could not parse the update (FORMERR) or does not do
    /// updates (NOTIMP); `rcode` says which.
    case serverFailure(rcode: UInt8)
    /// The TSIG exchange failed: BADSIG, BADKEY, BADTIME, or a reply not signed as it must be.
    case authentication(TSIGError)
    /// No zone was found for `name`, or no server that takes its updates.
    case zoneNotFound(name: DomainName, reason: String)
    /// No reply came after every retransmission; `transportFailure` is how the transport last
    /// failed meanwhile, if it did.
    case timedOut(server: String, transportFailure: String?)
    /// The update could not be built (a name too long, for example).
    case invalidUpdate(String)

    public var description: String {
        switch self {
        case .nameInUse(let name): "the name \(name) is already registered in the zone (and renaming is off)"
        case .refused(let zone):
            "the server refused the update of \(zone) (REFUSED): its update-policy must let this key write these names"
        case .notAuthoritative(let zone):
            "the server is not authoritative for \(zone) or rejected the key (NOTAUTH): check the zone and --server"
        case .notInZone(let zone): "a name of the update is outside the zone \(zone) (NOTZONE)"
        case .prerequisiteFailed(let rcode): "a prerequisite of the update did not hold (RCODE \(rcode))"
        case .serverFailure(let rcode):
            "the server could not carry out the update (RCODE \(rcode) \(Self.rcodeName(rcode))); see its log"
        case .authentication(let error): error.description
        case .zoneNotFound(let name, let reason):
            "cannot find the zone of \(name) or its update server (\(reason)): check the domain, or give the server"
        case .timedOut(let server, let transportFailure):
            "no reply from \(server) to the DNS UPDATE\(transportFailure.map { " (\($0))" } ?? ""): check the server"
                + " address and port"
        case .invalidUpdate(let reason): "cannot build the DNS UPDATE: \(reason)"
        }
    }

    static func rcodeName(_ rcode: UInt8) -> String {
        switch rcode {
        case 1: "FORMERR"
        case 2: "SERVFAIL"
        case 4: "NOTIMP"
        default: "unknown"
        }
    }
}
