/// The names to try after a conflict (RFC 6762 §9, RFC 6763 §4.1.1): `Name (2)`, `Name (3)` … for
/// service instances and `host-2`, `host-3` … for host labels, never longer than a 63-byte label
/// and never cutting a UTF-8 character.
package enum InstanceNamer {
    /// The longest label, in bytes of UTF-8 (RFC 1035 §2.3.4, RFC 6763 §4.1.1).
    static let maximumLength = 63

    /// The service instance name after `name`: `Printer` → `Printer (2)`, `Printer (2)` → `Printer (3)`.
    package static func nextInstanceName(after name: String) -> String {
        var base = name
        var number = 1
        if name.hasSuffix(")"), let open = name.lastIndex(of: "("), open > name.startIndex,
            name[name.index(before: open)] == " ",
            let value = counter(name[name.index(after: open)..<name.index(before: name.endIndex)]), value >= 2
        {
            base = String(name[..<name.index(before: open)])
            number = value
        }
        return fitted(base, suffix: " (\(number + 1))")
    }

    /// The host label after `name`: `myhost` → `myhost-2`, `myhost-2` → `myhost-3`.
    static func nextHostLabel(after name: String) -> String {
        var base = name
        var number = 1
        if let dash = name.lastIndex(of: "-"), let value = counter(name[name.index(after: dash)...]), value >= 2 {
            base = String(name[..<dash])
            number = value
        }
        return fitted(base, suffix: "-\(number + 1)")
    }

    /// `base` shortened by whole characters until `base + suffix` fits in 63 bytes of UTF-8.
    static func fitted(_ base: String, suffix: String = "") -> String {
        var base = Substring(base)
        while base.utf8.count + suffix.utf8.count > maximumLength, !base.isEmpty {
            base = base.dropLast()
        }
        return base + suffix
    }

    /// A counter we wrote: ASCII digits only (no sign), without overflow.
    private static func counter(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }
}
