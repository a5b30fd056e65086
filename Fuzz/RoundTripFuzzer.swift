// RoundTripFuzzer.swift — libFuzzer target: decode → encode → decode must give the message back.
//
// Built by Scripts/fuzz.sh, compiled in one swiftc invocation together with Sources/CiaoWire/*.swift
// (so there is no `import CiaoWire`); it uses only CiaoWire's public API all the same.
//
// Inputs that do not decode are uninteresting here (DecodeFuzzer covers them). For every input that
// decodes to a message m:
//
// 1. Single packet. `m.encoded(maximumSize: 9000)` either gives bytes e or throws `.messageTooLarge`.
//    The latter is allowed because the sender may have compressed harder than our encoder does
//    (forward pointers, pointers into the middle of a name or into opaque RDATA); we skip then.
//    Given e: e fits, `Message.decode(e)` succeeds with no skipped records and gives m back — `==`,
//    and also label for label byte-exact, because `DomainName ==` ignores ASCII case and a case
//    change would otherwise go unseen — and encoding that again gives exactly e (the encoder is
//    deterministic and its output a fixed point). `encodedPackets(maximumSize: 9000)` gives [e].
//
// 2. Several packets. `m.encodedPackets(maximumSize:)` at 512 bytes and at a size taken from the
//    message ID (100...1499, so the fuzzer steers it) either throws `.entryTooLarge` — then some
//    question, answer or authority record really cannot fit in a packet of its own — or gives
//    packets that each fit and decode with no skipped records, carry m's header (with TC added to
//    every query packet but the last), and together hold m's questions, answers and authorities in
//    order, byte-exact. Packing is greedy: each packet but the last is full, i.e. the next entry
//    would not have fit in it. Additional records all sit in the last packet, in order, and one is
//    left out only when it would not fit there.
//
// Any violation is a `fatalError` with a description, so libFuzzer stops and saves the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func roundTripFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let decoded = try? Message.decode(bytes) else { return 0 }
    let message = decoded.message

    checkSinglePacket(message)
    checkPackets(message, maximumSize: 512)
    checkPackets(message, maximumSize: 100 + Int(message.header.id % 1400))
    return 0
}

// MARK: - Single packet

private func checkSinglePacket(_ message: Message) {
    let maximumSize = Message.maximumSize
    let encoded: [UInt8]
    do throws(EncodingError) {
        encoded = try message.encoded(maximumSize: maximumSize)
    } catch .messageTooLarge(maximumSize) {
        return  // The sender compressed better than we do; nothing to compare.
    } catch {
        fail("encoded(maximumSize: \(maximumSize)) threw \(error)", message)
    }

    guard encoded.count <= maximumSize else { fail("encoded() gave \(encoded.count) bytes", message) }
    let again = decodeCleanly(encoded, "encoded()", original: message)
    guard again == message else { fail("decode(encoded()) != original (==)", message, encoded) }
    guard identical(again, message) else { fail("decode(encoded()) differs byte-wise (case?)", message, encoded) }

    do throws(EncodingError) {
        let reencoded = try again.encoded(maximumSize: maximumSize)
        guard reencoded == encoded else {
            fail("re-encoding the decoded message gave different bytes: \(hex(reencoded))", message, encoded)
        }
    } catch {
        fail("re-encoding the decoded message threw \(error)", message, encoded)
    }

    // With everything fitting in one packet, encodedPackets has nothing to split.
    do throws(EncodingError) {
        let packets = try message.encodedPackets(maximumSize: maximumSize)
        guard packets == [encoded] else {
            fail("encodedPackets gave \(packets.count) packets \(packets.map(hex)), not [encoded()]", message, encoded)
        }
    } catch {
        fail("encodedPackets threw \(error) though encoded() succeeded", message, encoded)
    }
}

// MARK: - Several packets

private func checkPackets(_ message: Message, maximumSize: Int) {
    let packets: [[UInt8]]
    do throws(EncodingError) {
        packets = try message.encodedPackets(maximumSize: maximumSize)
    } catch .entryTooLarge(_, maximumSize) {
        // Some question, answer or authority record must be unable to fit in a packet by itself.
        let alone =
            message.questions.map { Message(header: message.header, questions: [$0]) }
            + message.answers.map { Message(header: message.header, answers: [$0]) }
            + message.authorities.map { Message(header: message.header, authorities: [$0]) }
        guard alone.contains(where: { !fits($0, maximumSize) }) else {
            fail("encodedPackets(\(maximumSize)) threw entryTooLarge but every entry fits alone", message)
        }
        return
    } catch {
        fail("encodedPackets(\(maximumSize)) threw \(error)", message)
    }

    guard !packets.isEmpty else { fail("encodedPackets(\(maximumSize)) gave no packets", message) }
    var decoded: [Message] = []
    for (index, packet) in packets.enumerated() {
        let what = "packet \(index + 1)/\(packets.count) of encodedPackets(\(maximumSize))"
        guard packet.count <= maximumSize else { fail("\(what) has \(packet.count) bytes", message, packet) }
        let part = decodeCleanly(packet, what, original: message)
        let isLast = index == packets.count - 1
        var header = message.header
        if !isLast && !message.header.isResponse { header.isTruncated = true }
        guard part.header == header else {
            fail("\(what) has header \(part.header), expected \(header)", message, packet)
        }
        guard isLast || part.additionals.isEmpty else { fail("\(what) holds additionals", message, packet) }
        decoded.append(part)
    }

    // Questions, answers and authorities, in order and byte-exact, across the packets.
    guard
        identical(decoded.flatMap(\.questions), message.questions, identical),
        identical(decoded.flatMap(\.answers), message.answers, identical),
        identical(decoded.flatMap(\.authorities), message.authorities, identical)
    else { fail("encodedPackets(\(maximumSize)) lost, added, reordered or altered entries", message) }

    // Greedy packing: the entry that opens packet k+1 would not have fit at the end of packet k.
    for (part, next) in zip(decoded, decoded.dropFirst()) {
        var grown = part
        if let question = next.questions.first {
            grown.questions.append(question)
        } else if let answer = next.answers.first {
            grown.answers.append(answer)
        } else if let authority = next.authorities.first {
            grown.authorities.append(authority)
        } else {
            fail("encodedPackets(\(maximumSize)) gave a packet that holds no question, answer or authority", message)
        }
        guard !fits(grown, maximumSize) else {
            fail("encodedPackets(\(maximumSize)) started a new packet although the next entry fit", message)
        }
    }

    // Additionals: a subsequence of the original's, in the last packet; each left out only when it
    // would not fit after the ones placed before it. Matching is byte-exact, so duplicates that
    // differ only in case are told apart; greedy matching is right for a subsequence.
    let last = decoded[decoded.count - 1]
    var placed: [ResourceRecord] = []
    for record in message.additionals {
        if placed.count < last.additionals.count, identical(record, last.additionals[placed.count]) {
            placed.append(record)
            continue
        }
        var grown = last
        grown.additionals = placed + [record]
        guard !fits(grown, maximumSize) else {
            fail("encodedPackets(\(maximumSize)) left out an additional \(record.type) record that fits", message)
        }
    }
    guard placed.count == last.additionals.count else {
        fail("encodedPackets(\(maximumSize)) put additionals in the last packet that are not the original's", message)
    }
}

// MARK: - Helpers

/// Decodes bytes our own encoder produced: they must decode, with nothing skipped.
private func decodeCleanly(_ bytes: [UInt8], _ what: String, original: Message) -> Message {
    do throws(DecodingError) {
        let decoded = try Message.decode(bytes)
        guard decoded.skippedRecords.isEmpty else {
            fail("\(what) decodes with skipped records \(decoded.skippedRecords)", original, bytes)
        }
        return decoded.message
    } catch {
        fail("\(what) does not decode: \(error)", original, bytes)
    }
}

/// True when `message` encodes within `maximumSize`; other encoding errors are findings.
private func fits(_ message: Message, _ maximumSize: Int) -> Bool {
    do throws(EncodingError) {
        _ = try message.encoded(maximumSize: maximumSize)
        return true
    } catch .messageTooLarge(maximumSize) {
        return false
    } catch {
        fail("encoded(maximumSize: \(maximumSize)) threw \(error)", message)
    }
}

/// `==` plus byte-exact names (DomainName's `==` folds ASCII case).
private func identical(_ a: Message, _ b: Message) -> Bool {
    a.header == b.header
        && identical(a.questions, b.questions, identical)
        && identical(a.answers, b.answers, identical)
        && identical(a.authorities, b.authorities, identical)
        && identical(a.additionals, b.additionals, identical)
}

private func identical<T>(_ a: [T], _ b: [T], _ same: (T, T) -> Bool) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy(same)
}

private func identical(_ a: Question, _ b: Question) -> Bool {
    a == b && a.name.isIdentical(to: b.name)
}

private func identical(_ a: ResourceRecord, _ b: ResourceRecord) -> Bool {
    guard a == b, a.name.isIdentical(to: b.name) else { return false }
    switch (a.data, b.data) {
    case (.ptr(let x), .ptr(let y)): return x.isIdentical(to: y)
    case (.srv(let x), .srv(let y)): return x.target.isIdentical(to: y.target)
    case (.nsec(let x), .nsec(let y)): return x.nextDomainName.isIdentical(to: y.nextDomainName)
    default: return true  // No names inside; `==` already compared the bytes.
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

/// Stops the fuzzer with a description; libFuzzer saves the input that led here.
private func fail(_ what: String, _ message: Message, _ bytes: [UInt8]? = nil) -> Never {
    var text = "RoundTripFuzzer: \(what)\n  message: \(message)"
    if let bytes { text += "\n  bytes: \(hex(bytes))" }
    fatalError(text)
}
