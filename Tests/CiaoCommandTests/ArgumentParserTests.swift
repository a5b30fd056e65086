import Testing
@testable import ciao

@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(
        name: "test",
        summary: "A command for the tests.",
        options: [
            .init(names: ["-v", "--verbose"], value: nil, help: "talk more"),
            .init(names: ["-n", "--name"], value: "NAME", help: "a name"),
            .init(names: ["-i", "--interface"], value: "IF", help: "an interface (repeatable)", repeatable: true),
        ],
        positionals: [
            .init(name: "FIRST", help: "required"),
            .init(name: "SECOND", help: "optional", isOptional: true),
            .init(name: "REST", help: "the rest", isVariadic: true),
        ],
        details: "")

    static let fixed = CommandSpec(
        name: "fixed", summary: "One positional.", options: [], positionals: [.init(name: "ONE", help: "one")],
        details: "")

    func parse(_ arguments: [String], _ spec: CommandSpec = Self.spec) throws(ArgumentError) -> ParsedArguments {
        try spec.parse(arguments)
    }

    @Test func flagsByAnySpellingUseTheLastName() throws {
        #expect(try parse(["-v", "a"]).flags == ["--verbose"])
        #expect(try parse(["a", "--verbose"]).has("--verbose"))
        #expect(try !parse(["a"]).has("--verbose"))
        #expect(throws: ArgumentError("--verbose takes no value")) { try parse(["--verbose=yes", "a"]) }
    }

    @Test func values() throws {
        #expect(try parse(["--name", "v", "a"]).value("--name") == "v")
        #expect(try parse(["--name=v", "a"]).value("--name") == "v")
        #expect(try parse(["-n", "v", "a"]).value("--name") == "v")
        #expect(try parse(["--name=a=b", "a"]).value("--name") == "a=b")
        #expect(try parse(["--name=", "a"]).value("--name") == "")
        // The word after an option that takes a value is its value, whatever it looks like.
        #expect(try parse(["--name", "-v", "a"]).value("--name") == "-v")
        #expect(try parse(["--name", "-3", "a"]).value("--name") == "-3")
        #expect(try parse(["a"]).value("--name") == nil)
    }

    /// Short flags combine as avahi-utils takes them (`-rtp`); the last may take a value.
    @Test func combinedShortFlags() throws {
        let parsed = try parse(["-vi", "eth0", "a"])
        #expect(parsed.has("--verbose") && parsed.value("--interface") == "eth0")
        #expect(try parse(["-vn", "x", "a"]).value("--name") == "x")
        #expect(throws: ArgumentError("unknown option -nv")) { try parse(["-nv", "x", "a"]) }
        #expect(throws: ArgumentError("unknown option -vq")) { try parse(["-vq", "a"]) }
        let browse = try BrowseCommand.spec.parse(["-rtp", "_http._tcp"])
        #expect(browse.has("--resolve") && browse.has("--terminate") && browse.has("--parsable"))
        #expect(try BrowseCommand.spec.parse(["-art"]).has("--all"))
    }

    @Test func repeatableOptionsCollectEveryValue() throws {
        let parsed = try parse(["-i", "eth0", "a", "--interface", "wlan0", "--interface=civ0"])
        #expect(parsed.all("--interface") == ["eth0", "wlan0", "civ0"])
        #expect(parsed.value("--interface") == "civ0")
        #expect(try parse(["a"]).all("--interface") == [])
    }

    @Test func nonRepeatableOptionGivenTwice() {
        #expect(throws: ArgumentError("-n given more than once")) { try parse(["--name", "x", "-n", "y", "a"]) }
        #expect(throws: ArgumentError("--name given more than once")) { try parse(["--name=x", "--name=x", "a"]) }
    }

    @Test func unknownOptionIsNamed() {
        #expect(throws: ArgumentError("unknown option --bogus")) { try parse(["a", "--bogus"]) }
        #expect(throws: ArgumentError("unknown option --bogus")) { try parse(["--bogus=1", "a"]) }
        #expect(throws: ArgumentError("unknown option -x")) { try parse(["-x", "a"]) }
    }

    @Test func missingValue() {
        #expect(throws: ArgumentError("--name needs a value (NAME)")) { try parse(["a", "--name"]) }
        #expect(throws: ArgumentError("-i needs a value (IF)")) { try parse(["a", "-i"]) }
    }

    @Test func missingRequiredPositional() {
        #expect(throws: ArgumentError("missing FIRST")) { try parse([]) }
        #expect(throws: ArgumentError("missing FIRST")) { try parse(["-v", "--name", "x"]) }
        #expect(throws: ArgumentError("missing ONE")) { try parse([], Self.fixed) }
    }

    @Test func unexpectedExtraPositional() {
        #expect(throws: ArgumentError("unexpected argument \"b\"")) { try parse(["a", "b"], Self.fixed) }
        #expect(throws: ArgumentError("unexpected argument \"x\"")) {
            try CommandSpec(name: "none", summary: "", options: [], positionals: [], details: "").parse(["x"])
        }
    }

    @Test func positionalsInOrderWithVariadicLast() throws {
        let parsed = try parse(["a", "-v", "b", "c", "--name", "n", "d"])
        #expect(parsed.positional("FIRST") == "a")
        #expect(parsed.positional("SECOND") == "b")
        #expect(parsed.variadic("REST") == ["c", "d"])
        #expect(parsed.value("--name") == "n")
        let short = try parse(["a"])
        #expect(short.positional("SECOND") == nil)
        #expect(short.variadic("REST") == [])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["-v", "--", "--name", "-v", "--bogus"])
        #expect(parsed.flags == ["--verbose"])
        #expect(parsed.values.isEmpty)
        #expect(parsed.positional("FIRST") == "--name")
        #expect(parsed.positional("SECOND") == "-v")
        #expect(parsed.variadic("REST") == ["--bogus"])
    }

    @Test func singleDashAndNegativeNumbersArePositionals() throws {
        #expect(try parse(["-"], Self.fixed).positional("ONE") == "-")
        let parsed = try parse(["-5", "-", "-10", "-0"])
        #expect(parsed.positional("FIRST") == "-5")
        #expect(parsed.positional("SECOND") == "-")
        #expect(parsed.variadic("REST") == ["-10", "-0"])
        #expect(parsed.flags.isEmpty)
        #expect(try parse([""], Self.fixed).positional("ONE") == "")
    }

    /// `-4` and `-6` are declared flags; other `-<digits>` words stay negative numbers.
    @Test func declaredDigitFlagsAreOptions() throws {
        let parsed = try BrowseCommand.spec.parse(["-4", "_http._tcp", "-6"])
        #expect(parsed.flags == ["-4", "-6"])
        #expect(parsed.variadic("TYPE") == ["_http._tcp"])
        #expect(try TypesCommand.spec.parse(["-6"]).has("-6"))
        let publish = try PublishCommand.spec.parse(["-4", "Name", "_http._tcp", "-5"])
        #expect(publish.has("-4"))
        #expect(publish.positional("PORT") == "-5")
    }
}

@Suite struct UsageTests {
    static let specs: [CommandSpec] = [
        BrowseCommand.spec, PublishCommand.spec, ResolveCommand.spec, TypesCommand.spec, DecodeCommand.spec,
        ResolveHostCommand.spec, ResolveAddressCommand.spec, QueryCommand.spec,
    ]

    @Test(arguments: specs.map(\.name))
    func usageListsEveryOptionAndPositional(_ name: String) throws {
        let spec = try #require(Self.specs.first { $0.name == name })
        let usage = spec.usage
        #expect(usage.hasPrefix("usage: ciao \(name)"))
        #expect(usage.contains(spec.summary))
        for option in spec.options {
            let label = option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? "")
            let row = try #require(
                usage.split(separator: "\n").first { $0.hasPrefix("  " + label + " ") },
                "no row for \(label)")
            #expect(row.hasSuffix(option.help))
        }
        for positional in spec.positionals {
            #expect(usage.contains("  \(positional.name) "), "\(positional.name) in the Arguments table")
            #expect(usage.contains(positional.help))
        }
        if !spec.details.isEmpty { #expect(usage.contains(spec.details)) }
        #expect(usage.contains("Options:") == !spec.options.isEmpty)
        #expect(usage.contains("Arguments:") == !spec.positionals.isEmpty)
    }

    @Test func usageLines() {
        func firstLine(_ spec: CommandSpec) -> Substring {
            spec.usage.split(separator: "\n", omittingEmptySubsequences: false)[0]
        }
        #expect(firstLine(BrowseCommand.spec) == "usage: ciao browse [options] [TYPE...]")
        #expect(firstLine(PublishCommand.spec) == "usage: ciao publish [options] NAME TYPE [PORT] [TXT...]")
        #expect(firstLine(ResolveCommand.spec) == "usage: ciao resolve [options] NAME TYPE [DOMAIN]")
        #expect(firstLine(DecodeCommand.spec) == "usage: ciao decode [FILE]")
        #expect(firstLine(TypesCommand.spec) == "usage: ciao types [options]")
        #expect(firstLine(ResolveHostCommand.spec) == "usage: ciao resolve-host [options] [NAME...]")
        #expect(firstLine(ResolveAddressCommand.spec) == "usage: ciao resolve-address [options] [ADDRESS...]")
        #expect(firstLine(QueryCommand.spec) == "usage: ciao query [options] NAME TYPE")
    }

    @Test func aUsageErrorSaysTheMessageTheUsageLineAndWhereTheHelpIs() {
        #expect(
            CommandLineTool.usageErrorText("TXT key \"A\" given twice", spec: PublishCommand.spec)
                == "ciao: TXT key \"A\" given twice\nusage: ciao publish [options] NAME TYPE [PORT] [TXT...]\n"
                + "Run \"ciao publish --help\" for more.\n")
    }

    @Test func commandOptions() {
        let browse = BrowseCommand.spec.usage
        for label in [
            "-a, --all", "-r, --resolve", "-t, --terminate", "--timeout SECONDS", "-i, --interface NAME", "  -4  ",
            "  -6  ", "-d, --domain DOMAIN", "-p, --parsable", "--json",
        ] {
            #expect(browse.contains(label), "browse: \(label)")
        }
        let publish = PublishCommand.spec.usage
        for label in [
            "-l, --listener", "--no-rename", "-s, --subtype SUB", "-i, --interface NAME", "-d, --domain DOMAIN",
            "--json",
        ] {
            #expect(publish.contains(label), "publish: \(label)")
        }
        #expect(!publish.contains("--parsable"))
        let resolve = ResolveCommand.spec.usage
        for label in ["--timeout SECONDS", "-i, --interface NAME", "-p, --parsable", "--json"] {
            #expect(resolve.contains(label), "resolve: \(label)")
        }
        let types = TypesCommand.spec.usage
        for label in ["-t, --terminate", "-i, --interface NAME", "-p, --parsable", "--json"] {
            #expect(types.contains(label), "types: \(label)")
        }
        for spec in [ResolveHostCommand.spec, ResolveAddressCommand.spec, QueryCommand.spec] {
            for label in ["--timeout SECONDS", "-i, --interface NAME", "  -4  ", "  -6  ", "--json"] {
                #expect(spec.usage.contains(label), "\(spec.name): \(label)")
            }
        }
        #expect(QueryCommand.spec.usage.contains("-c, --continuous"))
        #expect(!DecodeCommand.spec.usage.contains("Options:"))
    }

    @Test func topLevelUsageNamesEveryCommand() {
        for name in CommandLineTool.commands.keys {
            #expect(CommandLineTool.usage.contains("\n  \(name) "), "\(name)")
        }
        #expect(
            Set(CommandLineTool.commands.keys) == [
                "browse", "publish", "resolve", "types", "domains", "decode", "resolve-host", "resolve-address",
                "query",
                "explore",
            ])
    }
}
