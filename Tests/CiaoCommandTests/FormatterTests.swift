import Ciao
import Foundation
import Testing
@testable import ciao

/// Fixed events shared by the formatter tests: the service avahi-browse 0.8 printed as
/// `=;civ0;IPv4;Odd\032\034Name\034\032\195\156\.dot;_ciaotest._tcp;local;vm.local;198.18.0.1;8080;"k=v" "flag" "empty=" "bin=\000\255\128"`.
enum Fixture {
    /// 2023-11-14T22:13:20.250Z.
    static let time = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let type = try! ServiceType("_ciaotest._tcp")
    static let service = Service(name: "Odd \"Name\" Ü.dot", type: type, interfaceIndex: 7)
    static let escapedName = #"Odd\032\034Name\034\032\195\156\.dot"#
    static let interface = InterfaceInfo(name: "civ0", families: [.ipv4, .ipv6])
    static let txt = try! TXTRecord([
        "k": .bytes(Data("v".utf8)), "empty": .bytes(Data()), "flag": .flag, "bin": .bytes(Data([0x00, 0xFF, 0x80])),
    ])
    static let resolved = ResolvedService(
        service: service, hostName: "vm.local.", port: 8080,
        addresses: ["198.18.0.1", "fd00:198:18::1", "fe80::c6ff:fe12:1%civ0"], txtRecord: txt)
    static let published = PublishedService(service: service, port: 8080, hostName: "vm.local.")
}

@Suite struct ParsableFormatterTests {
    let formatter = ParsableFormatter()

    @Test func foundAndRemovedLinesListIPv6ThenIPv4() {
        #expect(
            formatter.lines(for: .found(Fixture.service, Fixture.interface), at: Fixture.time) == [
                "+;civ0;IPv6;\(Fixture.escapedName);_ciaotest._tcp;local",
                "+;civ0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local",
            ])
        #expect(
            formatter.lines(for: .removed(Fixture.service, Fixture.interface), at: Fixture.time) == [
                "-;civ0;IPv6;\(Fixture.escapedName);_ciaotest._tcp;local",
                "-;civ0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local",
            ])
    }

    @Test func onlyTheInterfaceFamiliesGetLines() {
        let v4 = InterfaceInfo(name: "eth0", families: [.ipv4])
        let v6 = InterfaceInfo(name: "eth1", families: [.ipv6])
        #expect(
            formatter.lines(for: .found(Fixture.service, v4), at: Fixture.time)
                == ["+;eth0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local"])
        #expect(
            formatter.lines(for: .removed(Fixture.service, v6), at: Fixture.time)
                == ["-;eth1;IPv6;\(Fixture.escapedName);_ciaotest._tcp;local"])
    }

    /// Byte for byte the line avahi-browse 0.8 printed for this service (the IPv4 one).
    @Test func resolvedLineMatchesAvahi() {
        let lines = formatter.lines(for: .resolved(Fixture.resolved, Fixture.interface), at: Fixture.time)
        let avahi =
            #"=;civ0;IPv4;Odd\032\034Name\034\032\195\156\.dot;_ciaotest._tcp;local;vm.local;198.18.0.1;8080;"k=v" "flag" "empty=" "bin=\000\255\128""#
        #expect(lines == [avahi.replacingOccurrences(of: ";IPv4;", with: ";IPv6;"), avahi])
        #expect(Array(lines[1].utf8) == Array(avahi.utf8))
    }

    /// The lines avahi-browse 0.8 printed for a service in a unicast domain, byte for byte
    /// (`avahi-browse -d lab.example -r -t -p -k _http._tcp` against the wide-area lab's BIND).
    @Test func unicastDNSLinesMatchAvahiBrowseWithADomain() throws {
        let name = "Lab Printer. 2nd floor \u{2014} caf\u{e9}"
        let service = Service(name: name, type: try ServiceType("_http._tcp"), domain: "lab.example.")
        let txt = try TXTRecord(
            wireData: Data(
                [6] + Array("path=/".utf8) + [7] + Array("bin=".utf8) + [0, 255, 8]
                    + [4] + Array("flag".utf8) + [6] + Array("empty=".utf8)))
        let resolved = ResolvedService(
            service: service, hostName: "printer.lab.example.", port: 8080,
            addresses: ["198.18.0.50", "fd00:198:18::50"], txtRecord: txt)
        let escaped = #"Lab\032Printer\.\0322nd\032floor\032\226\128\148\032caf\195\169"#
        let parsable = ParsableFormatter(describingTypes: false)
        #expect(
            parsable.lines(for: .found(service, .unicastDNS), at: Fixture.time) == [
                "+;n/a;n/a;\(escaped);_http._tcp;lab.example"
            ])
        let avahi =
            #"=;n/a;n/a;Lab\032Printer\.\0322nd\032floor\032\226\128\148\032caf\195\169;_http._tcp;lab.example;printer.lab.example;198.18.0.50;8080;"empty=" "flag" "bin=\000\255\008" "path=/""#
        let lines = parsable.lines(for: .resolved(resolved, .unicastDNS), at: Fixture.time)
        #expect(lines.map { Array($0.utf8) } == [Array(avahi.utf8)])
    }

    /// Without -k, avahi-browse -p prints a type its database knows by its description, and so
    /// does Ciao; a type it does not know, and every type with -k, as it is.
    @Test func knownTypesAreDescribedAsAvahiDoes() throws {
        let web = Service(name: "Web", type: try ServiceType("_http._tcp"), interfaceIndex: 2)
        #expect(
            formatter.lines(for: .found(web, InterfaceInfo(name: "eth0", families: [.ipv4])), at: Fixture.time)
                == ["+;eth0;IPv4;Web;Web Site;local"])
        let raw = ParsableFormatter(describingTypes: false)
        #expect(
            raw.lines(for: .found(web, InterfaceInfo(name: "eth0", families: [.ipv4])), at: Fixture.time)
                == ["+;eth0;IPv4;Web;_http._tcp;local"])
        #expect(ServiceTypeDescriptions.description(of: "_ipp._tcp") == "Internet Printer")
        #expect(ServiceTypeDescriptions.description(of: "_ciaotest._tcp") == nil)
    }

    /// Host names are escaped label by label, as avahi prints them.
    @Test func hostNamesAreEscapedAsAvahiDoes() {
        #expect(ParsableFormatter.escapedHostName(#"Held Out Ü.local."#) == #"Held\032Out\032\195\156.local"#)
        #expect(ParsableFormatter.escapedHostName(#"a\.b.local."#) == #"a\.b.local"#)
        #expect(ParsableFormatter.escapedHostName("vm.local") == "vm.local")
    }

    @Test func resolvedLineStripsTheZoneOfTheFirstAddress() {
        var resolved = Fixture.resolved
        resolved.addresses = ["fe80::c6ff:fe12:1%civ0", "198.18.0.1"]
        resolved.txtRecord = .empty
        resolved.hostName = "host.local"  // no trailing dot: kept as is
        #expect(
            formatter.lines(for: .resolved(resolved, InterfaceInfo(name: "civ0", families: [.ipv6])), at: Fixture.time)
                == ["=;civ0;IPv6;\(Fixture.escapedName);_ciaotest._tcp;local;host.local;fe80::c6ff:fe12:1;8080;"])
        resolved.addresses = []
        #expect(
            formatter.lines(for: .resolved(resolved, InterfaceInfo(name: "civ0", families: [.ipv4])), at: Fixture.time)
                == ["=;civ0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local;host.local;;8080;"])
    }

    /// avahi-daemon sends no A record over IPv6: avahi-browse's IPv6 line of its service shows
    /// the AAAA address, the first that came over IPv6; a line waits for an address over its own
    /// protocol.
    @Test func resolvedLineShowsTheFirstAddressThatCameOverItsProtocol() {
        var resolved = Fixture.resolved
        resolved.txtRecord = .empty
        resolved.addressesHeardOver = [.ipv4: ["198.18.0.1", "fd00:198:18::1"], .ipv6: ["fd00:198:18::1"]]
        #expect(
            formatter.lines(for: .resolved(resolved, Fixture.interface), at: Fixture.time) == [
                "=;civ0;IPv6;\(Fixture.escapedName);_ciaotest._tcp;local;vm.local;fd00:198:18::1;8080;",
                "=;civ0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local;vm.local;198.18.0.1;8080;",
            ])
        resolved.addressesHeardOver = [.ipv4: ["198.18.0.1"]]
        #expect(
            formatter.lines(for: .resolved(resolved, Fixture.interface), at: Fixture.time) == [
                "=;civ0;IPv4;\(Fixture.escapedName);_ciaotest._tcp;local;vm.local;198.18.0.1;8080;"
            ])
    }

    @Test func escapesNamesAsAvahiDoes() {
        #expect(ParsableFormatter.escapedName("Odd \"Name\" Ü.dot") == Fixture.escapedName)
        #expect(ParsableFormatter.escapedName(#"a\b;c.d"#) == #"a\\b\059c\.d"#)
        #expect(ParsableFormatter.escapedName("Az09-_") == "Az09-_")
        #expect(ParsableFormatter.escapedName("x=(y)/z") == #"x\061\040y\041\047z"#)
        #expect(ParsableFormatter.escapedName("€") == #"\226\130\172"#)
        #expect(ParsableFormatter.escapedName("\u{7}\u{7F}") == #"\007\127"#)
        #expect(ParsableFormatter.escapedName("") == "")
    }

    @Test func quotesTXTStringsAsAvahiDoes() throws {
        // avahi printed `"q=\" \\;"` for a value of bytes 22 20 5c 3b.
        let quoted = try TXTRecord(["q": .bytes(Data([0x22, 0x20, 0x5C, 0x3B]))])
        #expect(ParsableFormatter.txtField(quoted) == #""q=\" \\;""#)
        let controls = try TXTRecord(["c": .bytes(Data([0x09, 0x7E, 0x7F, 0xC3, 0xBC]))])
        #expect(ParsableFormatter.txtField(controls) == #""c=\009~\127\195\188""#)
        #expect(ParsableFormatter.txtField(Fixture.txt) == #""k=v" "flag" "empty=" "bin=\000\255\128""#)
        #expect(ParsableFormatter.txtField(.empty) == "")
    }

    @Test func domainLinesAreAvahisDomainLines() {
        #expect(
            formatter.lines(for: .domainFound("lab.example.", isDefault: true), at: Fixture.time) == [
                "+;n/a;n/a;lab.example"
            ])
        #expect(formatter.lines(for: .domainRemoved("lab.example."), at: Fixture.time) == ["-;n/a;n/a;lab.example"])
    }

    @Test func typeAndPublishedLines() throws {
        #expect(formatter.lines(for: .type(try ServiceType("_HTTP._tcp.")), at: Fixture.time) == ["_http._tcp;local"])
        #expect(
            formatter.lines(for: .type(try ServiceType("_ipp._tcp"), domain: "lab.example."), at: Fixture.time) == [
                "_ipp._tcp;lab.example"
            ])
        #expect(
            formatter.lines(for: .published(Fixture.published), at: Fixture.time)
                == ["+;\(Fixture.escapedName);_ciaotest._tcp;local;vm.local;8080"])
    }

    @Test func resolutionFailuresPrintNothing() {
        #expect(
            formatter.lines(for: .resolutionFailed(Fixture.service, Fixture.interface, .timedOut), at: Fixture.time)
                .isEmpty)
    }
}

@Suite struct JSONEventFormatterTests {
    let formatter = JSONEventFormatter()

    func object(_ event: OutputEvent) throws -> [String: Any] {
        let lines = formatter.lines(for: event, at: Fixture.time)
        try #require(lines.count == 1)
        #expect(!lines[0].contains("\n"), "one object per line")
        let parsed = try JSONSerialization.jsonObject(with: Data(lines[0].utf8))
        return try #require(parsed as? [String: Any])
    }

    @Test func found() throws {
        let object = try object(.found(Fixture.service, Fixture.interface))
        #expect(Set(object.keys) == ["event", "name", "type", "domain", "interface", "time"])
        #expect(object["event"] as? String == "found")
        #expect(object["name"] as? String == "Odd \"Name\" Ü.dot")
        #expect(object["type"] as? String == "_ciaotest._tcp")
        #expect(object["domain"] as? String == "local.")
        #expect(object["interface"] as? String == "civ0")
        #expect(object["time"] as? String == "2023-11-14T22:13:20.250Z")
    }

    @Test func removed() throws {
        let object = try object(.removed(Fixture.service, Fixture.interface))
        #expect(object["event"] as? String == "removed")
        #expect(object["name"] as? String == "Odd \"Name\" Ü.dot")
        #expect(object["time"] as? String == "2023-11-14T22:13:20.250Z")
    }

    @Test func resolved() throws {
        let object = try object(.resolved(Fixture.resolved, Fixture.interface))
        #expect(
            Set(object.keys) == [
                "event", "name", "type", "domain", "interface", "host", "port", "addresses", "txt", "txtData",
                "time",
            ])
        #expect(object["event"] as? String == "resolved")
        #expect(object["name"] as? String == "Odd \"Name\" Ü.dot")
        #expect(object["type"] as? String == "_ciaotest._tcp")
        #expect(object["domain"] as? String == "local.")
        #expect(object["interface"] as? String == "civ0")
        #expect(object["host"] as? String == "vm.local.")
        #expect(object["port"] as? Int == 8080)
        #expect(object["addresses"] as? [String] == ["198.18.0.1", "fd00:198:18::1", "fe80::c6ff:fe12:1%civ0"])
        #expect(object["time"] as? String == "2023-11-14T22:13:20.250Z")
        let txt = try #require(object["txt"] as? [String: Any])
        #expect(Set(txt.keys) == ["k", "empty", "flag", "bin"])
        #expect(txt["k"] as? String == "v")
        #expect(txt["empty"] as? String == "")
        #expect(txt["flag"] as? Bool == true)
        #expect(txt["bin"] as? [String: String] == ["hex": "00ff80"])
        #expect(object["txtData"] as? String == "0762696e3d00ff80" + "06656d7074793d" + "04666c6167" + "036b3d76")
    }

    /// A peer's TXT as it was sent: `txt` holds each key once (RFC 6763 §6.4), `txtData` every
    /// string in wire order, a repeated key, an empty string and an invalid key included.
    @Test func txtDataKeepsWhatTheTXTObjectLeavesOut() throws {
        var resolved = Fixture.resolved
        let strings: [[UInt8]] = [Array("dup=1".utf8), Array("DUP=2".utf8), [], [0x01, 0x3D, 0x78], Array("k=v".utf8)]
        let wire = strings.flatMap { [UInt8($0.count)] + $0 }
        resolved.txtRecord = try TXTRecord(wireData: Data(wire))
        let object = try object(.resolved(resolved, Fixture.interface))
        let txt = try #require(object["txt"] as? [String: Any])
        #expect(Set(txt.keys) == ["dup", "k"])
        #expect(txt["dup"] as? String == "1")
        #expect(object["txtData"] as? String == "056475703d3105445550" + "3d32" + "00" + "03013d78" + "036b3d76")
    }

    @Test func utf8TXTValueIsAString() throws {
        var resolved = Fixture.resolved
        resolved.txtRecord = try TXTRecord(["note": .bytes(Data("Grüße/\"x\"".utf8))])
        let txt = try #require(try object(.resolved(resolved, Fixture.interface))["txt"] as? [String: Any])
        #expect(txt["note"] as? String == "Grüße/\"x\"")
    }

    @Test func resolutionFailed() throws {
        let object = try object(.resolutionFailed(Fixture.service, Fixture.interface, .timedOut))
        #expect(object["event"] as? String == "resolutionFailed")
        #expect(object["name"] as? String == "Odd \"Name\" Ü.dot")
        #expect(object["error"] as? String == CiaoError.timedOut.description)
    }

    @Test func domains() throws {
        #expect(
            try object(.domainFound("lab.example.", isDefault: true)) as NSDictionary == [
                "event": "domainFound", "domain": "lab.example.", "default": true, "time": "2023-11-14T22:13:20.250Z",
            ] as NSDictionary)
        #expect(
            try object(.domainRemoved("lab.example.")) as NSDictionary == [
                "event": "domainRemoved", "domain": "lab.example.", "time": "2023-11-14T22:13:20.250Z",
            ] as NSDictionary)
    }

    @Test func typeAndPublished() throws {
        let type = try object(.type(Fixture.type))
        #expect(
            type as NSDictionary == [
                "event": "type", "type": "_ciaotest._tcp", "domain": "local.", "rfc6335": true,
                "time": "2023-11-14T22:13:20.250Z",
            ] as NSDictionary)
        let long = try object(.type(try ServiceType(observed: "_CinchGamingService._tcp")))
        #expect(long["rfc6335"] as? Bool == false)
        let published = try object(.published(Fixture.published))
        #expect(
            published as NSDictionary == [
                "event": "published", "name": "Odd \"Name\" Ü.dot", "type": "_ciaotest._tcp", "domain": "local.",
                "host": "vm.local.", "port": 8080, "time": "2023-11-14T22:13:20.250Z",
            ] as NSDictionary)
    }

    @Test func keysAreSortedAndSlashesUnescaped() throws {
        var resolved = Fixture.resolved
        resolved.txtRecord = try TXTRecord(["path": .bytes(Data("/a/b".utf8))])
        let line = try #require(formatter.lines(for: .resolved(resolved, Fixture.interface), at: Fixture.time).first)
        #expect(line.hasPrefix(#"{"addresses":["#))
        #expect(line.contains(#""path":"/a/b""#))
    }
}

@Suite struct HumanFormatterTests {
    let plain = HumanFormatter(style: .plain)
    let coloured = HumanFormatter(style: TerminalStyle(isTerminal: true, usesColor: true))

    /// Mark, interface padded to 8, name to 32, type to 20, then the domain, separated by one space.
    static let columns = "civ0     Odd \"Name\" Ü.dot                 _ciaotest._tcp       local."

    @Test func plainRowsAreAligned() {
        #expect(plain.lines(for: .found(Fixture.service, Fixture.interface), at: Fixture.time) == ["+ " + Self.columns])
        #expect(
            plain.lines(for: .removed(Fixture.service, Fixture.interface), at: Fixture.time) == ["- " + Self.columns])
        // The columns start at fixed character offsets.
        let row = Array(plain.lines(for: .found(Fixture.service, Fixture.interface), at: Fixture.time)[0])
        #expect(String(row[2..<10]) == "civ0    ")
        #expect(String(row[11..<43]) == "Odd \"Name\" Ü.dot" + String(repeating: " ", count: 16))
        #expect(String(row[44..<64]) == "_ciaotest._tcp      ")
        #expect(String(row[65...]) == "local.")
    }

    @Test func namesCannotMoveTheCursorOrSkewTheColumns() {
        let evil = Service(name: "Evil\u{1B}[2J\nline\u{9B}", type: Fixture.type)
        #expect(
            plain.lines(for: .found(evil, Fixture.interface), at: Fixture.time) == [
                "+ civ0     Evil\\027[2J\\010line\\194\\155      _ciaotest._tcp       local."
            ])
        // Wide characters take two columns each: the type column starts where it always does.
        let wide = Service(name: "日本 🎉", type: Fixture.type)
        #expect(
            plain.lines(for: .found(wide, Fixture.interface), at: Fixture.time) == [
                "+ civ0     日本 🎉" + String(repeating: " ", count: 25) + " _ciaotest._tcp       local."
            ])
        // A wide-area resolution failure names the service in its reason.
        let failure = CiaoError.network("cannot resolve Evil\u{1B}[2J: no answer")
        #expect(
            plain.lines(for: .resolutionFailed(evil, Fixture.interface, failure), at: Fixture.time).first?.hasSuffix(
                "  Network error: cannot resolve Evil\\027[2J: no answer") == true)
    }

    @Test func longFieldsAreKeptWhole() {
        let long = String(repeating: "n", count: 40)
        let service = Service(name: long, type: Fixture.type)
        #expect(
            plain.lines(for: .found(service, InterfaceInfo(name: "enp0s31f6x", families: [.ipv4])), at: Fixture.time)
                == ["+ enp0s31f6x \(long) _ciaotest._tcp       local."])
    }

    @Test func plainResolved() {
        #expect(
            plain.lines(for: .resolved(Fixture.resolved, Fixture.interface), at: Fixture.time) == [
                "= " + Self.columns,
                "    hostname = vm.local.",
                "    address  = 198.18.0.1, fd00:198:18::1, fe80::c6ff:fe12:1%civ0",
                "    port     = 8080",
                #"    txt      = "bin=\000\255\128" "empty=" "flag" "k=v""#,
            ])
    }

    /// `ciao publish … v=1 room=kitchen` reads back as written; `-p` keeps avahi's reverse order.
    @Test func plainTXTIsInWireOrderWhereParsableIsReversed() throws {
        let txt = try TXTRecord(orderedStrings: ["v": "1", "room": "kitchen"])
        let resolved = ResolvedService(
            service: Fixture.service, hostName: "vm.local.", port: 7000, addresses: ["198.18.0.1"], txtRecord: txt)
        #expect(
            plain.lines(for: .resolved(resolved, Fixture.interface), at: Fixture.time).last
                == #"    txt      = "v=1" "room=kitchen""#)
        #expect(ParsableFormatter.txtField(txt) == #""room=kitchen" "v=1""#)
    }

    /// A record without data reads `(none)` rather than nothing; `-p` keeps avahi's empty field.
    @Test func plainTXTWithoutDataSaysNone() {
        let resolved = ResolvedService(
            service: Fixture.service, hostName: "vm.local.", port: 7000, addresses: ["198.18.0.1"], txtRecord: .empty)
        #expect(
            plain.lines(for: .resolved(resolved, Fixture.interface), at: Fixture.time).last == "    txt      = (none)")
        #expect(ParsableFormatter.txtField(.empty) == "")
    }

    @Test func plainOtherEvents() {
        #expect(
            plain.lines(for: .resolutionFailed(Fixture.service, Fixture.interface, .timedOut), at: Fixture.time)
                == ["! " + Self.columns + "  " + CiaoError.timedOut.description])
        #expect(plain.lines(for: .type(Fixture.type), at: Fixture.time) == ["_ciaotest._tcp"])
        #expect(
            plain.lines(for: .published(Fixture.published), at: Fixture.time)
                == ["Established under name 'Odd \"Name\" Ü.dot' (_ciaotest._tcp.local.) on vm.local. port 8080"])
    }

    @Test func noEscapeCodesWithoutColour() {
        let events: [OutputEvent] = [
            .found(Fixture.service, Fixture.interface), .removed(Fixture.service, Fixture.interface),
            .resolved(Fixture.resolved, Fixture.interface),
            .resolutionFailed(Fixture.service, Fixture.interface, .stopped),
            .type(Fixture.type), .published(Fixture.published),
        ]
        for style in [TerminalStyle.plain, TerminalStyle(isTerminal: true, usesColor: false)] {
            let lines = events.flatMap { HumanFormatter(style: style).lines(for: $0, at: Fixture.time) }
            #expect(!lines.contains { $0.contains("\u{1B}") })
        }
    }

    @Test func colouredMarks() {
        #expect(
            coloured.lines(for: .found(Fixture.service, Fixture.interface), at: Fixture.time)
                == ["\u{1B}[32m+\u{1B}[0m " + Self.columns])
        #expect(
            coloured.lines(for: .removed(Fixture.service, Fixture.interface), at: Fixture.time)
                == ["\u{1B}[31m-\u{1B}[0m " + Self.columns])
        #expect(
            coloured.lines(for: .resolved(Fixture.resolved, Fixture.interface), at: Fixture.time).first
                == "\u{1B}[34m=\u{1B}[0m " + Self.columns)
        #expect(
            coloured.lines(for: .resolutionFailed(Fixture.service, Fixture.interface, .stopped), at: Fixture.time)
                == [
                    "\u{1B}[31m!\u{1B}[0m " + Self.columns + "  \u{1B}[2m" + CiaoError.stopped.description + "\u{1B}[0m"
                ])
    }
}

@Suite struct TerminalStyleTests {
    @Test func paint() {
        let colour = TerminalStyle(isTerminal: true, usesColor: true)
        #expect(colour.paint("+", .green) == "\u{1B}[32m+\u{1B}[0m")
        #expect(colour.paint("x", .bold) == "\u{1B}[1mx\u{1B}[0m")
        #expect(TerminalStyle.plain.paint("+", .green) == "+")
        #expect(TerminalStyle(isTerminal: true, usesColor: false).paint("+", .red) == "+")
    }

    @Test func neverColoursWhenNotATerminal() {
        let style = TerminalStyle.current()
        if !style.isTerminal { #expect(!style.usesColor) }
    }

    @Test func formatsPickTheirFormatter() {
        #expect(OutputFormat.parsable(describingTypes: true).formatter() is ParsableFormatter)
        #expect(OutputFormat.json.formatter() is JSONEventFormatter)
        #expect((OutputFormat.human(.plain).formatter() as? HumanFormatter)?.style == .plain)
    }
}

@Suite struct JSONValueTests {
    /// Every string JSONSerialization reads back as it was: quotes, backslashes (avahi's `\DDD`
    /// escapes), control characters and non-ASCII; keys sorted.
    @Test func textReadsBackAsWritten() throws {
        let awkward = "a\"b\\c\u{0}\u{1F}\n\r\t\u{08}\u{0C}/Ü😀 \\032"
        let value = JSONValue.object([
            "z": .string(awkward), "a": .array([.int(-3), .bool(false), .bool(true)]), "m": .object([:]),
        ])
        #expect(value.text.hasPrefix("{\"a\":[-3,false,true],\"m\":{},\"z\":"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        #expect(parsed["z"] as? String == awkward)
        #expect(!value.text.contains("\n"))
    }

    /// DEL, C1 controls and the line separators are written as escapes too, so that a line read
    /// on a terminal moves no cursor; JSON reads them back as they were.
    @Test func noControlCharacterIsWrittenAsItIs() throws {
        let awkward = "a\u{7F}b\u{9B}31m\u{85}\u{2028}\u{2029}"
        let text = JSONValue.string(awkward).text
        #expect(text == #""a\u007fb\u009b31m\u0085\u2028\u2029""#)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        #expect(parsed as? String == awkward)
    }
}
