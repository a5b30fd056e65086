@testable import Ciao
import Foundation
import Testing

/// Registration keys read as `tsig-keygen` writes them, and never shown.
@Suite struct RegistrationKeyTests {
    static let secret = "bGFiLWtleS1mb3ItY2lhby13aWRlLWFyZWEtdGVzdHMh"

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ciao-key-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aTsigKeygenFileIsReadAndItsSecretNeverShown() throws {
        let path = try Self.file(
            "key \"printer-host.\" {\n\talgorithm hmac-sha256;\n\tsecret \"\(Self.secret)\";\n};\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = try RegistrationKey(contentsOfFile: path)
        #expect(key.name == "printer-host.")
        #expect(key == (try RegistrationKey(name: "printer-host.", base64Secret: Self.secret)))
        for shown in [
            key.description, String(reflecting: key), "\(key)",
            String(describing: Mirror(reflecting: key).children.map(\.value)),
        ] {
            #expect(!shown.contains(Self.secret) && !shown.contains("lab-key"), "\(shown)")
        }
    }

    @Test func keysWithAnotherSecretDiffer() throws {
        let other = "b3RoZXItbGFiLWtleS1mb3ItY2lhby13aWRlLWFyZWEh"
        #expect(
            try RegistrationKey(name: "k.", base64Secret: Self.secret)
                != RegistrationKey(name: "k.", base64Secret: other))
    }

    @Test(arguments: [
        ("key \"k.\" { algorithm hmac-md5; secret \"\(secret)\"; };", "hmac-md5"),
        ("key \"k.\" { algorithm hmac-sha256; };", "no secret"),
        ("key \"k.\" { algorithm hmac-sha256; secret \"not base64!\"; };", "not base64"),
        ("options { };", "no `key"),
    ])
    func badKeyFilesSayWhatIsWrong(text: String, reason: String) throws {
        let path = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try RegistrationKey(contentsOfFile: path)
        } throws: { error in
            guard case CiaoError.invalidConfiguration(let message) = error else { return false }
            return message.contains(reason) && message.contains(path)
        }
    }

    @Test func aMissingFileIsAnInvalidConfiguration() {
        #expect(throws: CiaoError.self) { try RegistrationKey(contentsOfFile: "/nonexistent/ciao.key") }
    }

    @Test func publishingInAUnicastDomainNeedsAKey() async throws {
        let fake = FakeBackend()
        let server = CiaoServer(backends: BackendSelection(local: fake))
        let configuration = PublicationConfiguration(
            type: try ServiceType("_http._tcp"), name: "x", domain: "lab.example.", port: 80, mode: .externalPort)
        await #expect {
            try await server.start(configuration)
        } throws: { error in
            guard case CiaoError.invalidConfiguration(let message) = error else { return false }
            return message.contains("key")
        }
        #expect(fake.calls.isEmpty)
    }
}
