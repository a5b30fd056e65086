/// Turns the bytes a terminal sends into ``Key``s: UTF-8 text, C0 controls and the CSI / SS3
/// sequences of arrows, Home, End, Page Up, Page Down, Delete, Shift-Tab and SGR mouse reports.
/// A sequence split across reads is kept until the rest comes; an ESC alone at the end of a read
/// is the Esc key. Unknown sequences are dropped whole.
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// The longest sequence kept while waiting for its end; longer input is dropped.
    private static let maximumPending = 64

    mutating func keys(from bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            switch Self.decode(pending[index...]) {
            case .key(let key, let length):
                if let key { keys.append(key) }
                index += length
            case .incomplete:
                if pending.count - index == 1 && pending[index] == 0x1B {
                    keys.append(.escape)
                    index += 1
                } else if pending.count - index > Self.maximumPending {
                    index = pending.count
                } else {
                    pending.removeFirst(index)
                    return keys
                }
            }
        }
        pending.removeAll()
        return keys
    }

    private enum Decoded {
        /// A key (nil for a sequence that means nothing here) and the bytes it took.
        case key(Key?, Int)
        case incomplete
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B:
            return escape(bytes)
        case 0x0D, 0x0A: return .key(.enter, 1)
        case 0x09: return .key(.tab, 1)
        case 0x7F, 0x08: return .key(.backspace, 1)
        case 0x01...0x1A: return .key(.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return .key(nil, 1)
        default: return utf8(bytes)
        }
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let first = bytes[bytes.startIndex]
        let length =
            switch first {
            case 0x00..<0x80: 1
            case 0xC2..<0xE0: 2
            case 0xE0..<0xF0: 3
            case 0xF0..<0xF5: 4
            default: 0
            }
        guard length > 0 else { return .key(nil, 1) }
        guard bytes.count >= length else { return .incomplete }
        let encoded = bytes.prefix(length)
        guard encoded.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }),
            let scalar = String(validating: encoded, as: UTF8.self)?.unicodeScalars.first
        else { return .key(nil, 1) }
        return .key(.character(Character(scalar)), length)
    }

    private static func escape(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return .incomplete }
        switch bytes[start + 1] {
        case UInt8(ascii: "["):
            return controlSequence(bytes)
        case UInt8(ascii: "O"):
            guard bytes.count >= 3 else { return .incomplete }
            return .key(final(bytes[start + 2], parameters: []), 3)
        case 0x1B:
            return .key(.escape, 1)
        default:
            // Esc, then another key (how Alt+key arrives): Esc first.
            return .key(.escape, 1)
        }
    }

    /// `CSI parameters final`, the final byte in 0x40–0x7E (ECMA-48 §5.4).
    private static func controlSequence(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let body = bytes.dropFirst(2)
        guard let end = body.firstIndex(where: { (0x40...0x7E).contains($0) }) else { return .incomplete }
        let length = end - bytes.startIndex + 1
        let text = String(decoding: body[body.startIndex..<end], as: UTF8.self)
        let finalByte = bytes[end]
        if text.hasPrefix("<"), finalByte == UInt8(ascii: "M") || finalByte == UInt8(ascii: "m") {
            return .key(mouse(text.dropFirst(), isRelease: finalByte == UInt8(ascii: "m")), length)
        }
        let parameters = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        return .key(final(finalByte, parameters: parameters), length)
    }

    private static func final(_ byte: UInt8, parameters: [Int?]) -> Key? {
        switch byte {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "Z"): .backTab
        case UInt8(ascii: "~"):
            switch parameters.first ?? nil {
            case 1, 7: .home
            case 4, 8: .end
            case 3: .delete
            case 5: .pageUp
            case 6: .pageDown
            default: nil
            }
        default: nil
        }
    }

    private static func mouse(_ text: Substring, isRelease: Bool) -> Key? {
        let fields = text.split(separator: ";").compactMap { Int($0) }
        guard fields.count == 3 else { return nil }
        let action: MouseEvent.Action
        switch fields[0] & ~0b11100 {
        case 64: action = .wheelUp
        case 65: action = .wheelDown
        case 0...2: action = isRelease ? .release : .press
        default: return nil
        }
        return .mouse(MouseEvent(action: action, column: max(0, fields[1] - 1), row: max(0, fields[2] - 1)))
    }
}
