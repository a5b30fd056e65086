/// A DNS message: header, questions and the three record sections (RFC 1035 §4.1).
public struct Message: Hashable, Sendable {
    /// The largest message mDNS sends or accepts, in bytes (RFC 6762 §17).
    public static let maximumSize = 9000

    public var header: MessageHeader
    public var questions: [Question]
    public var answers: [ResourceRecord]
    public var authorities: [ResourceRecord]
    public var additionals: [ResourceRecord]

    public init(
        header: MessageHeader = MessageHeader(), questions: [Question] = [], answers: [ResourceRecord] = [],
        authorities: [ResourceRecord] = [], additionals: [ResourceRecord] = []
    ) {
        self.header = header
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }
}

/// The fixed 12-byte header without its four counts, which the encoder derives from the sections
/// (RFC 1035 §4.1.1). The flags stay as given, so unusual bits survive a decode–encode round trip.
public struct MessageHeader: Hashable, Sendable {
    /// Bytes of a header on the wire.
    public static let size = 12

    public var id: UInt16
    /// The 16-bit flags word: QR, OPCODE, AA, TC, RD, RA, Z, AD, CD, RCODE.
    public var flags: UInt16

    public init(id: UInt16 = 0, flags: UInt16 = 0) {
        self.id = id
        self.flags = flags
    }

    /// A multicast DNS response header: QR and AA set (RFC 6762 §18.2, §18.4).
    public static func response(id: UInt16 = 0) -> MessageHeader {
        MessageHeader(id: id, flags: 0x8400)
    }

    /// Response (true) or query (false).
    public var isResponse: Bool {
        get { flags & 0x8000 != 0 }
        set { setBit(0x8000, newValue) }
    }

    /// OPCODE; mDNS uses only 0, standard query (RFC 6762 §18.3).
    public var opcode: UInt8 {
        get { UInt8(flags >> 11 & 0xF) }
        set { flags = flags & ~0x7800 | UInt16(newValue & 0xF) << 11 }
    }

    public var isAuthoritativeAnswer: Bool {
        get { flags & 0x0400 != 0 }
        set { setBit(0x0400, newValue) }
    }

    /// TC: in a query, more known answers follow in later packets (RFC 6762 §7.2, §18.5).
    public var isTruncated: Bool {
        get { flags & 0x0200 != 0 }
        set { setBit(0x0200, newValue) }
    }

    public var isRecursionDesired: Bool {
        get { flags & 0x0100 != 0 }
        set { setBit(0x0100, newValue) }
    }

    public var isRecursionAvailable: Bool {
        get { flags & 0x0080 != 0 }
        set { setBit(0x0080, newValue) }
    }

    /// The Z bit (reserved, zero on transmission).
    public var zero: Bool {
        get { flags & 0x0040 != 0 }
        set { setBit(0x0040, newValue) }
    }

    public var isAuthenticData: Bool {
        get { flags & 0x0020 != 0 }
        set { setBit(0x0020, newValue) }
    }

    public var isCheckingDisabled: Bool {
        get { flags & 0x0010 != 0 }
        set { setBit(0x0010, newValue) }
    }

    /// RCODE; mDNS responses with a nonzero RCODE are ignored (RFC 6762 §18.11).
    public var rcode: UInt8 {
        get { UInt8(flags & 0xF) }
        set { flags = flags & ~0x000F | UInt16(newValue & 0xF) }
    }

    private mutating func setBit(_ bit: UInt16, _ on: Bool) {
        flags = on ? flags | bit : flags & ~bit
    }
}
