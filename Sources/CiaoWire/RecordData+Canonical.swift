extension RecordData {
    /// The RDATA in uncompressed wire form, as compared in probe tie-breaking (RFC 6762 §8.2) and
    /// as the bytes of an NSEC type bit map are laid out (RFC 4034 §4.1.2).
    public var uncompressedBytes: [UInt8] {
        switch self {
        case .a(let address): [address.bytes.0, address.bytes.1, address.bytes.2, address.bytes.3]
        case .aaaa(let address): address.bytes
        case .ptr(let name): name.storage + [0]
        case .srv(let srv):
            Self.bigEndian([srv.priority, srv.weight, srv.port]) + srv.target.storage + [0]
        case .txt(let txt): txt.wireBytes
        case .nsec(let nsec): nsec.nextDomainName.storage + [0] + TypeBitmap.bytes(nsec.types)
        case .opt(let options):
            options.flatMap { option -> [UInt8] in
                Self.bigEndian([option.code, UInt16(truncatingIfNeeded: option.data.count)]) + option.data
            }
        case .unknown(_, let bytes): bytes
        }
    }

    private static func bigEndian(_ values: [UInt16]) -> [UInt8] {
        values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

/// NSEC type bit maps (RFC 4034 §4.1.2): window blocks of up to 32 bytes for sorted types.
enum TypeBitmap {
    static func bytes(_ types: [RecordType]) -> [UInt8] {
        var result: [UInt8] = []
        var index = types.startIndex
        while index < types.endIndex {
            let window = types[index].rawValue >> 8
            var bitmap = [UInt8](repeating: 0, count: 32)
            var length = 0
            while index < types.endIndex, types[index].rawValue >> 8 == window {
                let low = Int(types[index].rawValue & 0xFF)
                bitmap[low >> 3] |= 0x80 >> UInt8(low & 7)
                length = low >> 3 + 1
                index += 1
            }
            result.append(UInt8(window))
            result.append(UInt8(length))
            result.append(contentsOf: bitmap[..<length])
        }
        return result
    }
}
