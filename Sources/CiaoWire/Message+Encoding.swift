extension Message {
    /// Encodes the message as one packet of at most `maximumSize` bytes.
    /// - Throws: ``EncodingError/messageTooLarge(maximumSize:)`` when it does not fit.
    public func encoded(maximumSize: Int = Message.maximumSize) throws(EncodingError) -> [UInt8] {
        guard maximumSize >= MessageHeader.size else { throw .messageTooLarge(maximumSize: maximumSize) }
        var encoder = MessageEncoder(maximumSize: maximumSize, entryCount: entryCount)
        encoder.start(header)
        for question in questions {
            guard case .placed = encoder.place(question) else { throw .messageTooLarge(maximumSize: maximumSize) }
        }
        for record in answers {
            guard case .placed = try encoder.place(record, section: 1) else {
                throw .messageTooLarge(maximumSize: maximumSize)
            }
        }
        for record in authorities {
            guard case .placed = try encoder.place(record, section: 2) else {
                throw .messageTooLarge(maximumSize: maximumSize)
            }
        }
        for record in additionals {
            guard case .placed = try encoder.place(record, section: 3) else {
                throw .messageTooLarge(maximumSize: maximumSize)
            }
        }
        return encoder.finish()
    }

    /// Encodes the message as as many packets of at most `maximumSize` bytes as it needs.
    ///
    /// Questions, answers and authority records fill packets in order; each packet repeats the
    /// header. In a query, every packet but the last has TC set, so responders wait for the rest of
    /// the known-answer list (RFC 6762 §7.2). Additional records are optional (RFC 6763 §12): those
    /// that do not fit in the last packet are left out.
    /// - Throws: ``EncodingError/entryTooLarge(size:maximumSize:)`` when one entry cannot fit in any
    ///   packet, ``EncodingError/rdataTooLong(type:length:)`` for oversized RDATA.
    public func encodedPackets(maximumSize: Int = Message.maximumSize) throws(EncodingError) -> [[UInt8]] {
        guard maximumSize >= MessageHeader.size else { throw .messageTooLarge(maximumSize: maximumSize) }
        var encoder = MessageEncoder(maximumSize: maximumSize, entryCount: entryCount)
        var packets: [[UInt8]] = []
        encoder.start(header)

        func place(_ attempt: (inout MessageEncoder) throws(EncodingError) -> MessageEncoder.Placement)
            throws(EncodingError)
        {
            guard case .overflow(let size) = try attempt(&encoder) else { return }
            guard !encoder.isEmpty else { throw .entryTooLarge(size: size, maximumSize: maximumSize) }
            packets.append(encoder.finish())
            encoder.start(header)
            // Alone in a packet the entry may be larger than it was after names it could point to.
            if case .overflow(let size) = try attempt(&encoder) {
                throw .entryTooLarge(size: size, maximumSize: maximumSize)
            }
        }

        for question in questions {
            try place { $0.place(question) }
        }
        for (section, records) in [answers, authorities].enumerated() {
            for record in records {
                try place { encoder throws(EncodingError) in try encoder.place(record, section: section + 1) }
            }
        }
        for record in additionals {
            _ = try encoder.place(record, section: 3)
        }
        packets.append(encoder.finish())

        if !header.isResponse {
            for index in packets.indices.dropLast() {
                packets[index][2] |= 0x02
            }
        }
        return packets
    }

    /// Encodes the message as one packet of at most `maximumSize` bytes, as a unicast DNS server
    /// answers over UDP (RFC 1035 §4.2.1, RFC 2181 §9): questions, answer and authority records go
    /// in, in order, until one does not fit; then TC is set and the rest are left out. OPT
    /// records go in whatever was cut, since a reply to a query with one must carry one (RFC 6891
    /// §7); other additional records go in while there is room.
    /// - Throws: ``EncodingError/messageTooLarge(maximumSize:)`` when the header and OPT records
    ///   alone do not fit, ``EncodingError/rdataTooLong(type:length:)`` for oversized RDATA.
    public func encodedTruncating(maximumSize: Int) throws(EncodingError) -> [UInt8] {
        let options = additionals.filter { $0.type == .opt }
        var reserved = 0
        for record in options { reserved += try record.optWireSize }
        guard maximumSize >= MessageHeader.size + reserved else { throw .messageTooLarge(maximumSize: maximumSize) }
        var encoder = MessageEncoder(maximumSize: maximumSize - reserved, entryCount: entryCount)
        encoder.start(header)
        var truncated = false
        placing: for question in questions {
            guard case .placed = encoder.place(question) else {
                truncated = true
                break placing
            }
        }
        if !truncated {
            placing: for (section, records) in [answers, authorities].enumerated() {
                for record in records {
                    guard case .placed = try encoder.place(record, section: section + 1) else {
                        truncated = true
                        break placing
                    }
                }
            }
        }
        encoder.maximumSize = maximumSize
        for record in options + additionals.filter({ $0.type != .opt }) {
            _ = try encoder.place(record, section: 3)
        }
        var packet = encoder.finish()
        if truncated {
            packet[2] |= 0x02
        }
        return packet
    }

    private var entryCount: Int {
        questions.count + answers.count + authorities.count + additionals.count
    }
}
