@testable import CiaoEngine
import Testing

/// The names tried after a conflict (RFC 6762 §9, RFC 6763 §4.1.1).
@Suite struct InstanceNamerTests {
    @Test func instanceNamesCountUp() {
        #expect(InstanceNamer.nextInstanceName(after: "Name") == "Name (2)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (2)") == "Name (3)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (9)") == "Name (10)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (99)") == "Name (100)")
        var name = "Printer"
        for expected in 2...20 {
            name = InstanceNamer.nextInstanceName(after: name)
            #expect(name == "Printer (\(expected))")
        }
    }

    @Test func instanceNamesWithParenthesesThatAreNotACounter() {
        #expect(InstanceNamer.nextInstanceName(after: "Name (1)") == "Name (1) (2)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (x)") == "Name (x) (2)")
        #expect(InstanceNamer.nextInstanceName(after: "Name(2)") == "Name(2) (2)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (+2)") == "Name (+2) (2)")
        #expect(InstanceNamer.nextInstanceName(after: "Name (-3)") == "Name (-3) (2)")
        #expect(InstanceNamer.nextInstanceName(after: "(2)") == "(2) (2)")
        #expect(InstanceNamer.nextInstanceName(after: " (2)") == " (3)")
    }

    @Test func hostNamesCountUp() {
        #expect(InstanceNamer.nextHostLabel(after: "h") == "h-2")
        #expect(InstanceNamer.nextHostLabel(after: "h-2") == "h-3")
        #expect(InstanceNamer.nextHostLabel(after: "h-9") == "h-10")
        #expect(InstanceNamer.nextHostLabel(after: "my-host") == "my-host-2")
        #expect(InstanceNamer.nextHostLabel(after: "my-host-7") == "my-host-8")
        #expect(InstanceNamer.nextHostLabel(after: "h-1") == "h-1-2")
        #expect(InstanceNamer.nextHostLabel(after: "h-+2") == "h-+2-2")
        #expect(InstanceNamer.nextHostLabel(after: "pi-") == "pi--2")
    }

    /// Never over 63 bytes, dropping whole characters from the end of the base name.
    @Test func longNamesAreShortenedToSixtyThreeBytes() {
        let ascii = String(repeating: "a", count: 63)
        let next = InstanceNamer.nextInstanceName(after: ascii)
        #expect(next == String(repeating: "a", count: 59) + " (2)")
        #expect(next.utf8.count == 63)
        #expect(InstanceNamer.nextInstanceName(after: next) == String(repeating: "a", count: 59) + " (3)")
        let host = InstanceNamer.nextHostLabel(after: ascii)
        #expect(host == String(repeating: "a", count: 61) + "-2")
        var name = ascii
        for _ in 0..<150 {
            name = InstanceNamer.nextInstanceName(after: name)
            #expect(name.utf8.count <= 63)
        }
        #expect(name == String(repeating: "a", count: 57) + " (151)")
    }

    /// Multibyte names at the limit: no character is cut, the result is valid UTF-8 of ≤ 63 bytes.
    @Test(arguments: ["é", "€", "😀", "👩‍👩‍👧", "🇫🇷", "e\u{301}", "日本"])
    func multibyteNamesAtTheLimitKeepWholeCharacters(unit: String) {
        // Fill to exactly 63 bytes where possible, then rename repeatedly.
        var base = ""
        while (base + unit).utf8.count <= 63 { base += unit }
        for padding in ["", "x", "xy", "xyz"] where (padding + base).utf8.count <= 63 {
            var name = padding + base
            var host = padding + base
            for round in 2...12 {
                name = InstanceNamer.nextInstanceName(after: name)
                host = InstanceNamer.nextHostLabel(after: host)
                #expect(name.utf8.count <= 63 && host.utf8.count <= 63)
                #expect(name.hasSuffix(" (\(round))") && host.hasSuffix("-\(round)"))
                // Whole characters of the original: the kept prefix is a prefix of `padding + base`
                // in characters, and re-decoding the bytes gives the same string.
                let keptName = String(name.dropLast(" (\(round))".count))
                let keptHost = String(host.dropLast("-\(round)".count))
                #expect((padding + base).hasPrefix(keptName) && (padding + base).hasPrefix(keptHost))
                #expect(keptName.count == 0 || (padding + base).starts(with: keptName))
                #expect(String(decoding: Array(name.utf8), as: UTF8.self) == name)
                // As long as a character fits, the name is not shortened more than needed.
                let unitBytes = unit.utf8.count
                #expect(name.utf8.count > 63 - unitBytes - 1 || keptName == padding + base)
            }
        }
    }

    /// A name already over 63 bytes (a caller's mistake) still comes out fitted.
    @Test func overlongInputIsFitted() {
        let long = String(repeating: "ü", count: 40)  // 80 bytes
        let next = InstanceNamer.nextInstanceName(after: long)
        #expect(next == String(repeating: "ü", count: 29) + " (2)")
        #expect(InstanceNamer.fitted(long) == String(repeating: "ü", count: 31))
        #expect(InstanceNamer.fitted("short") == "short")
    }
}
