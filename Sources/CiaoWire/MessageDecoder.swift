/// A decoded message together with the records that were dropped from it.
public struct DecodedMessage: Hashable, Sendable {
    public var message: Message
    /// Records with malformed RDATA, skipped via their RDLENGTH.
    public var skippedRecords: [SkippedRecord]
}

extension Message {
    /// Decodes a message, dropping records whose RDATA is malformed.
    /// - Throws: ``DecodingError`` when the message as a whole cannot be decoded.
    public init(decoding bytes: [UInt8]) throws(DecodingError) {
        self = try Message.decode(bytes).message
    }

    /// Decodes a message total-ly: every input either decodes or gives a ``DecodingError``, in time
    /// and memory bounded by the input's length. Records whose RDATA is malformed are skipped and
    /// reported, the rest of the message kept. `limits` default to multicast DNS's.
    public static func decode(
        _ bytes: [UInt8], limits: DecodingLimits = .multicast
    ) throws(DecodingError) -> DecodedMessage {
        let result = bytes.withUnsafeBytes { buffer in
            withUnsafeTemporaryAllocation(byteCount: DomainName.maximumWireLength, alignment: 1) { scratch in
                var decoder = MessageDecoder(buffer, scratch: scratch, limits: limits)
                return Result { () throws(DecodingError) in try decoder.decodeMessage() }
            }
        }
        return try result.get()
    }
}

/// Reads one message from a buffer, checking every length against the bytes present.
struct MessageDecoder {
    /// Compression pointers followed in one name at most. A name has at most 127 labels, so no
    /// real name needs more; a loop or an absurd chain ends here.
    static let maximumPointerHops = 128

    /// A name needing this many pointers turns on ``nameCache`` for the rest of the packet.
    static let nameCacheThreshold = 8

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// Reused for every name: the uncompressed name under construction (255 bytes).
    private let scratch: UnsafeMutableRawBufferPointer
    private let limits: DecodingLimits
    /// The name read from each pointer target, once a packet has shown a long pointer chain. With
    /// it, each target is walked at most once, so a packet of chains decodes in time linear in its
    /// size rather than in size × chain length.
    private var nameCache: [Int: CachedName]?

    /// A name read from a pointer target, and the pointers followed to read it.
    private struct CachedName {
        var name: DomainName
        var hops: Int
    }

    init(_ bytes: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer, limits: DecodingLimits) {
        self.bytes = bytes
        self.scratch = scratch
        self.limits = limits
    }

    mutating func decodeMessage() throws(DecodingError) -> DecodedMessage {
        guard bytes.count >= MessageHeader.size else {
            throw DecodingError(.messageTooShort(length: bytes.count), at: 0)
        }
        guard bytes.count <= limits.maximumSize else {
            throw DecodingError(.messageTooLong(length: bytes.count), at: 0)
        }
        let header = MessageHeader(id: readUInt16(at: 0), flags: readUInt16(at: 2))
        guard header.opcode == 0 || limits.acceptsAnyOpcode else { throw DecodingError(.unsupportedOpcode(header.opcode), at: 2) }
        let questionCount = Int(readUInt16(at: 4))
        let answerCount = Int(readUInt16(at: 6))
        let authorityCount = Int(readUInt16(at: 8))
        let additionalCount = Int(readUInt16(at: 10))
        offset = MessageHeader.size

        var message = Message(header: header)
        var skipped: [SkippedRecord] = []
        // Capacity is bounded by what the remaining bytes can hold, never by the counts alone.
        message.questions.reserveCapacity(min(questionCount, (bytes.count - offset) / 5))
        for _ in 0..<questionCount {
            message.questions.append(try readQuestion())
        }
        message.answers = try readRecords(answerCount, section: .answer, skipped: &skipped)
        message.authorities = try readRecords(authorityCount, section: .authority, skipped: &skipped)
        message.additionals = try readRecords(additionalCount, section: .additional, skipped: &skipped)
        return DecodedMessage(message: message, skippedRecords: skipped)
    }

    // MARK: Sections

    private mutating func readQuestion() throws(DecodingError) -> Question {
        let name = try readName(end: bytes.count)
        try require(4, end: bytes.count)
        let type = readUInt16(at: offset)
        let qClass = readUInt16(at: offset + 2)
        offset += 4
        return Question(
            name: name, type: RecordType(type), qClass: RecordClass(rawValue: qClass & 0x7FFF),
            unicastResponse: qClass & 0x8000 != 0)
    }

    private mutating func readRecords(
        _ count: Int, section: SkippedRecord.Section, skipped: inout [SkippedRecord]
    ) throws(DecodingError) -> [ResourceRecord] {
        var records: [ResourceRecord] = []
        records.reserveCapacity(min(count, (bytes.count - offset) / 11))
        for index in 0..<count {
            let name = try readName(end: bytes.count)
            try require(10, end: bytes.count)
            let type = RecordType(readUInt16(at: offset))
            let rrClass = readUInt16(at: offset + 2)
            let ttl = UInt32(readUInt16(at: offset + 4)) << 16 | UInt32(readUInt16(at: offset + 6))
            let length = Int(readUInt16(at: offset + 8))
            offset += 10
            let start = offset
            let end = start + length
            guard end <= bytes.count else { throw DecodingError(.truncated, at: offset - 2) }
            do throws(DecodingError) {
                let data = try readRData(type: type, end: end)
                guard offset == end else {
                    throw DecodingError(.rdataLengthMismatch(declared: length, decoded: offset - start), at: start)
                }
                records.append(
                    ResourceRecord(
                        name: name, rrClass: RecordClass(rawValue: rrClass & 0x7FFF),
                        cacheFlush: rrClass & 0x8000 != 0, ttl: ttl, data: data))
            } catch {
                skipped.append(SkippedRecord(section: section, index: index, name: name, type: type, error: error))
                offset = end
            }
        }
        return records
    }

    // MARK: RDATA

    private mutating func readRData(type: RecordType, end: Int) throws(DecodingError) -> RecordData {
        let length = end - offset
        switch type {
        case .a:
            guard length == 4 else { throw DecodingError(.invalidRDataLength(type: type, length: length), at: offset) }
            defer { offset += 4 }
            return .a(IPv4Address(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]))
        case .aaaa:
            guard length == 16 else { throw DecodingError(.invalidRDataLength(type: type, length: length), at: offset) }
            defer { offset += 16 }
            return .aaaa(IPv6Address(high: readUInt64(at: offset), low: readUInt64(at: offset + 8)))
        case .ptr:
            return .ptr(try readName(end: end))
        case .srv:
            guard length >= 7 else { throw DecodingError(.invalidRDataLength(type: type, length: length), at: offset) }
            let priority = readUInt16(at: offset)
            let weight = readUInt16(at: offset + 2)
            let port = readUInt16(at: offset + 4)
            offset += 6
            return .srv(SRVData(priority: priority, weight: weight, port: port, target: try readName(end: end)))
        case .txt:
            let rdata = Array(bytes[offset..<end])
            do throws(TXTDataError) {
                let txt = try TXTData(wireBytes: rdata)
                offset = end
                return .txt(txt)
            } catch {
                throw DecodingError(.txtStringOverrun, at: offset + error.offset)
            }
        case .nsec:
            return .nsec(try readNSEC(end: end))
        case .opt:
            return .opt(try readOptions(end: end))
        default:
            if let fields = RDataLayout.fields(of: type) {
                return .unknown(type, try readExpandingNames(fields, type: type, end: end))
            }
            defer { offset = end }
            return .unknown(type, Array(bytes[offset..<end]))
        }
    }

    /// RDATA of a type kept as opaque bytes, with any compressed names written out in full.
    private mutating func readExpandingNames(
        _ fields: [RDataLayout.Field], type: RecordType, end: Int
    ) throws(DecodingError) -> [UInt8] {
        var expanded: [UInt8] = []
        for field in fields {
            switch field {
            case .uint16:
                try require(2, end: end)
                expanded += bytes[offset..<(offset + 2)]
                offset += 2
            case .bytes(let count):
                try require(count, end: end)
                expanded += bytes[offset..<(offset + count)]
                offset += count
            case .name:
                let name = try readName(end: end)
                expanded += name.storage + [0]
            }
        }
        return expanded
    }

    /// NSEC RDATA: next domain name, then window blocks in increasing order, each with a bitmap of
    /// 1–32 bytes (RFC 4034 §4.1.2).
    private mutating func readNSEC(end: Int) throws(DecodingError) -> NSECData {
        let next = try readName(end: end)
        var types: [RecordType] = []
        var previousWindow = -1
        while offset < end {
            guard end - offset >= 2 else { throw DecodingError(.invalidTypeBitmap, at: offset) }
            let window = Int(bytes[offset])
            let length = Int(bytes[offset + 1])
            guard window > previousWindow, (1...32).contains(length), offset + 2 + length <= end else {
                throw DecodingError(.invalidTypeBitmap, at: offset)
            }
            for byteIndex in 0..<length {
                let bits = bytes[offset + 2 + byteIndex]
                for bit in 0..<8 where bits & (0x80 >> bit) != 0 {
                    types.append(RecordType(UInt16(window << 8 | byteIndex << 3 | bit)))
                }
            }
            previousWindow = window
            offset += 2 + length
        }
        return NSECData(nextDomainName: next, types: types)
    }

    private mutating func readOptions(end: Int) throws(DecodingError) -> [EDNSOption] {
        var options: [EDNSOption] = []
        while offset < end {
            guard end - offset >= 4 else { throw DecodingError(.optionOverrun, at: offset) }
            let code = readUInt16(at: offset)
            let length = Int(readUInt16(at: offset + 2))
            guard offset + 4 + length <= end else { throw DecodingError(.optionOverrun, at: offset) }
            options.append(EDNSOption(code: code, data: Array(bytes[(offset + 4)..<(offset + 4 + length)])))
            offset += 4 + length
        }
        return options
    }

    // MARK: Names

    /// Reads a possibly compressed name whose in-place bytes end before `end`; pointers may lead
    /// anywhere in the message after the header, backwards or forwards (RFC 1035 §4.1.4).
    private mutating func readName(end: Int) throws(DecodingError) -> DomainName {
        var length = 0
        var position = offset
        var limit = end
        var resumeOffset: Int?
        var hops = 0
        // Pointer targets walked in this name, where their labels start in `scratch`, and the
        // pointers followed before reaching them.
        var walkedTargets: [WalkedTarget] = []
        while true {
            guard position < limit else { throw DecodingError(.truncated, at: position) }
            let byte = bytes[position]
            switch byte & 0xC0 {
            case 0x00:
                if byte == 0 {
                    offset = resumeOffset ?? position + 1
                    return finishName(length: length, hops: hops, walkedTargets: walkedTargets)
                }
                let labelLength = Int(byte)
                guard position + 1 + labelLength <= limit else { throw DecodingError(.truncated, at: position) }
                guard length + 1 + labelLength + 1 <= DomainName.maximumWireLength else {
                    throw DecodingError(.nameTooLong, at: position)
                }
                scratch.baseAddress!.advanced(by: length)
                    .copyMemory(from: bytes.baseAddress!.advanced(by: position), byteCount: 1 + labelLength)
                length += 1 + labelLength
                position += 1 + labelLength
            case 0xC0:
                guard position + 2 <= limit else { throw DecodingError(.truncated, at: position) }
                let target = Int(readUInt16(at: position) & 0x3FFF)
                guard target >= MessageHeader.size, target < bytes.count else {
                    throw DecodingError(.pointerOutOfBounds(target: target), at: position)
                }
                hops += 1
                // A cached suffix counts with the pointers it took, so the limit does not depend on
                // what else the packet holds.
                let cached = nameCache?[target]
                guard hops + (cached?.hops ?? 0) <= Self.maximumPointerHops else {
                    throw DecodingError(.tooManyPointers, at: position)
                }
                if resumeOffset == nil { resumeOffset = position + 2 }
                if let cached {
                    let suffix = cached.name.storage
                    guard length + suffix.count + 1 <= DomainName.maximumWireLength else {
                        throw DecodingError(.nameTooLong, at: position)
                    }
                    suffix.withUnsafeBytes {
                        scratch.baseAddress!.advanced(by: length).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                    }
                    offset = resumeOffset!
                    return finishName(
                        length: length + suffix.count, hops: hops + cached.hops, walkedTargets: walkedTargets)
                }
                if nameCache != nil { walkedTargets.append(WalkedTarget(target: target, start: length, hops: hops)) }
                position = target
                limit = bytes.count
            default:
                throw DecodingError(.reservedLabelType(byte & 0xC0), at: position)
            }
        }
    }

    /// The name in `scratch`; caches the suffix at each pointer target walked, when caching is on.
    private mutating func finishName(length: Int, hops: Int, walkedTargets: [WalkedTarget]) -> DomainName {
        let name = DomainName(validatedStorage: Array(UnsafeRawBufferPointer(rebasing: scratch[..<length])))
        if nameCache == nil, hops >= Self.nameCacheThreshold { nameCache = [:] }
        for walked in walkedTargets where nameCache?[walked.target] == nil {
            let suffix = DomainName(
                validatedStorage: Array(UnsafeRawBufferPointer(rebasing: scratch[walked.start..<length])))
            nameCache?[walked.target] = CachedName(name: suffix, hops: hops - walked.hops)
        }
        return name
    }

    /// A pointer target passed while reading one name.
    private struct WalkedTarget {
        var target: Int
        /// Where the target's labels start in `scratch`.
        var start: Int
        /// Pointers followed up to and including the one to `target`.
        var hops: Int
    }

    // MARK: Primitives

    private func require(_ count: Int, end: Int) throws(DecodingError) {
        guard end - offset >= count else { throw DecodingError(.truncated, at: offset) }
    }

    private func readUInt16(at position: Int) -> UInt16 {
        UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    private func readUInt64(at position: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<(position + 8) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
