import CiaoWire

/// Pieces of hand-made datagrams, for bytes the encoder would never write.
public enum RawPackets {
    /// A 12-byte header with `id`, `flags` and the section counts in `counts` (missing ones 0).
    public static func header(id: UInt16 = 0, flags: UInt16 = 0, counts: [UInt16]) -> [UInt8] {
        let words = [id, flags] + counts + Array(repeating: 0, count: 4 - counts.count)
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// The uncompressed wire form of the name `text`.
    public static func wire(_ text: String) -> [UInt8] {
        Names.name(text).storage + [0]
    }

    /// A record's fixed fields after its owner name: type, class, TTL 120 and RDLENGTH.
    public static func fields(type: UInt16, rdlength: Int, rrClass: UInt16 = 1) -> [UInt8] {
        [
            UInt8(type >> 8), UInt8(type & 0xFF), UInt8(rrClass >> 8), UInt8(rrClass & 0xFF), 0, 0, 0, 120,
            UInt8(rdlength >> 8), UInt8(rdlength & 0xFF),
        ]
    }
}
