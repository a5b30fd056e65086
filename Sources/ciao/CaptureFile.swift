/// The DNS messages in a file given to `ciao decode`: a pcap or pcapng capture (UDP port 5353
/// payloads), hex text (one message per blank-line-separated block), or one raw message.
struct CaptureFile {
    /// One DNS message and where it came from.
    struct Entry: Equatable {
        /// "packet N" for captures, "message N" for hex blocks, "input" for raw bytes.
        var label: String
        var bytes: [UInt8]
    }

    /// Why a file could not be read as a capture.
    struct FormatError: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    var entries: [Entry]

    init(_ data: [UInt8]) throws(FormatError) {
        switch data.prefix(4) {
        case [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D]:
            entries = try Self.pcapEntries(data)
        case [0x0A, 0x0D, 0x0D, 0x0A]:
            entries = try Self.pcapngEntries(data)
        default:
            if let blocks = Self.hexBlocks(data) {
                entries = blocks.enumerated().map { Entry(label: "message \($0.offset + 1)", bytes: $0.element) }
            } else {
                entries = [Entry(label: "input", bytes: data)]
            }
        }
    }

    // MARK: Hex text

    /// Blocks of hex digits separated by blank lines; `nil` if the data is not hex text.
    static func hexBlocks(_ data: [UInt8]) -> [[UInt8]]? {
        guard let text = String(validating: data, as: UTF8.self), !text.isEmpty else { return nil }
        var blocks: [[UInt8]] = []
        for block in text.split(separator: "\n\n", omittingEmptySubsequences: true) {
            let digits = block.unicodeScalars.filter { !$0.properties.isWhitespace }
            guard !digits.isEmpty else { continue }
            guard digits.count % 2 == 0, digits.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return nil }
            let values = digits.map { UInt8(String($0), radix: 16)! }
            blocks.append(stride(from: 0, to: values.count, by: 2).map { values[$0] << 4 | values[$0 + 1] })
        }
        return blocks.isEmpty ? nil : blocks
    }

    // MARK: pcap

    /// Classic pcap: 24-byte file header, then 16-byte record headers (either byte order).
    static func pcapEntries(_ data: [UInt8]) throws(FormatError) -> [Entry] {
        var reader = ByteReader(data, bigEndian: data[0] == 0xA1)
        guard let linkType = reader.uint32(at: 20) else { throw FormatError(description: "pcap header is truncated") }
        var entries: [Entry] = []
        var offset = 24
        var packetNumber = 0
        while offset < data.count {
            packetNumber += 1
            guard let captured = reader.uint32(at: offset + 8), offset + 16 + Int(captured) <= data.count else {
                throw FormatError(description: "pcap record \(packetNumber) is truncated")
            }
            let frame = data[(offset + 16)..<(offset + 16 + Int(captured))]
            if let payload = FrameDecoder.mdnsPayload(frame, linkType: linkType) {
                entries.append(Entry(label: "packet \(packetNumber)", bytes: Array(payload)))
            }
            offset += 16 + Int(captured)
        }
        reader.bigEndian = false
        return entries
    }

    // MARK: pcapng

    /// pcapng: blocks of (type, length, body, length); interface link types come from IDBs,
    /// packets from EPBs (and SPBs, which use interface 0).
    static func pcapngEntries(_ data: [UInt8]) throws(FormatError) -> [Entry] {
        guard data.count >= 12 else { throw FormatError(description: "pcapng header is truncated") }
        var reader = ByteReader(data, bigEndian: data[8] == 0x1A)
        var linkTypes: [UInt32] = []
        var entries: [Entry] = []
        var offset = 0
        var packetNumber = 0
        while offset + 12 <= data.count {
            guard let type = reader.uint32(at: offset), let length = reader.uint32(at: offset + 4).map(Int.init),
                length >= 12, length % 4 == 0, offset + length <= data.count
            else { throw FormatError(description: "pcapng block at offset \(offset) is malformed") }
            switch type {
            case 0x0A0D_0D0A:
                reader.bigEndian = data[offset + 8] == 0x1A
                linkTypes = []
            case 1:
                linkTypes.append(UInt32(reader.uint16(at: offset + 8) ?? 0))
            case 6, 3:
                packetNumber += 1
                let isEnhanced = type == 6
                let interface = isEnhanced ? Int(reader.uint32(at: offset + 8) ?? 0) : 0
                let capturedOffset = offset + (isEnhanced ? 20 : 8)
                let headerLength = isEnhanced ? 28 : 16
                guard interface < linkTypes.count, let captured = reader.uint32(at: capturedOffset).map(Int.init),
                    headerLength + captured <= length - 4
                else { throw FormatError(description: "pcapng packet \(packetNumber) is malformed") }
                let start = offset + headerLength
                if let payload = FrameDecoder.mdnsPayload(
                    data[start..<(start + captured)], linkType: linkTypes[interface])
                {
                    entries.append(Entry(label: "packet \(packetNumber)", bytes: Array(payload)))
                }
            default:
                break
            }
            offset += length
        }
        return entries
    }
}

/// Reads integers in a capture file's byte order.
struct ByteReader {
    let data: [UInt8]
    var bigEndian: Bool

    init(_ data: [UInt8], bigEndian: Bool) {
        self.data = data
        self.bigEndian = bigEndian
    }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= data.count else { return nil }
        let (a, b) = (UInt16(data[offset]), UInt16(data[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }
}
