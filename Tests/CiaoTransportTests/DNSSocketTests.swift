import CiaoNetwork
import CiaoWire
import Glibc
import Testing

@testable import CiaoTransport

/// Framing of DNS over TCP, with no socket: runs everywhere.
@Suite struct DNSStreamFramingTests {
    @Test func wholeFramesOnly() {
        #expect(DNSStreamSocket.message(in: []) == nil)
        #expect(DNSStreamSocket.message(in: [0]) == nil)
        #expect(DNSStreamSocket.message(in: [0, 3, 1, 2]) == nil)
        #expect(DNSStreamSocket.message(in: [0, 3, 1, 2, 3, 9]) == [1, 2, 3])
        #expect(DNSStreamSocket.message(in: [0, 0]) == [])
    }
}

/// A plain POSIX socket playing the DNS server on the lab's addresses.
private final class ServerSocket {
    let fd: Int32
    let address: SocketAddress

    init(type: Int32, on address: IPAddress) throws {
        let fd = socket(address.family == .v4 ? AF_INET : AF_INET6, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        try #require(POSIXSocketAddress(address, port: 0).withSockaddr { bind(fd, $0, $1) } == 0)
        if type == Int32(SOCK_STREAM.rawValue) { try #require(listen(fd, 4) == 0) }
        self.fd = fd
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.address = try #require(withUnsafePointer(to: &storage) { SocketAddress($0) })
    }

    deinit { Glibc.close(fd) }
}

extension NamespaceTests {
    @Suite struct DNSSocketTests {
        @Test(arguments: [Lab.a4, Lab.a6])
        func datagramRoundTripFromAFreshPort(address: IPAddress) throws {
            let server = try ServerSocket(type: Int32(SOCK_DGRAM.rawValue), on: address)
            let first = try DNSDatagramSocket(connectingTo: server.address)
            let second = try DNSDatagramSocket(connectingTo: server.address)
            try first.send([1, 2, 3])
            var buffer = [UInt8](repeating: 0, count: 64)
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(server.fd, &buffer, 64, 0, $0, &length)
                }
            }
            #expect(Array(buffer.prefix(count)) == [1, 2, 3])
            let client = try #require(withUnsafePointer(to: &storage) { SocketAddress($0) })
            try second.send([4])
            _ = recv(server.fd, &buffer, 64, 0)
            #expect(try second.receive() == nil)
            _ = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(server.fd, [UInt8]([9, 8]), 2, 0, $0, length)
                }
            }
            var poller = Poller()
            _ = try poller.wait(fileDescriptors: [first.fileDescriptor], timeout: .seconds(1))
            let reply = try #require(try first.receive())
            #expect(reply.bytes == [9, 8] && reply.source == server.address)
            #expect(client.port != 0)
        }

        @Test func unreachablePortShowsAsAnError() throws {
            let closed = try ServerSocket(type: Int32(SOCK_DGRAM.rawValue), on: Lab.a4)
            let target = closed.address
            Glibc.close(closed.fd)
            let socket = try DNSDatagramSocket(connectingTo: target)
            try socket.send([1])
            var poller = Poller()
            _ = try poller.wait(fileDescriptors: [socket.fileDescriptor], timeout: .seconds(1))
            #expect(throws: TransportError.self) { try socket.receive() }
        }

        @Test(arguments: [Lab.a4, Lab.a6])
        func streamQueryAndReplyAreFramed(address: IPAddress) throws {
            let listener = try ServerSocket(type: Int32(SOCK_STREAM.rawValue), on: address)
            let socket = try DNSStreamSocket(connectingTo: listener.address)
            try socket.send([7, 7, 7])
            var poller = Poller()
            while socket.wantsToWrite {
                _ = try poller.wait(fileDescriptors: [], writable: [socket.fileDescriptor], timeout: .seconds(1))
                try socket.writeQueued()
            }
            let connection = accept(listener.fd, nil, nil)
            try #require(connection >= 0)
            defer { Glibc.close(connection) }
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = recv(connection, &buffer, 5, Int32(MSG_WAITALL))
            #expect(Array(buffer.prefix(count)) == [0, 3, 7, 7, 7])
            let reply = [UInt8](repeating: 5, count: 20000)
            _ = send(connection, [UInt8(20000 >> 8), UInt8(20000 & 0xFF)] + reply.prefix(100), 102, 0)
            _ = try poller.wait(fileDescriptors: [socket.fileDescriptor], timeout: .seconds(1))
            #expect(try socket.receive() == nil)
            _ = send(connection, Array(reply.dropFirst(100)), 19900, 0)
            var received: [UInt8]?
            while received == nil {
                _ = try poller.wait(fileDescriptors: [socket.fileDescriptor], timeout: .seconds(1))
                received = try socket.receive()
            }
            #expect(received == reply)
        }

        @Test func closedConnectionBeforeTheReplyIsAnError() throws {
            let listener = try ServerSocket(type: Int32(SOCK_STREAM.rawValue), on: Lab.a4)
            let socket = try DNSStreamSocket(connectingTo: listener.address)
            try socket.send([1])
            let connection = accept(listener.fd, nil, nil)
            _ = send(connection, [UInt8]([0, 9, 1]), 3, 0)
            Glibc.close(connection)
            var poller = Poller()
            #expect(throws: TransportError.self) {
                while true {
                    _ = try poller.wait(fileDescriptors: [socket.fileDescriptor], timeout: .seconds(1))
                    _ = try socket.receive()
                }
            }
        }
    }
}
