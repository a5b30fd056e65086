import Ciao
import Foundation
import CiaoUnicastDNS
import Testing
@testable import ciao

/// The message `ServiceType(observed: text)` throws, as the commands pass it on.
func serviceTypeError(_ text: String) -> ArgumentError {
    do {
        _ = try ServiceType(observed: text)
        Issue.record("\"\(text)\" is a valid service type")
        return ArgumentError("")
    } catch {
        return ArgumentError("\(error)")
    }
}

@Suite struct BrowseOptionsTests {
    func options(_ arguments: [String]) throws -> BrowseOptions {
        try BrowseOptions(try BrowseCommand.spec.parse(arguments))
    }

    @Test func typesAreParsed() throws {
        let options = try options(["_http._tcp", "_IPP._tcp.", "_ciaotest._udp"])
        #expect(options.targets.map(\.type.rawValue) == ["_http._tcp", "_ipp._tcp", "_ciaotest._udp"])
        #expect(options.targets.allSatisfy { $0.subtype == nil })
        #expect(!options.all && !options.resolve && !options.terminate)
        #expect(options.resolutionTimeout == .seconds(10))
    }

    @Test func badTypeReportsTheServiceTypeError() {
        for bad in ["http", "_http._sctp", "_http", "_._tcp", "_http._tcp.local"] {
            let expected = serviceTypeError(bad)
            #expect(expected.description.hasPrefix("Invalid service type: "))
            #expect(throws: expected) { try options(["_ipp._tcp", bad]) }
        }
    }

    @Test func allWithoutTypesIsEnough() throws {
        let options = try options(["--all"])
        #expect(options.all)
        #expect(options.targets.isEmpty)
        #expect(try self.options(["-a", "_http._tcp"]).targets.count == 1)
    }

    /// Types peers publish past RFC 6335's 15 characters, and subtypes in both spellings.
    @Test func longTypesAndSubtypesAreParsed() throws {
        let http = try ServiceType("_http._tcp")
        let targets = try options(["_CinchGamingService._tcp", "_printer._sub._http._tcp", "_http._tcp,_printer"])
            .targets
        #expect(
            targets == [
                BrowseTarget(type: try ServiceType(observed: "_cinchgamingservice._tcp")),
                BrowseTarget(type: http, subtype: "_printer"), BrowseTarget(type: http, subtype: "_printer"),
            ])
        #expect(throws: ArgumentError.self) { try options(["_http._tcp,printer"]) }
        #expect(throws: ArgumentError.self) { try options(["_x._sub._nope"]) }
    }

    @Test func neitherTypeNorAll() {
        #expect(throws: ArgumentError("give a service TYPE, or --all")) { try options([]) }
        #expect(throws: ArgumentError("give a service TYPE, or --all")) { try options(["-r", "-t"]) }
    }

    @Test func flags() throws {
        let options = try options(["-r", "--terminate", "_http._tcp"])
        #expect(options.resolve && options.terminate && !options.all)
    }

    @Test(arguments: ["0", "-1", "abc", "100000", "", "nan", "inf", "-0.5"])
    func badTimeouts(_ text: String) {
        #expect(throws: ArgumentError("--timeout needs a positive number of seconds, not \"\(text)\"")) {
            try options(["--timeout", text, "_http._tcp"])
        }
        #expect(throws: ArgumentError("--timeout needs a positive number of seconds, not \"\(text)\"")) {
            try options(["--timeout=\(text)", "_http._tcp"])
        }
    }

    @Test func goodTimeouts() throws {
        #expect(try options(["--timeout", "2.5", "_http._tcp"]).resolutionTimeout == .milliseconds(2500))
        #expect(try options(["--timeout=86400", "_http._tcp"]).resolutionTimeout == .seconds(86_400))
        #expect(try options(["--timeout", "1", "_http._tcp"]).resolutionTimeout == .seconds(1))
    }

    /// A positive timeout below a millisecond is rounded up, never down to a zero duration.
    @Test func tinyTimeoutIsNotZero() throws {
        // Rounded up to a millisecond, never to zero.
        #expect(try options(["--timeout", "0.0001", "_http._tcp"]).resolutionTimeout == .milliseconds(1))
    }

    @Test func outputFormats() throws {
        #expect(try options(["-p", "_http._tcp"]).format == .parsable(describingTypes: true))
        #expect(try options(["--parsable", "_http._tcp"]).format == .parsable(describingTypes: true))
        #expect(try options(["-pk", "_http._tcp"]).format == .parsable(describingTypes: false))
        #expect(try options(["-p", "--no-db-lookup", "_http._tcp"]).format == .parsable(describingTypes: false))
        #expect(try options(["--json", "_http._tcp"]).format == .json)
        guard case .human = try options(["_http._tcp"]).format else {
            Issue.record("the default format is for people")
            return
        }
        #expect(throws: ArgumentError("choose one of --parsable and --json")) {
            try options(["-p", "--json", "_http._tcp"])
        }
    }

    @Test func localOrAUnicastDomainWithItsDot() throws {
        for domain in ["local", "local.", "LOCAL."] {
            #expect(try options(["--domain", domain, "_http._tcp"]).domain == "local.")
        }
        #expect(try options(["-d", "lab.example", "_http._tcp"]).domain == "lab.example.")
        #expect(try options(["-d", "lab.example.", "_http._tcp"]).domain == "lab.example.")
        #expect(throws: ArgumentError.self) { try options(["-d", "bad..domain", "_http._tcp"]) }
        #expect(throws: ArgumentError("--all is not available for a domain other than local.")) {
            try options(["-d", "lab.example", "--all"])
        }
    }

    @Test func aServerIsAnAddressWithAnOptionalPort() throws {
        let given = try CommonOptions.resolverConfiguration(
            try BrowseCommand.spec.parse(["-d", "lab.example", "--server", "198.18.0.53#5353", "_http._tcp"]))
        #expect(given.servers == [DNSServer(parsing: "198.18.0.53#5353")!])
        #expect(throws: ArgumentError.self) {
            try CommonOptions.resolverConfiguration(
                try BrowseCommand.spec.parse(["-d", "lab.example", "--server", "printer.local", "_http._tcp"]))
        }
    }
}

@Suite struct PublishOptionsTests {
    func publication(_ arguments: [String]) throws -> PublicationConfiguration {
        try PublishCommand.publication(try PublishCommand.spec.parse(arguments))
    }

    func txt(_ arguments: [String]) throws -> [String: TXTRecord.Value] {
        try publication(["Name", "_http._tcp", "80"] + arguments).txtRecord.values
    }

    @Test func basicPublication() throws {
        let configuration = try publication(["My Service", "_HTTP._tcp", "8080"])
        #expect(configuration.name == "My Service")
        #expect(configuration.type.rawValue == "_http._tcp")
        #expect(configuration.port == 8080)
        #expect(configuration.mode == .externalPort)
        #expect(configuration.allowsRenaming)
        #expect(configuration.txtRecord == .empty)
        #expect(configuration.subtypes == [])
    }

    @Test func portIsRequiredWithoutListener() {
        #expect(throws: ArgumentError("missing PORT (or use --listener)")) { try publication(["Name", "_http._tcp"]) }
    }

    @Test(arguments: ["0", "70000", "x", "-1", "65536", ""])
    func badPorts(_ port: String) {
        #expect(throws: ArgumentError("PORT must be 1–65535, not \"\(port)\"")) {
            try publication(["Name", "_http._tcp", port])
        }
    }

    @Test func portLimits() throws {
        #expect(try publication(["Name", "_http._tcp", "1"]).port == 1)
        #expect(try publication(["Name", "_http._tcp", "65535"]).port == 65535)
    }

    @Test func withListenerTheFirstTrailingArgumentIsTXT() throws {
        let configuration = try publication(["-l", "Name", "_http._tcp", "k=v", "flag"])
        #expect(configuration.mode == .listener)
        #expect(configuration.port == 0)
        #expect(configuration.txtRecord.values == ["k": .bytes(Data("v".utf8)), "flag": .flag])
        // A number there is a port given by mistake, not a TXT flag to publish without a word.
        #expect(throws: ArgumentError.self) { try publication(["--listener", "Name", "_http._tcp", "8080"]) }
        #expect(try publication(["-l", "Name", "_http._tcp"]).txtRecord == .empty)
    }

    @Test func txtEntryKinds() throws {
        #expect(
            try txt(["k=v", "empty=", "flag", "eq=a=b"]) == [
                "k": .bytes(Data("v".utf8)), "empty": .bytes(Data()), "flag": .flag, "eq": .bytes(Data("a=b".utf8)),
            ])
        #expect(try txt(["Upper=X"]) == ["upper": .bytes(Data("X".utf8))])
        #expect(try txt(["u=Grüße"]) == ["u": .bytes(Data("Grüße".utf8))])
    }

    @Test func txtEscapes() throws {
        #expect(try txt([#"bin=\x00\xff\x80"#]) == ["bin": .bytes(Data([0x00, 0xFF, 0x80]))])
        #expect(try txt([#"mixed=a\xAbz"#]) == ["mixed": .bytes(Data([0x61, 0xAB, 0x7A]))])
        #expect(try txt([#"path=a\\b"#]) == ["path": .bytes(Data([0x61, 0x5C, 0x62]))])
        #expect(try txt([#"two=\\\\"#]) == ["two": .bytes(Data([0x5C, 0x5C]))])
        #expect(try txt([#"lit=\\x41"#]) == ["lit": .bytes(Data(#"\x41"#.utf8))])
        #expect(try TXTArguments.unescaped(#"\x41\x42"#) == [0x41, 0x42])
        // The entries go out in the order and spelling given.
        let record = try TXTArguments.record(["txtvers=1", "z=1", "a=2", "M=3", "Flag"])
        #expect(record.description == "txtvers=1 z=1 a=2 M=3 Flag")
    }

    @Test(arguments: [#"k=\q"#, #"k=\x4"#, #"k=\xZZ"#, #"k=abc\"#, #"k=\x"#, #"k=\n"#])
    func badEscapes(_ argument: String) {
        #expect(throws: ArgumentError.self) { try txt([argument]) }
    }

    @Test func badEscapeMessages() {
        #expect(throws: ArgumentError(#"unknown escape in "\q": use \xHH for a byte and \\ for a backslash"#)) {
            try TXTArguments.entry(#"k=\q"#)
        }
        #expect(throws: ArgumentError(#"\x must be followed by two hex digits in "\x4""#)) {
            try TXTArguments.entry(#"k=\x4"#)
        }
        #expect(throws: ArgumentError(#"\x must be followed by two hex digits in "\xZZ""#)) {
            try TXTArguments.entry(#"k=\xZZ"#)
        }
    }

    /// `UInt8(_:radix:)` accepts a sign, so `\x+1` and `\x-0` pass as "two hex digits".
    @Test func signedHexEscapeIsRejected() {
        #expect(throws: ArgumentError.self) { try TXTArguments.unescaped(#"\x+1"#) }
        #expect(throws: ArgumentError.self) { try TXTArguments.unescaped(#"\x-0"#) }
    }

    @Test func duplicateKeysAreRejectedIgnoringCase() {
        #expect(throws: ArgumentError("TXT key \"K\" given twice")) { try txt(["k=1", "K=2"]) }
        #expect(throws: ArgumentError("TXT key \"flag\" given twice")) { try txt(["flag", "flag"]) }
        #expect(throws: ArgumentError("TXT key \"a\" given twice")) { try txt(["a=", "a"]) }
    }

    @Test func invalidTXTKeys() {
        #expect(throws: ArgumentError("TXT entry \"=v\" has no key")) { try txt(["=v"]) }
        #expect(throws: ArgumentError.self) { try txt(["ké=v"]) }
        #expect(throws: ArgumentError.self) { try txt(["k=" + String(repeating: "x", count: 300)]) }
    }

    @Test func subtypesAreCollected() throws {
        let configuration = try publication([
            "-s", "_printer", "Name", "_http._tcp", "--subtype", "_scanner", "80", "--subtype=_fax",
        ])
        #expect(configuration.subtypes == ["_printer", "_scanner", "_fax"])
    }

    @Test func noRename() throws {
        #expect(try !publication(["--no-rename", "Name", "_http._tcp", "80"]).allowsRenaming)
    }

    @Test func emptyNameIsAllowed() throws {
        let configuration = try publication(["", "_http._tcp", "80"])
        #expect(configuration.name == "")
        #expect(configuration.port == 80)
    }

    @Test func badTypeAndDomain() {
        #expect(throws: serviceTypeError("http")) { try publication(["Name", "http", "80"]) }
        #expect(
            throws: ArgumentError("domain \"bad..domain\" is not a domain name: a domain name label cannot be empty")
        ) {
            try publication(["--domain", "bad..domain", "Name", "_http._tcp", "80"])
        }
    }

    @Test func aUnicastDomainNeedsAKeyAndAPort() throws {
        #expect(
            throws: ArgumentError("publishing in lab.example. is a signed DNS UPDATE: give the key with --key FILE")
        ) {
            try publication(["-d", "lab.example", "Name", "_http._tcp", "80"])
        }
        #expect(throws: ArgumentError("--key is for a domain other than local. (-d DOMAIN)")) {
            try publication(["--key", "/dev/null", "Name", "_http._tcp", "80"])
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ciao-\(UUID().uuidString).key").path
        try "key \"lab-key.\" { algorithm hmac-sha256; secret \"c2VjcmV0\"; };".write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ArgumentError("--listener is for local. only: give the PORT")) {
            try publication(["-d", "lab.example", "--key", path, "--listener", "Name", "_http._tcp"])
        }
        let configuration = try publication([
            "-d", "lab.example", "--key", path, "--server", "198.18.0.1", "--host", "printer", "Name", "_http._tcp",
            "80",
        ])
        #expect(configuration.domain == "lab.example.")
        #expect(configuration.wideArea?.key.name == "lab-key.")
        #expect(configuration.wideArea?.server == "198.18.0.1" && configuration.wideArea?.hostName == "printer")
        #expect(configuration.hostName == nil)
    }

    /// In local. `--host` names another host the service runs on (avahi-publish -H), which needs its port.
    @Test func aLocalServiceOnAnotherHost() throws {
        let configuration = try publication(["--host", "printer.local", "Printer", "_ipp._tcp", "631"])
        #expect(configuration.hostName == "printer.local" && configuration.wideArea == nil)
        #expect(configuration.mode == .externalPort && configuration.port == 631)
        #expect(
            throws: ArgumentError(
                "with --host the service runs on that host: give the PORT it listens on, not --listener")
        ) {
            try publication(["--host", "printer", "--listener", "Printer", "_ipp._tcp"])
        }
        let proxy = try publication([
            "--host", "printer", "--address", "198.18.0.77", "--address", "fd00::77", "Printer", "_ipp._tcp", "631",
        ])
        #expect(proxy.hostName == "printer" && proxy.hostAddresses == ["198.18.0.77", "fd00::77"])
        let conflict = CiaoError.dnsService(CiaoError.Code.nameConflict)
        #expect(
            PublishCommand.failureText(conflict, proxy).hasSuffix(
                "(the name may be the host name printer, which another responder holds with other addresses; a host name is not renamed)"
            ))
        #expect(
            PublishCommand.failureText(conflict, try publication(["Printer", "_ipp._tcp", "631"])) == "\(conflict)")
        #expect(throws: ArgumentError("--address needs --host NAME, the host the address belongs to")) {
            try publication(["--address", "198.18.0.77", "Printer", "_ipp._tcp", "631"])
        }
    }

    @Test func missingNameOrType() {
        #expect(throws: ArgumentError("missing NAME")) { try PublishCommand.spec.parse([]) }
        #expect(throws: ArgumentError("missing TYPE")) { try PublishCommand.spec.parse(["Name"]) }
    }
}

/// What `-4` or `-6` is told when no interface has that family's address but some have the other's.
@Suite struct FamilyHintTests {
    @Test func aSingleFamilyWithoutInterfacesIsExplained() {
        let sixOnly = NetworkScope(families: [.ipv6])
        #expect(
            CommonOptions.familyHint(sixOnly, usableOverEither: ["nlv0"])
                == "nlv0 has no IPv6 address; -6 uses IPv6 alone")
        #expect(
            CommonOptions.familyHint(NetworkScope(families: [.ipv4]), usableOverEither: ["wlan0", "eth0"])
                == "eth0, wlan0 have no IPv4 address; -4 uses IPv4 alone")
        #expect(CommonOptions.familyHint(sixOnly, usableOverEither: []) == nil, "no interface at all")
        #expect(CommonOptions.familyHint(NetworkScope(), usableOverEither: ["nlv0"]) == nil, "both families")
    }
}
