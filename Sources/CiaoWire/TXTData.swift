/// TXT RDATA kept in wire form: a sequence of length-prefixed strings that exactly fills it
/// (RFC 1035 §3.3.14). Empty RDATA is accepted and means one empty string (RFC 6763 §6.1).
public struct TXTData: Hashable, Sendable {
    /// The RDATA bytes; always a well-formed sequence of strings.
    public let wireBytes: [UInt8]

    /// Wraps RDATA after checking that its strings exactly fill it.
    public init(wireBytes: [UInt8]) throws(TXTDataError) {
        var index = 0
        while index < wireBytes.count {
            let end = index + 1 + Int(wireBytes[index])
            guard end <= wireBytes.count else { throw TXTDataError(offset: index) }
            index = end
        }
        self.wireBytes = wireBytes
    }

    /// Builds RDATA from strings of at most 255 bytes each; no strings gives one empty string.
    public init(strings: [[UInt8]]) throws(TXTDataError) {
        var bytes: [UInt8] = []
        for (index, string) in strings.enumerated() {
            guard string.count <= 255 else { throw TXTDataError(offset: index) }
            bytes.append(UInt8(string.count))
            bytes.append(contentsOf: string)
        }
        self.wireBytes = bytes.isEmpty ? [0] : bytes
    }

    /// The character strings, in order.
    public var strings: [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var index = 0
        while index < wireBytes.count {
            let length = Int(wireBytes[index])
            result.append(wireBytes[(index + 1)..<(index + 1 + length)])
            index += 1 + length
        }
        return result
    }
}

/// A TXT string that overruns its RDATA (or is too long to encode), at the given string offset.
public struct TXTDataError: Error, Equatable, Sendable {
    public var offset: Int
}
