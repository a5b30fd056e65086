import CiaoUnicastDNS
import Foundation
import Testing

@testable import Ciao

/// ``ResolverConfiguration/system(path:)`` on files of the test's own, never the machine's.
@Suite struct SystemResolverConfigurationTests {
    @Test func aFileIsParsed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("resolv-\(UUID()).conf").path
        try "nameserver 198.18.0.1\nsearch lab.example\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try ResolverConfiguration.system(path: path)
        #expect(configuration.servers.map(\.description) == ["198.18.0.1"])
        #expect(configuration.searchDomains.map(\.description) == ["lab.example."])
    }

    @Test func aMissingFileGivesNoServers() throws {
        let configuration = try ResolverConfiguration.system(path: "/nonexistent-\(UUID())/resolv.conf")
        #expect(configuration.servers.isEmpty)
    }

    @Test func aFileThatCannotBeReadThrows() throws {
        // a directory exists but is no file to read
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("resolv-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try ResolverConfiguration.system(path: path)
        } throws: { error in
            if case CiaoError.invalidConfiguration(let message) = error { message.contains(path) } else { false }
        }
    }
}
