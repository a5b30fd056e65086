/// Byte comparison and hashing that fold ASCII letters only, as DNS names require (RFC 4343,
/// RFC 6762 §16). Bytes outside `A`–`Z` compare exactly, so UTF-8 is never case-folded.
package enum ASCIICaseInsensitive {
    @inline(__always)
    package static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// `text` with `A`–`Z` lowercased and every other character unchanged.
    package static func lowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(lowercase), as: UTF8.self)
    }

    static func equal(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var left = lhs.startIndex
        var right = rhs.startIndex
        while left < lhs.endIndex {
            let a = lhs[left], b = rhs[right]
            if a != b && lowercase(a) != lowercase(b) { return false }
            left += 1
            right += 1
        }
        return true
    }

    static func hash(_ bytes: [UInt8], into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        var word: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            word |= UInt64(lowercase(byte)) << shift
            shift += 8
            if shift == 64 {
                hasher.combine(word)
                word = 0
                shift = 0
            }
        }
        hasher.combine(word)
    }
}
