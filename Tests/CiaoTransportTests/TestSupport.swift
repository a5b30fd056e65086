import CiaoNetwork
import CiaoWire
import Foundation
import Testing

@testable import CiaoTransport

/// True inside the namespace Scripts/transport-tests.sh creates; only then may tests open sockets.
/// The variable alone is not trusted: the process must also be in a namespace from `ip netns add`.
let inTestNamespace = ProcessInfo.processInfo.environment["CIAO_TRANSPORT_NETNS"] == "1" && NetworkNamespace.isPrivate

/// Every test that opens a socket or changes a link lives in an extension of this suite: it is
/// enabled only inside the test namespace, and serialized, because the tests share port 5353 and
/// the veth pair (one of them takes trb0 down and up).
@Suite(.serialized, .enabled(if: inTestNamespace, "needs the namespace from Scripts/transport-tests.sh"))
struct NamespaceTests {}

/// The veth pair's addresses (see Scripts/transport-tests.sh).
enum Lab {
    static let a4 = IPAddress.v4(IPv4Address("198.18.60.1")!)
    static let b4 = IPAddress.v4(IPv4Address("198.18.61.1")!)
    static let a6 = IPAddress.v6(IPv6Address("fd00:198:18:60::1")!)
    static let b6 = IPAddress.v6(IPv6Address("fd00:198:18:61::1")!)

    static func interface(_ name: String) throws -> NetworkInterface {
        try #require(try InterfaceScanner.current().first { $0.name == name }, "\(name) is not listed")
    }

    /// The interface's IPv6 link-local address.
    static func linkLocal(_ interface: NetworkInterface) throws -> IPAddress {
        try #require(
            interface.addresses.first {
                if case .v6(let v6) = $0.address { v6.isLinkLocal } else { false }
            }?.address, "\(interface.name) has no link-local address")
    }
}

/// A payload no other test sends.
func uniquePayload(_ label: String) -> [UInt8] {
    Array("ciao-transport-test \(label) \(UUID().uuidString)".utf8)
}

/// Reads every datagram carrying `payload` that arrives on `socket` within `window`; stops early once
/// `enough` says so.
func collect(
    _ payload: [UInt8], on socket: MulticastSocket, within window: Duration = .milliseconds(500),
    until enough: ([ReceivedDatagram]) -> Bool = { _ in false }
) throws -> [ReceivedDatagram] {
    var poller = Poller()
    var datagrams: [ReceivedDatagram] = []
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: window)
    while clock.now < deadline && !enough(datagrams) {
        _ = try poller.wait(fileDescriptors: [socket.fileDescriptor], timeout: clock.now.duration(to: deadline))
        datagrams += try socket.receiveWaiting().filter { $0.bytes == payload }
    }
    return datagrams
}

/// Runs `ip` with `arguments` (inside the namespace, where the tests run) and fails on a non-zero exit.
func ip(_ arguments: String...) throws {
    try ip(arguments)
}

func ip(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(
        fileURLWithPath: FileManager.default.fileExists(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip")
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "ip \(arguments.joined(separator: " ")) failed")
}

/// The number of open descriptors of this process.
func openFileDescriptorCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
}
