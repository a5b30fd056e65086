/// Why a message could not be encoded within its size budget.
public enum EncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One question or record is larger than a whole packet of the given size can hold.
    case entryTooLarge(size: Int, maximumSize: Int)
    /// The message does not fit in one packet of the given size.
    case messageTooLarge(maximumSize: Int)
    /// RDATA longer than the 65535 bytes RDLENGTH can express.
    case rdataTooLong(type: RecordType, length: Int)

    public var description: String {
        switch self {
        case .entryTooLarge(let size, let maximumSize):
            "an entry of \(size) bytes cannot fit in a \(maximumSize)-byte message"
        case .messageTooLarge(let maximumSize): "the message does not fit in \(maximumSize) bytes"
        case .rdataTooLong(let type, let length): "\(type) RDATA of \(length) bytes exceeds 65535 bytes"
        }
    }
}
