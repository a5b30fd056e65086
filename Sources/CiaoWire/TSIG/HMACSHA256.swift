/// HMAC (RFC 2104) with SHA-256, the MAC of TSIG's `hmac-sha256` algorithm (RFC 8945 §6).
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Whether two MACs are equal, in time that depends on their length only (RFC 8945 §5.3.1:
    /// a forger must learn nothing from how long a comparison takes).
    public static func isEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
