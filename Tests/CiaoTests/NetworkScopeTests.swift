@testable import Ciao
import Testing

@Suite struct NetworkScopeTests {
    /// A chosen interface this host lacks is a configuration error naming it and listing those it has.
    @Test func aMissingInterfaceIsNamedWithTheOnesThatExist() throws {
        let scope = NetworkScope(interfaces: ["eth9", "civ0"])
        #expect(
            throws: CiaoError.invalidConfiguration("no network interface named \"eth9\" on this host; it has civ0, lo")
        ) {
            try scope.checkInterfacesExist(among: ["civ0", "lo"])
        }
        try NetworkScope(interfaces: ["lo"]).checkInterfacesExist(among: ["civ0", "lo"])
        try NetworkScope.all.checkInterfacesExist(among: [])
    }

    /// `use` checks against the interfaces the system has, before the runtime is touched.
    @Test func useRefusesAnInterfaceTheSystemLacks() {
        #expect(throws: CiaoError.self) { try NetworkScope.use(NetworkScope(interfaces: ["ciao-no-such-if0"])) }
    }
}
