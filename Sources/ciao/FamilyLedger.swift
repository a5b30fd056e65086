import Ciao

/// What `ciao browse` has printed for each service per address family, so that `-p` prints a line
/// per family a service's records came over, as avahi-browse does per "protocol": a record first
/// coming over a second family adds that family's `+` (and `=`) lines once, later.
struct FamilyLedger {
    private struct Printed {
        var families: Set<NetworkScope.AddressFamily> = []
        /// The last result, and the address each family's `=` line showed.
        var resolved: ResolvedService?
        var addresses: [NetworkScope.AddressFamily: String] = [:]
    }

    private var printed: [Service: Printed] = [:]

    /// The families to print `+` lines for: those `heard` not printed yet; for a new service
    /// heard over none (gone again meanwhile), `fallback`.
    mutating func found(
        _ service: Service, heard: Set<NetworkScope.AddressFamily>, fallback: [NetworkScope.AddressFamily]
    ) -> [NetworkScope.AddressFamily] {
        let known = printed[service]?.families
        let families = known == nil && heard.isEmpty ? Set(fallback) : heard.subtracting(known ?? [])
        printed[service, default: Printed()].families.formUnion(families)
        return ParsableFormatter.protocolOrder.filter(families.contains)
    }

    /// The families to print `=` lines for: every one printed with `+` and with an address over
    /// it when `resolved` is news, only those whose address changed when it repeats an earlier
    /// result but for ``ResolvedService/addressesHeardOver``, or when a family was just added.
    mutating func resolved(_ resolved: ResolvedService, isNews: Bool) -> [NetworkScope.AddressFamily] {
        guard var entry = printed[resolved.service] else { return [] }
        var due: [NetworkScope.AddressFamily] = []
        for family in ParsableFormatter.protocolOrder where entry.families.contains(family) {
            guard let address = ParsableFormatter.address(of: resolved, over: family) else { continue }
            if isNews || entry.addresses[family] != address { due.append(family) }
            entry.addresses[family] = address
        }
        entry.resolved = resolved
        printed[resolved.service] = entry
        return due
    }

    /// The last result printed for `service`, to complete a protocol added after it.
    func lastResolved(_ service: Service) -> ResolvedService? {
        printed[service]?.resolved
    }

    /// The families to print `-` lines for, forgetting the service.
    mutating func removed(_ service: Service, fallback: [NetworkScope.AddressFamily]) -> [NetworkScope.AddressFamily] {
        guard let entry = printed.removeValue(forKey: service) else { return fallback }
        return ParsableFormatter.protocolOrder.filter(entry.families.contains)
    }
}
