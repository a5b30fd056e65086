import CiaoWire

extension ResourceRecord {
    /// Whether this is an NSEC saying its name has no record of `type` (RFC 6762 §6.1): a live
    /// NSEC of class IN that does not list `type`. It speaks only of the types its bitmap covers:
    /// those below 256 (the one window mDNS responders send), and a higher one only when a type of
    /// its window is listed. It never denies ANY or NSEC itself.
    public func denies(_ type: RecordType) -> Bool {
        guard case .nsec(let nsec) = data, ttl > 0, rrClass == .internet, type != .any, type != .nsec else {
            return false
        }
        let window = type.rawValue >> 8
        guard window == 0 || nsec.types.contains(where: { $0.rawValue >> 8 == window }) else { return false }
        return !nsec.types.contains(type)
    }
}
