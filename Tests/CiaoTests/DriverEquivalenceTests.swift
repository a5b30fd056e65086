import CiaoEngine
import CiaoSimulation
import CiaoTestFixtures
import CiaoWire
import Foundation
import Testing

@testable import Ciao
@testable import CiaoTransport

/// True inside the namespace Scripts/transport-tests.sh creates; only then may tests open sockets.
private let inTransportNamespace =
    ProcessInfo.processInfo.environment["CIAO_TRANSPORT_NETNS"] == "1" && NetworkNamespace.isPrivate

/// The driver as the runtime runs it over sockets and as the simulated network runs it: the same
/// commands give the same updates. Two runtimes sit on the two ends of the transport namespace's
/// veth pair (tra0 publishes, trb0 browses and resolves); the simulated pair gets the publisher's
/// host name and addresses. Beside the publication, tra0 multicasts the PTR record of an instance
/// nobody answers for, whose automatic resolution fails at the browse's resolution timeout.
@Suite(.serialized, .enabled(if: inTransportNamespace, "needs the namespace from Scripts/transport-tests.sh"))
struct DriverEquivalenceTests {
    static let type = try! ServiceType("_ciaotwin._tcp")
    static let publication = Publication(
        name: "Twin Café. 1", type: type, port: 8080, txtRecord: try! TXTRecord(strings: ["k": "v"]), subtypes: [],
        allowsRenaming: true)
    static let resolutionTimeout = Duration.seconds(2)
    /// A response holding only the PTR record of `Ghost`, an instance whose SRV and TXT records
    /// nobody has.
    static let ghostResponse = Messages.response([
        Services.ptr(to: Names.instance("Ghost", of: ServiceDirectory.typeName(type)))
    ])

    /// What one run reported, with interface indexes set to 0 (the veth's differ from the
    /// simulation's) and repeats that change only the families addresses came over left out.
    struct Reported: Equatable {
        var publication: [PublicationUpdate] = []
        var browse: [BrowseUpdate] = []
        var resolved: [ResolvedService] = []
    }

    @Test func theRuntimeAndTheSimulatedNetworkReportTheSame() async throws {
        let real = try await runtimeRun()
        let simulated = simulatedRun()
        #expect(!real.resolved.isEmpty)
        #expect(real == simulated)
    }

    private func runtimeRun() async throws -> Reported {
        let publisher = MDNSRuntime()
        try publisher.use(NetworkScope(interfaces: ["tra0"]))
        let browser = MDNSRuntime()
        try browser.use(NetworkScope(interfaces: ["trb0"]))
        let published = Inbox<PublicationUpdate>()
        let browsed = Inbox<BrowseUpdate>()
        let resolved = Inbox<ResolvedService>()
        let publication = try publisher.publish(Self.publication) { published.append($0) }
        try await waitUntil { !published.values.isEmpty }
        let browse = try browser.browse(type: Self.type, subtype: nil, resolutionTimeout: Self.resolutionTimeout) {
            updates in
            browsed.append(contentsOf: updates)
            for case .resolved(let result) in updates { resolved.append(result) }
        }
        try await waitUntil { resolved.values.last?.addresses.count == 2 }
        let sender = try MulticastSocket(family: .v4)
        try sender.send(
            try Self.ghostResponse.encoded(), on: InterfaceID(if_nametoindex("tra0")), to: .multicast(.v4))
        try await waitUntil {
            browsed.values.contains {
                if case .resolutionFailed(let service) = $0 { service.name == "Ghost" } else { false }
            }
        }
        browser.cancel(browse)
        publisher.cancel(publication)
        await publisher.waitForPending()
        return Reported(published.values, browsed.values, resolved.values)
    }

    private func simulatedRun() -> Reported {
        var pair = DriverPair(publisherName: MDNSRuntime.defaultHostLabel())
        pair.network.setAddresses(
            [
                InterfaceAddress(.v4(IPv4Address(198, 18, 60, 1)), prefixLength: 24),
                InterfaceAddress(.v6(IPv6Address("fd00:198:18:60::1")!), prefixLength: 64),
            ], of: pair.publisher, on: pair.link)
        pair.network.setAddresses(
            [
                InterfaceAddress(.v4(IPv4Address(198, 18, 61, 1)), prefixLength: 24),
                InterfaceAddress(.v6(IPv6Address("fd00:198:18:61::1")!), prefixLength: 64),
            ], of: pair.browser, on: pair.link)
        pair.publish(Self.publication, on: pair.publisher)
        pair.run(for: .seconds(3))
        pair.browseAndResolve(Self.type, resolutionTimeout: Self.resolutionTimeout)
        pair.run(for: .seconds(2))
        pair.network.inject(Self.ghostResponse, from: pair.publisher, on: pair.link)
        pair.run(for: .seconds(3))
        let published = pair.publicationUpdates[pair.publisher] ?? []
        return Reported(published, pair.browseUpdates, pair.resolved)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "nothing within 10 s")
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension DriverEquivalenceTests.Reported {
    init(_ publication: [PublicationUpdate], _ browse: [BrowseUpdate], _ resolved: [ResolvedService]) {
        self.publication = publication
        self.browse = browse.compactMap { update in
            switch update {
            case .found(let service): .found(service.anyInterface)
            case .removed(let service): .removed(service.anyInterface)
            case .fromThisHost(let service): .fromThisHost(service.anyInterface)
            case .resolutionFailed(let service): .resolutionFailed(service.anyInterface)
            case .heardOver, .resolved: nil
            }
        }
        for result in resolved {
            var result = result
            result.service = result.service.anyInterface
            if result != self.resolved.last { self.resolved.append(result) }
        }
    }
}

extension Service {
    fileprivate var anyInterface: Service {
        Service(name: name, type: type, domain: domain, interfaceIndex: 0)
    }
}
