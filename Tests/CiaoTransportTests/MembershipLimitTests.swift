import CiaoNetwork
import Foundation
import Glibc
import Testing

@testable import CiaoTransport

extension NamespaceTests {
    /// Past Linux's limit of IPv4 group memberships per socket (net.ipv4.igmp_max_memberships, 20
    /// by default), the lowest-numbered interfaces keep the memberships, whatever order interfaces
    /// come and go in.
    @Suite struct MembershipLimitTests {
        /// 30 interfaces (bridges without ports) beside tra0, which is older and so numbered lower: joined in index
        /// order, tra0 holds one of the 20 memberships; when it leaves (its link went down) one of
        /// the dummies takes the free place, and when tra0 joins again it gets its membership back
        /// from the highest-numbered dummy.
        @Test func aFlapDoesNotLoseTheMembershipOfTheLowestInterface() throws {
            let names = (0..<30).map { "trm\($0)" }
            defer { for name in names { try? Self.ip("link", "delete", name) } }
            for name in names {
                try Self.ip("link", "add", name, "type", "bridge")
                try Self.ip("link", "set", name, "multicast", "on", "up")
            }
            let main = try Lab.interface("tra0")
            let dummies = names.map { InterfaceID(if_nametoindex($0)) }
            #expect(dummies.allSatisfy { $0.index > 0 })
            #expect(dummies.allSatisfy { $0 > main.id })
            let socket = try MulticastSocket(family: .v4)
            var failed: [InterfaceID] = []
            for id in ([main.id] + dummies).sorted() {
                do { _ = try socket.joinMakingRoom(id) } catch { failed.append(id) }
            }
            #expect(socket.joinedInterfaces.contains(main.id))
            let limit = socket.joinedInterfaces.count
            #expect(limit < 31 && !failed.isEmpty, "the kernel's limit should be below 31 memberships")
            #expect(failed.allSatisfy { failure in socket.joinedInterfaces.allSatisfy { $0 < failure } })

            // The flap: tra0 leaves, and a scan joins what it can, a dummy taking the free place.
            try socket.leave(main.id)
            var rejoined: [InterfaceID] = []
            for id in failed {
                do {
                    #expect(try socket.joinMakingRoom(id) == nil)
                    rejoined.append(id)
                } catch { #expect(error.errno == ENOBUFS) }
            }
            #expect(rejoined.count == 1)
            #expect(!socket.joinedInterfaces.contains(main.id))

            // tra0 comes back: it gets a membership, from the highest-numbered dummy holding one.
            let highest = socket.joinedInterfaces.max()!
            let displaced = try socket.joinMakingRoom(main.id)
            #expect(displaced == highest)
            #expect(socket.joinedInterfaces.contains(main.id))
            #expect(socket.joinedInterfaces.count == limit)
            // A dummy numbered above every joined one finds no room and says why.
            #expect(throws: TransportError.self) { try socket.joinMakingRoom(highest) }
        }

        /// Runs `ip ARGUMENTS` (inside the test namespace), failing on a non-zero exit.
        static func ip(_ arguments: String...) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TransportError.system(operation: "ip \(arguments.joined(separator: " "))", errno: EIO)
            }
        }
    }
}
