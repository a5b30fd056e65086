import CiaoWire

/// A DNS-SD service type such as `_http._tcp` (RFC 6763 §7): an RFC 6335 §5.1 service name and a transport.
///
/// The canonical ``rawValue`` is lowercase with no trailing dot and no domain; subtypes are not part of it.
/// ``init(_:)`` checks RFC 6335 for what Ciao publishes; ``init(observed:)`` takes any type a peer
/// publishes (`_CinchGamingService._tcp`, 18 characters, as Apple's NetService and avahi do).
/// Encodes (`Codable`) as that single string; decoding accepts what ``init(observed:)`` does.
public struct ServiceType: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The transport label, `_tcp` or `_udp` (RFC 6763 §7).
    public enum Transport: String, Hashable, Sendable, Codable, CaseIterable {
        /// `_tcp`: the service runs over TCP.
        case tcp
        /// `_udp`: every other service, whatever its transport (RFC 6763 §7).
        case udp
    }

    /// The service name without the leading underscore, lowercased, e.g. `http`.
    public let name: String
    /// The transport, `.tcp` or `.udp`.
    public let transport: Transport

    /// The canonical form `_name._tcp` / `_name._udp`: lowercase, no trailing dot.
    public var rawValue: String { "_\(name)._\(transport.rawValue)" }

    /// The ``rawValue``, e.g. `_http._tcp`.
    public var description: String { rawValue }

    /// Parses `_name._tcp` or `_name._udp`, with an optional trailing dot, in any letter case.
    ///
    /// - Throws: ``CiaoError/invalidServiceType(_:)`` naming the input and the rule it breaks
    ///   (RFC 6335 §5.1: 1–15 ASCII letters, digits and hyphens, at least one letter, no hyphen
    ///   at either end, no `--`).
    public init(_ rawValue: String) throws {
        let (name, transport) = try ServiceType.labels(of: rawValue)
        self.name = try ServiceType.validatedName(name, input: rawValue)
        self.transport = transport
    }

    /// Parses a type as found on the network or in code written for other stacks: `_label._tcp`
    /// or `_label._udp` whose label is any DNS-SD label (up to 63 bytes with its underscore, no
    /// control characters: C0, DEL, C1, U+2028, U+2029), in any letter case, with an optional
    /// trailing dot.
    ///
    /// - Throws: ``CiaoError/invalidServiceType(_:)`` naming the input and the rule it breaks.
    public init(observed rawValue: String) throws {
        let (name, transport) = try ServiceType.labels(of: rawValue)
        guard (1...62).contains(name.utf8.count), !name.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw CiaoError.invalidServiceType(
                "\"\(rawValue)\": the service label must be 1 to 62 bytes after its underscore, without control characters"
            )
        }
        self.name = ASCIICaseInsensitive.lowercased(name)
        self.transport = transport
    }

    /// True when the name follows RFC 6335 §5.1, as ``init(_:)`` requires: 1–15 letters, digits
    /// and hyphens. Types seen on the network may not.
    public var isRFC6335: Bool { (try? ServiceType.validatedName(Substring(name), input: rawValue)) != nil }

    /// Throws `invalidConfiguration` unless `subtype` is one DNS label of 2–63 bytes starting with
    /// `_`, such as `_printer` (RFC 6763 §7.1).
    public static func checkSubtype(_ subtype: String) throws(CiaoError) {
        guard subtype.hasPrefix("_"), (2...63).contains(subtype.utf8.count), !subtype.contains(".") else {
            throw .invalidConfiguration("subtype \"\(subtype)\" must be one label of 2–63 bytes starting with \"_\"")
        }
    }

    /// The service name (without its underscore) and the transport of `_name._tcp` / `_name._udp`.
    private static func labels(of rawValue: String) throws -> (name: Substring, transport: Transport) {
        var text = Substring(rawValue)
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty else {
            throw CiaoError.invalidServiceType("\"\(rawValue)\" is empty; expected \"_name._tcp\" or \"_name._udp\"")
        }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count == 2 else {
            throw CiaoError.invalidServiceType(
                "\"\(rawValue)\" must have exactly two labels, \"_name._tcp\" or \"_name._udp\" (no domain, no subtype)"
            )
        }
        let transportLabel = labels[1]
        let transport: Transport
        switch ASCIICaseInsensitive.lowercased(transportLabel) {
        case "_tcp": transport = .tcp
        case "_udp": transport = .udp
        default:
            throw CiaoError.invalidServiceType(
                "\"\(rawValue)\": the transport must be \"_tcp\" or \"_udp\", not \"\(transportLabel)\"")
        }
        let nameLabel = labels[0]
        guard nameLabel.hasPrefix("_") else {
            throw CiaoError.invalidServiceType(
                "\"\(rawValue)\": the service name must start with an underscore, as in \"_\(nameLabel)._\(transport.rawValue)\""
            )
        }
        return (nameLabel.dropFirst(), transport)
    }

    /// The TCP service type `_name._tcp`; `name` is given without the leading underscore (one is tolerated).
    ///
    /// - Throws: ``CiaoError/invalidServiceType(_:)`` if `name` breaks RFC 6335 §5.1.
    public static func tcp(_ name: String) throws -> ServiceType {
        try ServiceType(name: name, transport: .tcp)
    }

    /// The UDP service type `_name._udp`; `name` is given without the leading underscore (one is tolerated).
    ///
    /// - Throws: ``CiaoError/invalidServiceType(_:)`` if `name` breaks RFC 6335 §5.1.
    public static func udp(_ name: String) throws -> ServiceType {
        try ServiceType(name: name, transport: .udp)
    }

    private init(name: String, transport: Transport) throws {
        let bare = name.hasPrefix("_") ? Substring(name).dropFirst() : Substring(name)
        self.name = try ServiceType.validatedName(bare, input: name)
        self.transport = transport
    }

    /// Decodes a single string, accepted as ``init(observed:)`` accepts it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(observed: string)
        } catch {
            throw Swift.DecodingError.dataCorruptedError(
                in: container, debugDescription: String(describing: error))
        }
    }

    /// Encodes the ``rawValue`` as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Checks an RFC 6335 §5.1 service name (without underscore) and returns it lowercased.
    private static func validatedName(_ name: Substring, input: String) throws -> String {
        func fail(_ rule: String) -> CiaoError {
            CiaoError.invalidServiceType("\"\(input)\": the service name \"\(name)\" \(rule) (RFC 6335 §5.1)")
        }
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { throw fail("is empty; it needs 1 to 15 characters") }
        guard bytes.count <= 15 else { throw fail("is \(bytes.count) bytes long; at most 15 are allowed") }
        var hasLetter = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                hasLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                break
            default:
                throw fail("may contain only ASCII letters, digits and hyphens")
            }
        }
        guard hasLetter else { throw fail("must contain at least one letter") }
        guard bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else {
            throw fail("must not begin or end with a hyphen")
        }
        guard !name.contains("--") else { throw fail("must not contain two hyphens in a row") }
        return ASCIICaseInsensitive.lowercased(name)
    }
}
