import CiaoEngine

/// The runtime loop's counters (``CiaoStatistics``), kept whether or not diagnostics are on.
struct RuntimeStatistics {
    private struct Key: Hashable, Comparable {
        var interface: InterfaceID
        var family: IPFamily

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.interface, lhs.family == .v4 ? 0 : 1) < (rhs.interface, rhs.family == .v4 ? 0 : 1)
        }
    }

    private var counters: [Key: CiaoStatistics.InterfaceCounters] = [:]
    private var receiveFailures: [IPFamily: UInt64] = [:]

    /// Runs `change` on the counters of `interface` over `family`, created under `name`.
    mutating func update(
        _ interface: InterfaceID, _ family: IPFamily, name: @autoclosure () -> String,
        _ change: (inout CiaoStatistics.InterfaceCounters) -> Void
    ) {
        let key = Key(interface: interface, family: family)
        if counters[key] == nil {
            counters[key] = CiaoStatistics.InterfaceCounters(
                interface: name(), family: NetworkScope.AddressFamily(family))
        }
        change(&counters[key]!)
    }

    mutating func noteReceiveFailure(over family: IPFamily) {
        receiveFailures[family, default: 0] += 1
    }

    /// The counters, with the sockets' own.
    func snapshot(sockets: [IPFamily: MulticastSocketCounters]) -> CiaoStatistics {
        CiaoStatistics(
            interfaces: counters.keys.sorted().map { counters[$0]! },
            sockets: IPFamily.allCases.compactMap { family in
                sockets[family].map {
                    CiaoStatistics.SocketCounters(
                        family: NetworkScope.AddressFamily(family), kernelDrops: $0.kernelDrops,
                        truncated: $0.truncated,
                        receiveFailures: receiveFailures[family] ?? 0)
                }
            })
    }
}

/// What a socket counts itself.
struct MulticastSocketCounters {
    var kernelDrops: UInt64
    var truncated: UInt64
}
