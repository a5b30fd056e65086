/// The errors Ciao throws and reports.
///
/// Every case has a ``description`` written for the person who has to act on it. DNS-SD failures carry
/// the `kDNSServiceErr_*` code that Apple's `dns_sd.h` (and Ciao 4) use, e.g. ``Code/nameConflict``.
public enum CiaoError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A service type is not `_name._tcp` / `_name._udp` with an RFC 6335 §5.1 service name.
    case invalidServiceType(String)
    /// A TXT record breaks RFC 6763 §6 (key syntax, 255-byte entry, total size).
    case invalidTXTRecord(String)
    /// A configuration value (name, port, timeout, interface…) is unusable.
    case invalidConfiguration(String)
    /// A DNS-SD error code (`kDNSServiceErr_*`, see ``Code``), e.g. `-65548` when a name is taken.
    case dnsService(Int32)
    /// A socket or interface operation failed.
    case network(String)
    /// The operation did not finish within its timeout.
    case timedOut
    /// The operation was cancelled because its owner was stopped.
    case stopped

    /// The DNS-SD error codes (`kDNSServiceErr_*` in Apple's `dns_sd.h`) carried by ``dnsService(_:)``.
    public enum Code {
        /// `kDNSServiceErr_Unknown`: an error with no more specific code.
        public static let unknown: Int32 = -65537
        /// `kDNSServiceErr_NoSuchName`: the name was not found.
        public static let noSuchName: Int32 = -65538
        /// `kDNSServiceErr_NoMemory`: out of memory.
        public static let noMemory: Int32 = -65539
        /// `kDNSServiceErr_BadParam`: an argument was invalid.
        public static let badParam: Int32 = -65540
        /// `kDNSServiceErr_BadReference`: the operation's handle is no longer valid.
        public static let badReference: Int32 = -65541
        /// `kDNSServiceErr_BadState`: the operation is not allowed at this point.
        public static let badState: Int32 = -65542
        /// `kDNSServiceErr_BadFlags`: invalid flags.
        public static let badFlags: Int32 = -65543
        /// `kDNSServiceErr_Unsupported`: the operation is not supported.
        public static let unsupported: Int32 = -65544
        /// `kDNSServiceErr_NotInitialized`: not initialized.
        public static let notInitialized: Int32 = -65545
        /// `kDNSServiceErr_AlreadyRegistered`: already registered.
        public static let alreadyRegistered: Int32 = -65547
        /// The name is in use by another host and renaming was not allowed (RFC 6762 §9).
        public static let nameConflict: Int32 = -65548
        /// `kDNSServiceErr_Invalid`: an invalid argument.
        public static let invalid: Int32 = -65549
        /// `kDNSServiceErr_Firewall`: blocked by a firewall.
        public static let firewall: Int32 = -65550
        /// `kDNSServiceErr_Incompatible`: client and daemon versions are incompatible.
        public static let incompatible: Int32 = -65551
        /// `kDNSServiceErr_BadInterfaceIndex`: no network interface has this index.
        public static let badInterfaceIndex: Int32 = -65552
        /// `kDNSServiceErr_Refused`: refused.
        public static let refused: Int32 = -65553
        /// `kDNSServiceErr_NoSuchRecord`: the DNS record does not exist.
        public static let noSuchRecord: Int32 = -65554
        /// `kDNSServiceErr_NoAuth`: not authorized.
        public static let noAuth: Int32 = -65555
        /// `kDNSServiceErr_NoSuchKey`: the TXT record has no such key.
        public static let noSuchKey: Int32 = -65556
        /// `kDNSServiceErr_NATTraversal`: NAT traversal failed.
        public static let natTraversal: Int32 = -65557
        /// `kDNSServiceErr_DoubleNAT`: more than one NAT gateway is in the path.
        public static let doubleNAT: Int32 = -65558
        /// `kDNSServiceErr_BadTime`: the clock is wrong for a signed update.
        public static let badTime: Int32 = -65559
        /// `kDNSServiceErr_BadSig`: a bad signature.
        public static let badSig: Int32 = -65560
        /// `kDNSServiceErr_BadKey`: a bad key.
        public static let badKey: Int32 = -65561
        /// `kDNSServiceErr_Transient`: a transient failure; try again.
        public static let transient: Int32 = -65562
        /// `kDNSServiceErr_ServiceNotRunning`: the DNS-SD service is not running.
        public static let serviceNotRunning: Int32 = -65563
        /// `kDNSServiceErr_NATPortMappingUnsupported`: the NAT gateway does not map ports.
        public static let natPortMappingUnsupported: Int32 = -65564
        /// `kDNSServiceErr_NATPortMappingDisabled`: port mapping is disabled on the NAT gateway.
        public static let natPortMappingDisabled: Int32 = -65565
        /// `kDNSServiceErr_NoRouter`: no network route is available.
        public static let noRouter: Int32 = -65566
        /// `kDNSServiceErr_PollingMode`: polling mode.
        public static let pollingMode: Int32 = -65567
        /// `kDNSServiceErr_Timeout`: no answer arrived in time.
        public static let timeout: Int32 = -65568
        /// `kDNSServiceErr_DefunctConnection`: the connection to the DNS-SD service was lost.
        public static let defunctConnection: Int32 = -65569
        /// `kDNSServiceErr_PolicyDenied`: denied by policy, such as local network permission.
        public static let policyDenied: Int32 = -65570
        /// `kDNSServiceErr_NotPermitted`: the operation is not permitted.
        public static let notPermitted: Int32 = -65571
        /// `kDNSServiceErr_StaleData`: stale data.
        public static let staleData: Int32 = -65572

        /// The `dns_sd.h` constant name and a plain-language meaning for `code`, or `nil` if unknown.
        public static func name(for code: Int32) -> (constant: String, meaning: String)? {
            switch code {
            case unknown: ("kDNSServiceErr_Unknown", "unknown error")
            case noSuchName: ("kDNSServiceErr_NoSuchName", "no such name: the name was not found")
            case noMemory: ("kDNSServiceErr_NoMemory", "out of memory")
            case badParam: ("kDNSServiceErr_BadParam", "bad parameter: an argument was invalid")
            case badReference:
                ("kDNSServiceErr_BadReference", "bad reference: the operation's handle is no longer valid")
            case badState: ("kDNSServiceErr_BadState", "bad state: the operation is not allowed at this point")
            case badFlags: ("kDNSServiceErr_BadFlags", "bad flags")
            case unsupported: ("kDNSServiceErr_Unsupported", "unsupported operation")
            case notInitialized: ("kDNSServiceErr_NotInitialized", "not initialized")
            case alreadyRegistered: ("kDNSServiceErr_AlreadyRegistered", "already registered")
            case nameConflict:
                (
                    "kDNSServiceErr_NameConflict",
                    "name conflict: another responder, on this host or another, already uses this name; choose another name or allow renaming"
                )
            case invalid: ("kDNSServiceErr_Invalid", "invalid argument")
            case firewall: ("kDNSServiceErr_Firewall", "blocked by a firewall")
            case incompatible: ("kDNSServiceErr_Incompatible", "client and daemon versions are incompatible")
            case badInterfaceIndex:
                ("kDNSServiceErr_BadInterfaceIndex", "bad interface index: no such network interface")
            case refused: ("kDNSServiceErr_Refused", "refused")
            case noSuchRecord: ("kDNSServiceErr_NoSuchRecord", "no such record: the DNS record does not exist")
            case noAuth: ("kDNSServiceErr_NoAuth", "not authorized")
            case noSuchKey: ("kDNSServiceErr_NoSuchKey", "no such key in the TXT record")
            case natTraversal: ("kDNSServiceErr_NATTraversal", "NAT traversal failed")
            case doubleNAT: ("kDNSServiceErr_DoubleNAT", "double NAT: more than one NAT gateway in the path")
            case badTime: ("kDNSServiceErr_BadTime", "bad time: the clock is wrong for a signed update")
            case badSig: ("kDNSServiceErr_BadSig", "bad signature")
            case badKey: ("kDNSServiceErr_BadKey", "bad key")
            case transient: ("kDNSServiceErr_Transient", "transient failure; try again")
            case serviceNotRunning: ("kDNSServiceErr_ServiceNotRunning", "the DNS-SD service is not running")
            case natPortMappingUnsupported:
                ("kDNSServiceErr_NATPortMappingUnsupported", "the NAT gateway does not support port mapping")
            case natPortMappingDisabled:
                ("kDNSServiceErr_NATPortMappingDisabled", "port mapping is disabled on the NAT gateway")
            case noRouter: ("kDNSServiceErr_NoRouter", "no router: no network route is available")
            case pollingMode: ("kDNSServiceErr_PollingMode", "polling mode")
            case timeout: ("kDNSServiceErr_Timeout", "timeout: no answer arrived in time")
            case defunctConnection:
                ("kDNSServiceErr_DefunctConnection", "the connection to the DNS-SD service was lost")
            case policyDenied: ("kDNSServiceErr_PolicyDenied", "denied by policy (e.g. local network permission)")
            case notPermitted: ("kDNSServiceErr_NotPermitted", "operation not permitted")
            case staleData: ("kDNSServiceErr_StaleData", "stale data")
            default: nil
            }
        }
    }

    /// What an operation that timed out reports when no interface could carry it: the network
    /// itself is missing, not the peer.
    public static let noUsableInterface = CiaoError.network(
        "no usable network interface was found: none is up, connected and able to multicast (loopback does not count);"
            + " connect one, or name one that is (NetworkScope in the API, --interface in ciao)")

    /// The error in a sentence for the user; for ``dnsService(_:)`` also the constant's name and
    /// meaning (see ``Code/name(for:)``).
    public var description: String {
        switch self {
        case .invalidServiceType(let message):
            "Invalid service type: \(message)"
        case .invalidTXTRecord(let message):
            "Invalid TXT record: \(message)"
        case .invalidConfiguration(let message):
            "Invalid configuration: \(message)"
        case .dnsService(let code):
            if let known = Code.name(for: code) {
                "DNS-SD error \(code) (\(known.constant)): \(known.meaning)"
            } else {
                "DNS-SD error \(code) (unrecognized error code)"
            }
        case .network(let message):
            "Network error: \(message)"
        case .timedOut:
            "The operation timed out: no answer arrived in time; check that the peer is on the same network link, or allow a longer timeout"
        case .stopped:
            "The operation was stopped before it finished (stop() was called or the task was cancelled)"
        }
    }
}
