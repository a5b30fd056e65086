import Ciao
import CiaoEngine
import CiaoTransport

/// Names and address families of the local interfaces, by index, as the printers show them.
struct InterfaceDirectory {
    private let selection: InterfaceSelection
    private var known: [UInt32: InterfaceInfo] = [:]

    init(scope: NetworkScope) {
        selection = scope.interfaceSelection
    }

    /// The interface with `index`, scanning again when it is new to us.
    mutating func info(for index: UInt32) -> InterfaceInfo {
        if let info = known[index] { return info }
        for interface in (try? InterfaceScanner.current(selection: selection)) ?? [] {
            known[interface.id.index] = InterfaceInfo(
                name: interface.name, families: interface.families.map(NetworkScope.AddressFamily.init))
        }
        return known[index] ?? InterfaceInfo(name: index == 0 ? "any" : String(index), families: [.ipv4, .ipv6])
    }
}
