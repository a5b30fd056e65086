import Ciao
import CiaoEngine
import CiaoTransport

/// Names and address families of the local interfaces, by index, as the printers show them.
struct InterfaceDirectory {
    private let filter: InterfaceFilter
    private var known: [UInt32: InterfaceInfo] = [:]

    init(scope: NetworkScope) {
        filter = scope.interfaceFilter
    }

    /// The interface with `index` (0: any, a unicast DNS answer), scanning again when it is new
    /// to us.
    mutating func info(for index: UInt32) -> InterfaceInfo {
        if let info = known[index] { return info }
        guard index != 0 else { return InterfaceInfo(name: "any", families: [.ipv4, .ipv6]) }
        for interface in (try? InterfaceScanner.current(filter: filter)) ?? [] {
            known[interface.id.index] = InterfaceInfo(
                name: interface.name, families: interface.families.map(NetworkScope.AddressFamily.init))
        }
        return known[index] ?? InterfaceInfo(name: String(index), families: [.ipv4, .ipv6])
    }
}
