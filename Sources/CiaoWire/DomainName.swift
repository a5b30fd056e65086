/// A domain name as a sequence of labels of arbitrary bytes (RFC 1035 §3.1, RFC 6762 §16).
///
/// Labels are kept exactly as they appear on the wire, so an instance name such as `My.Printer`
/// stays one label. Comparison and hashing are case-insensitive for ASCII letters only (RFC 6762
/// §16); other bytes, UTF-8 included, compare exactly. A name never exceeds 255 bytes in wire form
/// and no label exceeds 63 bytes.
public struct DomainName: Sendable {
    /// Longest label, in bytes (RFC 1035 §2.3.4).
    public static let maximumLabelLength = 63
    /// Longest name in uncompressed wire form, including the final zero byte (RFC 1035 §2.3.4).
    public static let maximumWireLength = 255

    /// The uncompressed wire form without the terminating zero byte: each label as a length byte
    /// followed by its bytes. The root name is empty.
    public let storage: [UInt8]

    /// The root name `.`.
    public static let root = DomainName(validatedStorage: [])

    /// Wraps storage that is already known to be well-formed.
    init(validatedStorage: [UInt8]) {
        self.storage = validatedStorage
    }

    /// Builds a name from raw labels.
    /// - Throws: ``NameError`` when a label is empty or longer than 63 bytes, or the name is
    ///   longer than 255 bytes.
    public init<Labels: Sequence>(labels: Labels) throws(NameError)
    where Labels.Element: Collection, Labels.Element.Element == UInt8 {
        var storage: [UInt8] = []
        for label in labels {
            guard !label.isEmpty else { throw .emptyLabel }
            guard label.count <= Self.maximumLabelLength else { throw .labelTooLong(label.count) }
            storage.append(UInt8(label.count))
            storage.append(contentsOf: label)
            guard storage.count + 1 <= Self.maximumWireLength else { throw .nameTooLong(storage.count + 1) }
        }
        self.storage = storage
    }

    /// Builds a name from labels given as text; each string becomes exactly one label, in UTF-8.
    /// No escape processing happens here (use ``init(_:)`` for presentation form).
    public init(labels: [String]) throws(NameError) {
        try self.init(labels: labels.map { Array($0.utf8) })
    }

    /// Reads an uncompressed name from `bytes` at `offset`, as the decoder keeps the names inside
    /// RDATA it holds as bytes (SOA, CNAME), and moves `offset` past it; nil when the bytes do not
    /// hold one whole, valid name there.
    init?(uncompressed bytes: [UInt8], offset: inout Int) {
        var storage: [UInt8] = []
        var index = offset
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 {
                offset = index + 1
                self.init(validatedStorage: storage)
                return
            }
            guard length <= Self.maximumLabelLength, index + 1 + length <= bytes.count,
                storage.count + 1 + length + 1 <= Self.maximumWireLength
            else { return nil }
            storage.append(contentsOf: bytes[index...(index + length)])
            index += 1 + length
        }
        return nil
    }

    /// Length of the name in uncompressed wire form, including the terminating zero byte.
    public var wireLength: Int { storage.count + 1 }

    /// True for the root name.
    public var isRoot: Bool { storage.isEmpty }

    /// The labels, most specific first.
    public var labels: [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var index = 0
        while index < storage.count {
            let length = Int(storage[index])
            result.append(storage[(index + 1)..<(index + 1 + length)])
            index += 1 + length
        }
        return result
    }

    /// Number of labels; zero for the root.
    public var labelCount: Int {
        var count = 0
        var index = 0
        while index < storage.count {
            index += 1 + Int(storage[index])
            count += 1
        }
        return count
    }

    /// The first (leftmost) label, or `nil` for the root.
    public var firstLabel: ArraySlice<UInt8>? {
        guard let length = storage.first else { return nil }
        return storage[1..<(1 + Int(length))]
    }

    /// The name without its first label; the root's parent is the root.
    public var parent: DomainName {
        guard let length = storage.first else { return self }
        return DomainName(validatedStorage: Array(storage[(1 + Int(length))...]))
    }

    /// This name with `label` put in front of it, as for an instance name in front of a service type.
    public func prepending<Label: Collection>(label: Label) throws(NameError) -> DomainName
    where Label.Element == UInt8 {
        guard !label.isEmpty else { throw .emptyLabel }
        guard label.count <= Self.maximumLabelLength else { throw .labelTooLong(label.count) }
        let length = storage.count + 1 + label.count + 1
        guard length <= Self.maximumWireLength else { throw .nameTooLong(length) }
        return DomainName(validatedStorage: [UInt8(label.count)] + label + storage)
    }

    /// This name followed by the labels of `suffix`.
    public func appending(_ suffix: DomainName) throws(NameError) -> DomainName {
        let length = storage.count + suffix.storage.count + 1
        guard length <= Self.maximumWireLength else { throw .nameTooLong(length) }
        return DomainName(validatedStorage: storage + suffix.storage)
    }

    /// True when this name equals `ancestor` or lies below it (case-insensitive).
    public func isSubdomain(of ancestor: DomainName) -> Bool {
        let tail = ancestor.storage.count
        guard tail <= storage.count else { return false }
        // The suffix must start on a label boundary of this name.
        var index = 0
        while storage.count - index > tail {
            index += 1 + Int(storage[index])
        }
        return storage.count - index == tail
            && ASCIICaseInsensitive.equal(storage[index...], ancestor.storage[...])
    }
}

extension DomainName: Hashable {
    /// Case-insensitive for ASCII (RFC 6762 §16).
    public static func == (lhs: DomainName, rhs: DomainName) -> Bool {
        lhs.storage.count == rhs.storage.count
            && ASCIICaseInsensitive.equal(lhs.storage[...], rhs.storage[...])
    }

    public func hash(into hasher: inout Hasher) {
        ASCIICaseInsensitive.hash(storage, into: &hasher)
    }

    /// Byte-exact equality, for callers that must preserve the case a peer used.
    public func isIdentical(to other: DomainName) -> Bool {
        storage == other.storage
    }
}

/// Why a name could not be built or parsed.
public enum NameError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyLabel
    case labelTooLong(Int)
    case nameTooLong(Int)
    case invalidEscape(String)

    public var description: String {
        switch self {
        case .emptyLabel: "a domain name label cannot be empty"
        case .labelTooLong(let length): "a label of \(length) bytes exceeds the 63-byte limit"
        case .nameTooLong(let length): "a name of \(length) bytes exceeds the 255-byte limit"
        case .invalidEscape(let text): "invalid escape sequence in \"\(text)\""
        }
    }
}
