/// The base64 of RFC 4648 §4, decoded: how BIND's key files give a TSIG secret.
enum Base64 {
    /// The bytes `text` encodes, or nil when it is not base64 (padding required, no whitespace).
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        for start in stride(from: 0, to: characters.count, by: 4) {
            let quad = characters[start..<start + 4]
            let padding = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, start + 4 == characters.count || padding == 0 else { return nil }
            var value: UInt32 = 0
            for character in quad.dropLast(padding) {
                guard let sextet = sextet(character) else { return nil }
                value = value << 6 | UInt32(sextet)
            }
            value <<= UInt32(6 * padding)
            let decoded = [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            bytes += decoded.prefix(3 - padding)
        }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
