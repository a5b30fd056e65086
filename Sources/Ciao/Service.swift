import CiaoWire

/// A DNS-SD service instance `<name>.<type>.<domain>` (RFC 6763 §4.1) seen on, or published to, an interface.
///
/// Identity (``id``, `==`, `hash`) is name, type, domain and interface index; the name and domain are
/// compared byte-wise as UTF-8 with ASCII letters case-folded, as DNS compares names (RFC 6762 §16).
/// `Codable` with keys `name`, `type`, `domain`, `interfaceIndex`, so a reference can be stored and resolved later.
public struct Service: Hashable, Identifiable, Sendable, Codable {
    /// The identity of a ``Service``: its name and domain with ASCII letters lowercased, its type and its
    /// interface index. Two services are equal exactly when their `ID`s are equal.
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        /// The instance name with ASCII letters lowercased (other characters unchanged).
        public let name: String
        /// The service type.
        public let type: ServiceType
        /// The normalised domain with ASCII letters lowercased, e.g. `local.`.
        public let domain: String
        /// The interface index; 0 for any interface.
        public let interfaceIndex: UInt32

        fileprivate init(_ service: Service) {
            name = ASCIICaseInsensitive.lowercased(service.name)
            type = service.type
            domain = ASCIICaseInsensitive.lowercased(service.domain)
            interfaceIndex = service.interfaceIndex
        }

        /// True when every field is equal, the strings compared byte-wise as on the wire (not by
        /// Unicode canonical equivalence).
        public static func == (lhs: ID, rhs: ID) -> Bool {
            lhs.interfaceIndex == rhs.interfaceIndex && lhs.type == rhs.type
                && lhs.name.utf8.elementsEqual(rhs.name.utf8) && lhs.domain.utf8.elementsEqual(rhs.domain.utf8)
        }

        /// Hashes what ``==(_:_:)`` compares.
        public func hash(into hasher: inout Hasher) {
            Service.hash(interfaceIndex, type, name, domain, into: &hasher)
        }

        /// `name.type.domain%interfaceIndex`, e.g. `kitchen._chat._tcp.local.%2`.
        public var description: String { "\(name).\(type).\(domain)%\(interfaceIndex)" }
    }

    /// The instance name, any UTF-8 text up to 63 bytes (RFC 6763 §4.1.1), e.g. `Living Room Speaker`.
    public let name: String
    /// The service type, such as `_http._tcp`.
    public let type: ServiceType
    /// The domain, always with a trailing dot; `local.` for Multicast DNS.
    public let domain: String
    /// The interface the service was seen on or is published to; 0 means any / all interfaces.
    public let interfaceIndex: UInt32

    /// Creates a service reference. `domain` `""`, `"local"` or `"local."` (any case) becomes `"local."`;
    /// any other domain gets a trailing dot if it lacks one.
    public init(name: String, type: ServiceType, domain: String = "local.", interfaceIndex: UInt32 = 0) {
        self.name = name
        self.type = type
        self.domain = Service.normalisedDomain(domain)
        self.interfaceIndex = interfaceIndex
    }

    /// The identity of this service; see ``ID``.
    public var id: ID { ID(self) }

    // As ``ID`` compares, without building one: sets and dictionaries of services compare and
    // hash them often.
    /// True when the two have the same ``id``: name and domain equal with ASCII letters
    /// case-folded (RFC 6762 §16), and the same type and interface index.
    public static func == (lhs: Service, rhs: Service) -> Bool {
        lhs.interfaceIndex == rhs.interfaceIndex && lhs.type == rhs.type
            && ASCIICaseInsensitive.equal(lhs.name, rhs.name)
            && ASCIICaseInsensitive.equal(lhs.domain, rhs.domain)
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        Self.hash(interfaceIndex, type, name, domain, into: &hasher)
    }

    /// The hash of a service or ``ID``, consistent with their `==`: name and domain with ASCII
    /// letters folded.
    private static func hash(
        _ interfaceIndex: UInt32, _ type: ServiceType, _ name: String, _ domain: String, into hasher: inout Hasher
    ) {
        hasher.combine(interfaceIndex)
        hasher.combine(type)
        ASCIICaseInsensitive.hash(name, into: &hasher)
        ASCIICaseInsensitive.hash(domain, into: &hasher)
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, domain, interfaceIndex
    }

    /// Decodes `name` and `type` (required), `domain` (default `local.`, normalised like ``init(name:type:domain:interfaceIndex:)``)
    /// and `interfaceIndex` (default 0).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            type: try container.decode(ServiceType.self, forKey: .type),
            domain: try container.decodeIfPresent(String.self, forKey: .domain) ?? "local.",
            interfaceIndex: try container.decodeIfPresent(UInt32.self, forKey: .interfaceIndex) ?? 0)
    }

    /// Encodes `name`, `type` (as its ``ServiceType/rawValue``), `domain` and `interfaceIndex`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(domain, forKey: .domain)
        try container.encode(interfaceIndex, forKey: .interfaceIndex)
    }

    /// True for the domains multicast DNS serves: empty, `local` and `local.` (RFC 6762 §3).
    package static func isLocalDomain(_ domain: String) -> Bool {
        normalisedDomain(domain) == "local."
    }

    /// Throws `invalidConfiguration` unless `domain` is `local.` (or empty) or a domain name
    /// that unicast DNS can ask under: labels of 1 to 63 bytes, 255 in all.
    package static func checkDomain(_ domain: String) throws(CiaoError) {
        guard !isLocalDomain(domain) else { return }
        do {
            _ = try DomainName(parsing: normalisedDomain(domain))
        } catch {
            throw .invalidConfiguration("domain \"\(domain)\" is not a domain name: \(error)")
        }
    }

    /// `domain` as services carry it: `local.` for empty, `local` or `local.` in any case; any
    /// other domain with a trailing dot.
    package static func normalisedDomain(_ domain: String) -> String {
        switch ASCIICaseInsensitive.lowercased(domain) {
        case "", "local", "local.": return "local."
        default: return domain.hasSuffix(".") ? domain : domain + "."
        }
    }
}

extension Service: CustomStringConvertible {
    /// `name._type._tcp.domain`, with the instance name unescaped, e.g. `My Printer._ipp._tcp.local.`.
    public var description: String { "\(name).\(type).\(domain)" }
}
