/// Zone-file style text for records and questions (RFC 1035 §5.1, RFC 3597 §5 for unknown types),
/// as `dig` prints them; for logs, the `ciao decode` command and test failures.
extension RecordData: CustomStringConvertible {
    public var description: String {
        switch self {
        case .a(let address): address.description
        case .aaaa(let address): address.description
        case .ptr(let name): name.description
        case .srv(let srv): "\(srv.priority) \(srv.weight) \(srv.port) \(srv.target)"
        case .txt(let txt): txt.strings.map(Self.quoted).joined(separator: " ")
        case .nsec(let nsec): ([nsec.nextDomainName.description] + nsec.types.map(\.description)).joined(separator: " ")
        case .opt(let options):
            options.map { "OPTION\($0.code)=\(Self.hex($0.data))" }.joined(separator: " ")
        case .unknown(.hinfo, let bytes) where Self.characterStrings(bytes)?.count == 2:
            Self.characterStrings(bytes)!.map(Self.quoted).joined(separator: " ")
        case .unknown(.soa, let bytes) where SOAData(rdata: bytes) != nil:
            SOAData(rdata: bytes)!.presentation
        case .unknown(_, let bytes): "\\# \(bytes.count)" + (bytes.isEmpty ? "" : " \(Self.hex(bytes))")
        }
    }

    /// RDATA that is exactly a run of length-prefixed character strings (RFC 1035 §3.3), such as
    /// HINFO's CPU and OS; nil when the lengths do not add up to the whole.
    static func characterStrings(_ bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        var strings: [ArraySlice<UInt8>] = []
        var index = 0
        while index < bytes.count {
            let end = index + 1 + Int(bytes[index])
            guard end <= bytes.count else { return nil }
            strings.append(bytes[(index + 1)..<end])
            index = end
        }
        return strings
    }

    /// A character string in double quotes: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`.
    static func quoted(_ string: ArraySlice<UInt8>) -> String {
        var text = "\""
        for byte in string {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: text.unicodeScalars.append(UnicodeScalar(byte))
            default: text += DomainName.decimalEscape(byte)
            }
        }
        return text + "\""
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension ResourceRecord: CustomStringConvertible {
    /// `name TTL CLASS TYPE RDATA`, with `(cache-flush)` after the class when the bit is set.
    public var description: String {
        "\(name) \(ttl) \(rrClass)\(cacheFlush ? " (cache-flush)" : "") \(type) \(data)"
    }
}

extension Question: CustomStringConvertible {
    /// `name CLASS TYPE`, with `(QU)` when a unicast response is requested.
    public var description: String {
        "\(name) \(qClass) \(type)\(unicastResponse ? " (QU)" : "")"
    }
}
