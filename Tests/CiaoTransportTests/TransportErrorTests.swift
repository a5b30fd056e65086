import CiaoNetwork
import Glibc
import Testing

@testable import CiaoTransport

@Suite struct TransportErrorTests {
    @Test func systemErrorNamesTheOperationAndTheCause() {
        let error = TransportError.system(operation: "bind an IPv4 socket to UDP port 5353", errno: EADDRINUSE)
        #expect(error.description == "bind an IPv4 socket to UDP port 5353 failed: Address already in use")
        #expect(error.errno == EADDRINUSE)
    }

    @Test func otherMessages() {
        #expect(
            TransportError.familyMismatch(socket: .v4, destination: .v6).description
                == "cannot send to an IPv6 address on an IPv4 socket")
        #expect(
            TransportError.closed(operation: "receive on the IPv6 mDNS socket").description
                == "receive on the IPv6 mDNS socket failed: the socket is already closed")
        #expect(TransportError.system(operation: "x", errno: 99_999).description.hasPrefix("x failed: "))
    }

    @Test func transientErrorsAreTheNetworkChanging() {
        for errno in [EAGAIN, ENOBUFS, ENETDOWN, ENETUNREACH, EADDRNOTAVAIL, ENODEV, EHOSTUNREACH] {
            #expect(TransportError.system(operation: "send", errno: errno).isTransient, "errno \(errno)")
        }
        for errno in [EINVAL, EBADF, EMSGSIZE, EACCES] {
            #expect(!TransportError.system(operation: "send", errno: errno).isTransient, "errno \(errno)")
        }
        #expect(!TransportError.familyMismatch(socket: .v4, destination: .v6).isTransient)
    }
}
