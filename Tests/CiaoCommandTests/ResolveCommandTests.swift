import Ciao
import Testing

@testable import ciao

@Suite struct ResolveCommandTests {
    @Test func aNameInTheEscapedFormOfDashPIsShownPlainWhenNotResolved() throws {
        let type = try ServiceType("_printer._tcp")
        let escaped = ResolveCommand.notResolved(Service(name: #"Office\032Printer"#, type: type), within: .seconds(10))
        #expect(
            escaped == #"Office\032Printer._printer._tcp.local. was not resolved within 10.0 seconds; "#
                + #"the name is taken as written: "Office Printer" is the name that -p prints as "Office\032Printer""#)
        let utf8 = ResolveCommand.notResolved(
            Service(name: #"Caf\195\169 Dot\.Name"#, type: type), within: .seconds(10))
        #expect(
            utf8.hasSuffix(
                #"the name is taken as written: "Café Dot.Name" is the name that -p prints as "Caf\195\169\032Dot\.Name""#
            )
        )
    }

    @Test func aPlainNameGetsNoHint() throws {
        let type = try ServiceType("_printer._tcp")
        #expect(
            ResolveCommand.notResolved(Service(name: "Office Printer", type: type), within: .seconds(10))
                == "Office Printer._printer._tcp.local. was not resolved within 10.0 seconds")
        // A backslash that escapes nothing, or two labels: nothing plainer to offer.
        for name in [#"back\slash"#, #"a\.b.c"#] {
            #expect(
                !ResolveCommand.notResolved(Service(name: name, type: type), within: .seconds(1)).contains(
                    "taken as written"))
        }
    }
}
