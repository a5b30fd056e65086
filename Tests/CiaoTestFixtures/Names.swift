import CiaoWire

/// Domain names for tests: parsed from literals, and the service type and instances most tests use.
public enum Names {
    /// The name `text` spells (presentation format); traps on a malformed one, as a literal in a
    /// test is never meant to be.
    public static func name(_ text: String) -> DomainName {
        try! DomainName(parsing: text)
    }

    /// The service type the tests publish and browse: `_ciao._tcp.local.`.
    public static let serviceType = name("_ciao._tcp.local.")

    /// A second service type, for tests that need one nobody publishes: `_other._udp.local.`.
    public static let otherServiceType = name("_other._udp.local.")

    /// The DNS-SD service type enumeration name: `_services._dns-sd._udp.local.` (RFC 6763 §9).
    public static let servicesName = name("_services._dns-sd._udp.local.")

    /// The instance `label` of `type` (``serviceType`` unless given).
    public static func instance(_ label: String, of type: DomainName = serviceType) -> DomainName {
        try! type.prepending(label: Array(label.utf8))
    }
}
