import CiaoEngine
import CiaoTestFixtures
import Testing
@testable import CiaoWire

@Suite struct DomainNameTests {
    /// DNS-SD's names under a service type or a domain (RFC 6763 §7.1, §9), each label as given.
    @Test func dnssdNamesAreBuiltFromLabels() throws {
        let type = try DomainName(parsing: "_http._tcp.lab.example.")
        #expect(try type.subtypeName("_printer").description == "_printer._sub._http._tcp.lab.example.")
        #expect(try type.subtypeName("_a.b").labelCount == 6)
        #expect(throws: NameError.self) { try type.subtypeName("") }
        let domain = try DomainName(parsing: "lab.example.")
        #expect(
            try DomainName.serviceTypeEnumerationName(in: domain).description == "_services._dns-sd._udp.lab.example.")
        let long = try DomainName(
            labels: Array(repeating: String(repeating: "x", count: 63), count: 3) + [String(repeating: "y", count: 40)])
        #expect(throws: NameError.self) { try DomainName.serviceTypeEnumerationName(in: long) }
    }

    @Test func parsesAndPrintsPlainNames() throws {
        let name = try DomainName(parsing: "_http._tcp.local.")
        #expect(name.labelCount == 3)
        #expect(name.description == "_http._tcp.local.")
        #expect(try DomainName(parsing: "_http._tcp.local") == name)
        #expect(name.wireLength == 18)
    }

    @Test func rootHasEveryForm() throws {
        #expect(try DomainName(parsing: ".") == .root)
        #expect(try DomainName(parsing: "") == .root)
        #expect(DomainName.root.description == ".")
        #expect(DomainName.root.wireLength == 1)
    }

    static let escapeCases: [(text: String, firstLabel: [UInt8])] = [
        ("My\\.Printer._ipp._tcp.local.", Array("My.Printer".utf8)),
        ("Back\\\\slash.local.", Array("Back\\slash".utf8)),
        ("Tab\\009Here.local.", Array("Tab\tHere".utf8)),
        ("Nul\\000.local.", Array("Nul".utf8) + [0]),
        ("Del\\127.local.", Array("Del".utf8) + [0x7F]),
        ("Space Here.local.", Array("Space Here".utf8)),
        ("Café ☕️.local.", Array("Café ☕️".utf8)),
        ("Bad\\255UTF8.local.", Array("Bad".utf8) + [0xFF] + Array("UTF8".utf8)),
        // C1 controls and the line separator, whose UTF-8 is two and three bytes.
        ("CSI\\194\\155.local.", Array("CSI".utf8) + [0xC2, 0x9B]),
        ("Line\\226\\128\\168.local.", Array("Line".utf8) + [0xE2, 0x80, 0xA8]),
        ("Bad\\255\\027.local.", Array("Bad".utf8) + [0xFF, 0x1B]),
    ]

    @Test(arguments: escapeCases)
    func escapesRoundTrip(text: String, firstLabel: [UInt8]) throws {
        let name = try DomainName(parsing: text)
        #expect(Array(name.firstLabel ?? []) == firstLabel)
        #expect(name.description == text)
        #expect(try DomainName(parsing: name.description).isIdentical(to: name))
    }

    @Test func escapeOfAnyCharacterIsTheCharacter() throws {
        #expect(try DomainName(parsing: "\\a\\b.local").firstLabel.map(Array.init) == Array("ab".utf8))
    }

    @Test(arguments: ["a..b", "\\", "a\\1", "a\\12", "a\\256", "a\\1x2"])
    func rejectsBadPresentation(text: String) {
        #expect(throws: NameError.self) { try DomainName(parsing: text) }
    }

    @Test func enforcesLabelAndNameLimits() throws {
        let label63 = String(repeating: "a", count: 63)
        #expect(try DomainName(parsing: label63 + ".local").firstLabel?.count == 63)
        #expect(throws: NameError.labelTooLong(64)) { try DomainName(parsing: label63 + "a.local") }
        // 4 labels of 63 bytes = 256 bytes with length bytes, 257 with the root: too long.
        let long = Array(repeating: label63, count: 4).joined(separator: ".")
        #expect(throws: NameError.nameTooLong(257)) { try DomainName(parsing: long) }
        // 3 × 64 + 62 = 254 bytes of labels, 255 with the root: exactly the limit.
        let fits = Array(repeating: label63, count: 3).joined(separator: ".") + "." + String(repeating: "b", count: 61)
        #expect(try DomainName(parsing: fits).wireLength == 255)
        #expect(throws: NameError.emptyLabel) { try DomainName(labels: [[UInt8]]() + [[]]) }
    }

    @Test func comparesAndHashesCaseInsensitivelyForASCIIOnly() throws {
        let lower = try DomainName(parsing: "my-host.local.")
        let upper = try DomainName(parsing: "MY-HOST.LOCAL.")
        #expect(lower == upper)
        #expect(lower.hashValue == upper.hashValue)
        #expect(!lower.isIdentical(to: upper))
        #expect(Set([lower, upper]).count == 1)
        // Non-ASCII letters are not folded (RFC 6762 §16).
        #expect(try DomainName(parsing: "é.local") != DomainName(parsing: "É.local"))
        // A byte differing only in bit 0x20 but not a letter must not compare equal.
        #expect(try DomainName(parsing: "@.local") != DomainName(parsing: "`.local"))
    }

    @Test func navigatesLabels() throws {
        let instance = try DomainName(parsing: "Web Server._http._tcp.local.")
        let type = try DomainName(parsing: "_http._tcp.local.")
        #expect(instance.parent == type)
        #expect(instance.isSubdomain(of: type))
        #expect(instance.isSubdomain(of: try DomainName(parsing: "LOCAL.")))
        #expect(!type.isSubdomain(of: instance))
        #expect(!(try DomainName(parsing: "xlocal.")).isSubdomain(of: try DomainName(parsing: "local.")))
        #expect(try type.prepending(label: Array("Web Server".utf8)) == instance)
        #expect(try DomainName(labels: ["Web Server"]).appending(type) == instance)
        #expect(DomainName.root.parent == .root)
    }

    /// 10,000 random Unicode instance names survive presentation form and the wire.
    @Test func randomUnicodeInstanceNamesRoundTrip() throws {
        var random = SplitMix64(seed: 0xC1A0)
        let type = try DomainName(parsing: "_ciao-demo._tcp.local.")
        for _ in 0..<10_000 {
            let label = randomInstanceLabel(using: &random)
            let instance = try type.prepending(label: label)
            let text = instance.description
            let parsed = try DomainName(parsing: text)
            #expect(parsed.isIdentical(to: instance), "presentation \(text)")
            let message = Messages.response([ResourceRecord(name: type, ttl: 4500, data: .ptr(instance))])
            let decoded = try Message(decoding: message.encoded())
            guard case .ptr(let target) = decoded.answers.first?.data else {
                Issue.record("no PTR decoded for \(text)")
                continue
            }
            #expect(target.isIdentical(to: instance))
        }
    }

    /// Up to 63 bytes of UTF-8 drawn from ASCII (dots, backslashes and controls included),
    /// Latin, CJK and emoji, never cut inside a character.
    private func randomInstanceLabel(using random: inout SplitMix64) -> [UInt8] {
        let ranges: [ClosedRange<UInt32>] = [
            0x00...0x7F, 0x2E...0x2E, 0x5C...0x5C, 0xA0...0x24F, 0x4E00...0x9FFF, 0x1F300...0x1FAFF,
        ]
        var bytes: [UInt8] = []
        let target = Int.random(in: 1...63, using: &random)
        while bytes.count < target {
            let range = ranges.randomElement(using: &random)!
            guard let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random)) else { continue }
            let encoded = Array(String(scalar).utf8)
            guard bytes.count + encoded.count <= 63 else { break }
            bytes += encoded
        }
        return bytes.isEmpty ? [UInt8(ascii: "x")] : bytes
    }
}

@Suite struct ControlCharacterTests {
    @Test func controlCharactersAreEscapedAsTheirBytes() {
        #expect("Evil\u{1B}[2J\nline".escapingControlCharacters == "Evil\\027[2J\\010line")
        #expect("C1\u{9B}\u{85} and \u{2028}".escapingControlCharacters == "C1\\194\\155\\194\\133 and \\226\\128\\168")
        #expect("\u{7F}".escapingControlCharacters == "\\127")
    }

    @Test func everythingElseIsKept() {
        let text = "Back\\slash Café 🎉 日本 \u{A0}"
        #expect(text.escapingControlCharacters == text)
    }
}
