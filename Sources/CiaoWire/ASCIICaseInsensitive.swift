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

    /// True when `lhs` and `rhs` are the same bytes once ASCII letters are folded.
    package static func equal(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        lhs.withUnsafeBufferPointer { lhs in rhs.withUnsafeBufferPointer { rhs in equal(lhs, rhs) } }
    }

    /// True when the UTF-8 of `lhs` and `rhs` is the same once ASCII letters are folded.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { lhs in rhs.withUTF8 { rhs in equal(lhs, rhs) } }
    }

    /// Feeds `bytes` to `hasher` with ASCII letters folded, so that bytes that are equal hash alike.
    package static func hash(_ bytes: [UInt8], into hasher: inout Hasher) {
        bytes.withUnsafeBufferPointer { hash($0, into: &hasher) }
    }

    /// Feeds the UTF-8 of `text` to `hasher` with ASCII letters folded.
    package static func hash(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hash($0, into: &hasher) }
    }

    // One implementation over plain buffers, fast even in debug builds, where a generic one
    // would not be specialized.
    private static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.indices where lhs[index] != rhs[index] && lowercase(lhs[index]) != lowercase(rhs[index]) {
            return false
        }
        return true
    }

    // Eight bytes per `combine`.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, into hasher: inout Hasher) {
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
