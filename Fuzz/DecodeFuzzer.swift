// DecodeFuzzer.swift — libFuzzer target: CiaoWire's decoder on arbitrary bytes.
//
// Built by Scripts/fuzz.sh, compiled in one swiftc invocation together with Sources/CiaoWire/*.swift
// (so there is no `import CiaoWire`); it uses only CiaoWire's public API all the same.
//
// Property: `Message.decode` is total (docs/ARCHITECTURE.md, decoder contract). Every input either gives a message or throws a
// typed `DecodingError`; anything else (a trap such as an out-of-range index or an overflow, an
// AddressSanitizer report, a hang past libFuzzer's -timeout, a leak, memory past -rss_limit_mb) is a
// finding, and libFuzzer saves the input. On top of that, cheap sanity checks on what comes back, each
// a `fatalError` so libFuzzer records the input:
//   - error offsets (of the whole message and of skipped records) lie within the input;
//   - `Message(decoding:)` agrees with `Message.decode(_:)`;
//   - under `DecodingLimits.unicast` every input mDNS's limits accept decodes to the same message,
//     and SOA and CNAME RDATA read back (`RecordData.soa`, `canonicalName`) re-encode to the same bytes;
//   - every decoded name prints (`description`) and parses back to the identical bytes, which fuzzes
//     the presentation-form code with names only the decoder can produce (arbitrary label bytes).

@_cdecl("LLVMFuzzerTestOneInput")
public func decodeFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    checkDecode(bytes)
    checkUnicastDecode(bytes)
    return 0
}

private func checkUnicastDecode(_ bytes: [UInt8]) {
    let decoded: DecodedMessage
    do {
        decoded = try Message.decode(bytes, limits: .unicast)
    } catch {
        check(error, within: bytes, "unicast message")
        if (try? Message.decode(bytes)) != nil { fatalError("mDNS limits accept what unicast limits reject: \(error)") }
        return
    }
    if let multicast = try? Message.decode(bytes), multicast != decoded {
        fatalError("unicast limits decode differently from mDNS's")
    }
    let message = decoded.message
    for record in message.answers + message.authorities + message.additionals {
        if let soa = record.data.soa, RecordData.soa(soa) != record.data { fatalError("SOA does not round-trip") }
        if let target = record.data.canonicalName, RecordData.canonicalName(target) != record.data {
            fatalError("CNAME does not round-trip")
        }
    }
}

private func checkDecode(_ bytes: [UInt8]) {
    let decoded: DecodedMessage
    do {
        decoded = try Message.decode(bytes)
    } catch {
        // Typed throws: `error` is a DecodingError; nothing else can arrive here.
        check(error, within: bytes, "message")
        _ = error.description
        do {
            _ = try Message(decoding: bytes)
            fatalError("Message.decode threw \(error) but Message(decoding:) succeeded")
        } catch let other {
            guard other == error else { fatalError("Message(decoding:) threw \(other), decode threw \(error)") }
        }
        return
    }

    for skipped in decoded.skippedRecords {
        check(skipped.error, within: bytes, "skipped \(skipped.type) record")
        checkPresentation(skipped.name)
    }
    do {
        let message = try Message(decoding: bytes)
        guard message == decoded.message else { fatalError("Message(decoding:) differs from Message.decode") }
    } catch {
        fatalError("Message.decode succeeded but Message(decoding:) threw \(error)")
    }

    let message = decoded.message
    for question in message.questions { checkPresentation(question.name) }
    for record in message.answers + message.authorities + message.additionals {
        checkPresentation(record.name)
        switch record.data {
        case .ptr(let name): checkPresentation(name)
        case .srv(let srv): checkPresentation(srv.target)
        case .nsec(let nsec): checkPresentation(nsec.nextDomainName)
        case .txt(let txt): _ = txt.strings
        case .a(let address): _ = address.description
        case .aaaa(let address): _ = address.description
        case .opt, .unknown: break
        }
    }
}

/// A decoding error must point into the input (an offset equal to the length means "at the end").
private func check(_ error: DecodingError, within bytes: [UInt8], _ what: String) {
    guard (0...bytes.count).contains(error.offset) else {
        fatalError("\(what): error offset \(error.offset) outside a \(bytes.count)-byte input: \(error)")
    }
}

/// Presentation form must round-trip byte for byte (`==` alone would hide a case change).
private func checkPresentation(_ name: DomainName) {
    let text = name.description
    let parsed: DomainName
    do {
        parsed = try DomainName(parsing: text)
    } catch {
        fatalError("name \(name.storage) prints as \(text.debugDescription), which does not parse: \(error)")
    }
    guard parsed.isIdentical(to: name) else {
        fatalError("name \(name.storage) prints as \(text.debugDescription), which parses to \(parsed.storage)")
    }
}
