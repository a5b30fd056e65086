#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes messages into bytes with name compression, within a size budget (RFC 1035 §4.1.4,
/// RFC 6762 §17, §18.14). Output is deterministic: the same message always gives the same bytes.
struct MessageEncoder {
    /// What happened to an entry offered to the message.
    enum Placement {
        case placed
        /// The entry would take the message past its budget and was left out; it takes `size` bytes.
        case overflow(size: Int)
    }

    /// The budget; raised by ``Message/encodedTruncating(maximumSize:)`` once the room it kept
    /// for OPT records is theirs to take.
    var maximumSize: Int
    private(set) var bytes: [UInt8] = []
    private var table: CompressionTable
    /// Questions, answers, authority and additional records in the current message.
    private var counts = SIMD4<UInt16>()

    /// An encoder for messages of at most `maximumSize` bytes holding about `entryCount` entries.
    /// Its compression table is sized for one message: about three name suffixes an entry, and no
    /// more than the budget has room for (a label takes at least two bytes), however many packets
    /// a long message is split into.
    init(maximumSize: Int, entryCount: Int) {
        self.maximumSize = maximumSize
        let suffixesThatFit = max(0, maximumSize - MessageHeader.size) / 2 + 1
        table = CompressionTable(capacity: min(entryCount * 3 + 8, suffixesThatFit))
        bytes.reserveCapacity(min(maximumSize, MessageHeader.size + entryCount * 48))
    }

    /// True when no entry has been placed in the current message.
    var isEmpty: Bool { counts == .zero }

    /// Begins a new message with `header`.
    mutating func start(_ header: MessageHeader) {
        bytes.removeAll(keepingCapacity: true)
        table.truncate(to: 0)
        counts = .zero
        append(header.id)
        append(header.flags)
        bytes.append(contentsOf: repeatElement(0, count: 8))
    }

    /// The current message with its section counts filled in.
    mutating func finish() -> [UInt8] {
        for index in 0..<4 {
            bytes[4 + 2 * index] = UInt8(counts[index] >> 8)
            bytes[5 + 2 * index] = UInt8(truncatingIfNeeded: counts[index])
        }
        return bytes
    }

    mutating func place(_ question: Question) -> Placement {
        placeEntry(section: 0) { encoder in
            encoder.write(question.name)
            encoder.append(question.type.rawValue)
            encoder.append(question.qClass.rawValue & 0x7FFF | (question.unicastResponse ? 0x8000 : 0))
        }
    }

    /// Places a record in section 1 (answer), 2 (authority) or 3 (additional).
    mutating func place(_ record: ResourceRecord, section: Int) throws(EncodingError) -> Placement {
        try placeEntry(section: section) { encoder throws(EncodingError) in try encoder.write(record) }
    }

    private mutating func placeEntry<Failure: Error>(
        section: Int, _ write: (inout MessageEncoder) throws(Failure) -> Void
    ) throws(Failure) -> Placement {
        let byteMark = bytes.count
        let tableMark = table.count
        try write(&self)
        guard bytes.count <= maximumSize, counts[section] < UInt16.max else {
            let size = bytes.count - byteMark
            bytes.removeSubrange(byteMark...)
            table.truncate(to: tableMark)
            return .overflow(size: size)
        }
        counts[section] += 1
        return .placed
    }

    // MARK: Records

    private mutating func write(_ record: ResourceRecord) throws(EncodingError) {
        write(record.name)
        append(record.type.rawValue)
        append(record.rrClass.rawValue & 0x7FFF | (record.cacheFlush ? 0x8000 : 0))
        append(UInt16(record.ttl >> 16))
        append(UInt16(truncatingIfNeeded: record.ttl))
        let lengthPosition = bytes.count
        append(UInt16(0))
        switch record.data {
        case .a(let address):
            bytes.append(contentsOf: [address.bytes.0, address.bytes.1, address.bytes.2, address.bytes.3])
        case .aaaa(let address):
            append(address.high)
            append(address.low)
        case .ptr(let name):
            write(name)
        case .srv(let srv):
            append(srv.priority)
            append(srv.weight)
            append(srv.port)
            write(srv.target)
        case .txt(let txt):
            bytes.append(contentsOf: txt.wireBytes)
        case .nsec(let nsec):
            write(nsec.nextDomainName)
            bytes.append(contentsOf: TypeBitmap.bytes(nsec.types))
        case .opt(let options):
            for option in options {
                append(option.code)
                append(UInt16(truncatingIfNeeded: option.data.count))
                bytes.append(contentsOf: option.data)
                guard option.data.count <= 0xFFFF else {
                    throw .rdataTooLong(type: .opt, length: option.data.count)
                }
            }
        case .unknown(_, let data):
            bytes.append(contentsOf: data)
        }
        let length = bytes.count - lengthPosition - 2
        guard length <= 0xFFFF else { throw .rdataTooLong(type: record.type, length: length) }
        bytes[lengthPosition] = UInt8(length >> 8)
        bytes[lengthPosition + 1] = UInt8(truncatingIfNeeded: length)
    }

    // MARK: Names

    /// Writes `name`, replacing its longest suffix already in the message with a pointer.
    private mutating func write(_ name: DomainName) {
        // Two buffers of at most 1 KiB each, which Swift always places on the stack.
        name.storage.withUnsafeBufferPointer { storage in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { starts in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { hashes in
                    write(storage, labelStarts: starts, suffixHashes: hashes)
                }
            }
        }
    }

    /// `storage` is a name's labels; `labelStarts` and `suffixHashes` have room for one entry per label.
    private mutating func write(
        _ storage: UnsafeBufferPointer<UInt8>, labelStarts: UnsafeMutableBufferPointer<UInt8>,
        suffixHashes: UnsafeMutableBufferPointer<UInt64>
    ) {
        // Label starts, then suffix hashes (FNV-1a) from the last label back to the first, so each
        // suffix's hash extends the one after it.
        var labelCount = 0
        var index = 0
        while index < storage.count {
            labelStarts[labelCount] = UInt8(index)
            labelCount += 1
            index += 1 + Int(storage[index])
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var end = storage.count
        for label in stride(from: labelCount - 1, through: 0, by: -1) {
            let start = Int(labelStarts[label])
            for position in start..<end { hash = (hash ^ UInt64(storage[position])) &* 0x100_0000_01b3 }
            suffixHashes[label] = hash
            end = start
        }

        var pointer: Int?
        var written = labelCount
        for label in 0..<labelCount {
            let start = Int(labelStarts[label])
            table.forEachOffset(of: suffixHashes[label]) { offset in
                guard matches(storage, from: start, at: offset) else { return false }
                pointer = offset
                return true
            }
            if pointer != nil {
                written = label
                break
            }
        }
        for label in 0..<written {
            let start = Int(labelStarts[label])
            if bytes.count < 0x4000 { table.insert(suffixHashes[label], offset: bytes.count) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: storage[start...(start + Int(storage[start]))]))
        }
        if let pointer {
            append(UInt16(0xC000 | pointer))
        } else {
            bytes.append(0)
        }
    }

    /// True when the name written at `offset` (following our own pointers) is byte for byte the
    /// suffix of `storage` that starts at `start`.
    private func matches(_ storage: UnsafeBufferPointer<UInt8>, from start: Int, at offset: Int) -> Bool {
        bytes.withUnsafeBufferPointer { message in
            var index = start
            var position = offset
            while true {
                while message[position] >= 0xC0 {
                    position = Int(message[position] & 0x3F) << 8 | Int(message[position + 1])
                }
                let length = Int(message[position])
                guard index < storage.count else { return length == 0 }
                guard length == Int(storage[index]),
                    memcmp(storage.baseAddress! + index + 1, message.baseAddress! + position + 1, length) == 0
                else { return false }
                index += 1 + length
                position += 1 + length
            }
        }
    }

    // MARK: Integers

    private mutating func append(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    private mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
