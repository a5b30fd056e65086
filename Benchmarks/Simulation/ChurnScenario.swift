import CiaoEngine
import CiaoSimulation
import CiaoWire

/// Every host publishes one service, registered at a random moment in the first minute; some hosts
/// browse the type. Every ten seconds a random host withdraws its service and registers it again
/// five seconds later. At the end every browser must see exactly the services published.
struct ChurnScenario {
    static let serviceType = try! DomainName(parsing: "_churn._tcp.local.")

    struct Result {
        var churnEvents = 0
        var datagrams = 0
        var events = 0
        var browsersConverged = 0
    }

    let hosts: Int
    let browsers: Int
    let seed: UInt64

    func makeNetwork() -> SimulatedNetwork {
        var network = SimulatedNetwork(seed: seed)
        network.recordsTransmissions = false
        network.recordsEvents = false
        network.families = [.v4]
        return network
    }

    func run(_ network: inout SimulatedNetwork, for duration: Duration) -> Result {
        var random = SplitMix64(seed: seed ^ 0x5EED)
        let link = network.addLink(SimulatedNetwork.Conditions(delay: .microseconds(200)...(.milliseconds(2))))
        let ids = (0..<hosts).map { network.addHost(named: "host\($0)", links: [link], cacheCapacity: 4096) }
        // Register each host's service at a random moment in the first minute.
        var pending = ids.map {
            (time: Instant.zero + .milliseconds(Int64.random(in: 0..<60_000, using: &random)), host: $0)
        }
        .sorted { $0.time < $1.time }
        var registrations: [SimulatedNetwork.HostID: RegistrationID] = [:]
        let browsingHosts = Array(ids.prefix(browsers))
        for host in browsingHosts {
            _ = network.withStack(host) { engine, now in engine.startQuery(name: Self.serviceType, type: .ptr, at: now)
            }
        }
        var result = Result()
        let eventCount = Counter()
        network.eventObserver = { _ in eventCount.value += 1 }
        let end = Instant.zero + duration
        var nextChurn = Instant.zero + .seconds(70)
        while network.now < end {
            let nextRegistration = pending.first?.time ?? end
            let next = min(nextRegistration, nextChurn, end)
            network.run(until: next)
            while let first = pending.first, first.time <= network.now {
                pending.removeFirst()
                let service = ServiceRegistration(
                    instanceName: "Service \(first.host.index)", serviceType: Self.serviceType, port: 7000,
                    txt: try! TXTData(strings: [Array("host=\(first.host.index)".utf8)]))
                registrations[first.host] = network.withStack(first.host) { engine, now in
                    engine.register(service, at: now)
                }
            }
            if network.now >= nextChurn && nextChurn < end - .seconds(60) {
                let victim = ids[Int.random(in: 0..<hosts, using: &random)]
                if let id = registrations.removeValue(forKey: victim) {
                    network.withStack(victim) { engine, now in engine.deregister(id, at: now) }
                    pending.append((network.now + .seconds(5), victim))
                    pending.sort { $0.time < $1.time }
                    result.churnEvents += 1
                }
                nextChurn = network.now + .seconds(10)
            } else if network.now >= nextChurn {
                nextChurn = end
            }
        }
        result.datagrams = network.transmissionCount
        result.events = eventCount.value
        let expected = Set(registrations.compactMap { host, id in network.engine(host).name(of: id) })
        for host in browsingHosts {
            let cached = network.engine(host).cachedRecords(on: InterfaceID(1))
            let seen = Set(
                cached.compactMap { record -> DomainName? in
                    guard record.name == Self.serviceType, case .ptr(let target) = record.data else { return nil }
                    return target
                })
            // A host's own service is not in its cache.
            let others = expected.filter { name in
                registrations[host].flatMap { network.engine(host).name(of: $0) } != name
            }
            if seen == others {
                result.browsersConverged += 1
            } else {
                print(
                    "\(host): missing \(others.subtracting(seen).map(\.description).sorted()), "
                        + "unexpected \(seen.subtracting(others).map(\.description).sorted())")
            }
        }
        return result
    }
}

/// A tally the event observer can update from its closure.
final class Counter {
    var value = 0
}
