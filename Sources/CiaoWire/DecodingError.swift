/// Why a message or record could not be decoded, and the byte offset where decoding stopped.
public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// Fewer than the 12 bytes of a header.
        case messageTooShort(length: Int)
        /// Longer than the decoding limit: the 9000 bytes mDNS allows (RFC 6762 §17) by default.
        case messageTooLong(length: Int)
        /// OPCODE other than 0, which mDNS ignores (RFC 6762 §18.3).
        case unsupportedOpcode(UInt8)
        /// A field runs past the end of the message (or of its RDATA).
        case truncated
        /// Label type 0x40 or 0x80, reserved (RFC 6891 §5).
        case reservedLabelType(UInt8)
        /// A name longer than 255 bytes in wire form (RFC 1035 §2.3.4).
        case nameTooLong
        /// A compression pointer to the header or past the end of the message.
        case pointerOutOfBounds(target: Int)
        /// More compression pointers in one name than any real name needs (loops end here).
        case tooManyPointers
        /// RDATA of a length its type does not allow (A not 4, AAAA not 16, SRV under 7 bytes).
        case invalidRDataLength(type: RecordType, length: Int)
        /// RDATA that decodes to fewer or more bytes than RDLENGTH says.
        case rdataLengthMismatch(declared: Int, decoded: Int)
        /// A TXT character string longer than the RDATA left for it.
        case txtStringOverrun
        /// NSEC type bit maps that are out of order, empty, over 32 bytes or past the RDATA.
        case invalidTypeBitmap
        /// An EDNS option running past the OPT RDATA.
        case optionOverrun
    }

    public var reason: Reason
    /// Offset in the message where the problem was found.
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String =
            switch reason {
            case .messageTooShort(let length): "message of \(length) bytes is shorter than the 12-byte header"
            case .messageTooLong(let length): "message of \(length) bytes exceeds the decoding limit (9000 bytes for mDNS)"
            case .unsupportedOpcode(let opcode): "opcode \(opcode) is not a standard query"
            case .truncated: "field runs past the end of the data"
            case .reservedLabelType(let byte): "reserved label type 0x\(String(byte, radix: 16))"
            case .nameTooLong: "name exceeds 255 bytes"
            case .pointerOutOfBounds(let target): "compression pointer to offset \(target) is outside the message"
            case .tooManyPointers: "too many compression pointers (a pointer loop)"
            case .invalidRDataLength(let type, let length): "\(type) RDATA of \(length) bytes is malformed"
            case .rdataLengthMismatch(let declared, let decoded):
                "RDATA decodes to \(decoded) bytes but RDLENGTH is \(declared)"
            case .txtStringOverrun: "TXT string overruns its RDATA"
            case .invalidTypeBitmap: "NSEC type bit map is malformed"
            case .optionOverrun: "EDNS option overruns its RDATA"
            }
        return "\(what) (at offset \(offset))"
    }
}

/// A record the decoder dropped while keeping the rest of the message, because its RDATA was
/// malformed but RDLENGTH told where the next record starts.
public struct SkippedRecord: Hashable, Sendable {
    public enum Section: Hashable, Sendable { case answer, authority, additional }

    public var section: Section
    /// Position of the record within its section as sent.
    public var index: Int
    public var name: DomainName
    public var type: RecordType
    public var error: DecodingError
}
