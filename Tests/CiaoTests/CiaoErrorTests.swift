import CiaoTransport
import Foundation
import Testing

@testable import Ciao

@Suite("CiaoError")
struct CiaoErrorTests {
    static let all: [CiaoError] = [
        .invalidServiceType("\"x\" is bad"), .invalidTXTRecord("key \"=\" is bad"),
        .invalidConfiguration("port 0"), .dnsService(-65548), .dnsService(-65540), .dnsService(-65568),
        .dnsService(-1), .network("sendmsg failed: ENETUNREACH"), .timedOut, .stopped,
    ]

    @Test func descriptionsAreNonEmptyAndDistinct() {
        let descriptions = Self.all.map(\.description)
        #expect(descriptions.allSatisfy { !$0.isEmpty })
        #expect(Set(descriptions).count == descriptions.count)
    }

    @Test func messagesArePassedThrough() {
        #expect(CiaoError.invalidServiceType("\"x\" is bad").description.contains("\"x\" is bad"))
        #expect(CiaoError.invalidTXTRecord("key k").description.contains("key k"))
        #expect(CiaoError.invalidConfiguration("port 0").description.contains("port 0"))
        #expect(CiaoError.network("ENETUNREACH").description.contains("ENETUNREACH"))
    }

    @Test func aPortNoOtherResponderCanShareSaysHowToFindItsHolder() {
        let taken = TransportError.system(operation: "bind an IPv4 socket to UDP port 5353", errno: EADDRINUSE)
        #expect(
            MDNSRuntime.startFailure(taken).description.hasSuffix(
                "cannot start multicast DNS: bind an IPv4 socket to UDP port 5353 failed: Address already in use;"
                    + " another program holds UDP port 5353 without SO_REUSEADDR (or with only SO_REUSEPORT, as"
                    + " another user), so Ciao cannot share it: find it with sudo ss -ulpne 'sport = :5353'"))
        let denied = TransportError.system(operation: "bind an IPv4 socket to UDP port 5353", errno: EACCES)
        #expect(!MDNSRuntime.startFailure(denied).description.contains("ss -ulpne"))
    }

    @Test func wellKnownDNSServiceCodes() {
        #expect(CiaoError.dnsService(-65548).description.localizedCaseInsensitiveContains("name conflict"))
        #expect(CiaoError.dnsService(-65548).description.contains("kDNSServiceErr_NameConflict"))
        #expect(CiaoError.dnsService(-65540).description.localizedCaseInsensitiveContains("bad parameter"))
        #expect(CiaoError.dnsService(-65568).description.localizedCaseInsensitiveContains("timeout"))
        #expect(CiaoError.dnsService(-65548).description.contains("-65548"))
        // The other owner may be avahi-daemon on this very host, not another host.
        #expect(CiaoError.dnsService(-65548).description.contains("another responder, on this host or another"))
        #expect(CiaoError.dnsService(12345).description.contains("12345"))
        #expect(CiaoError.Code.nameConflict == -65548)
        #expect(CiaoError.Code.badParam == -65540)
        #expect(CiaoError.Code.timeout == -65568)
        // Every code in the documented range except the unassigned -65546 has a name, and names are distinct.
        let codes = (Int32(-65569)...Int32(-65537)).filter { $0 != -65546 }
        let names = codes.compactMap { CiaoError.Code.name(for: $0)?.constant }
        #expect(names.count == codes.count)
        #expect(Set(names).count == names.count)
        #expect(CiaoError.Code.name(for: -65546) == nil)
        #expect(CiaoError.Code.name(for: 0) == nil)
    }

    @Test func equality() {
        #expect(CiaoError.dnsService(-65548) == .dnsService(CiaoError.Code.nameConflict))
        #expect(CiaoError.dnsService(-65548) != .dnsService(-65540))
        #expect(CiaoError.invalidTXTRecord("a") != .invalidServiceType("a"))
        #expect(CiaoError.timedOut != .stopped)
    }
}
