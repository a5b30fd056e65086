@testable import CiaoUnicastDNS
@testable import CiaoWire
import CiaoTestFixtures
import Foundation
import Testing

/// BIND 9's replies to nsupdate's signed UPDATEs (captured by Scripts/capture-tsig.sh), read as a
/// registration reads the reply to its own update.
@Suite struct UpdateResponseTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("CiaoWireTests/Captures/TSIG")

    static func capture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: captures.appendingPathComponent("\(name).bin")))
    }

    static func key(named name: String = "ciao-test.") throws -> TSIGKey {
        let text = try String(contentsOf: captures.appendingPathComponent("ciao-test.key"), encoding: .utf8)
        let key = try TSIGKey(bindKeyFile: text)
        return try TSIGKey(name: Names.name(name), secret: key.secret)
    }

    /// Reads the reply to the captured request of `name`, with the request's own MAC and ID.
    static func read(_ name: String, key: TSIGKey) throws -> Result<UpdateResponse?, RegistrationError> {
        let request = try capture("\(name)-request")
        let requestRecord = try TSIGRecord(in: request, at: try TSIG.unsignedMessage(request).recordOffset)
        let zone = Names.name("lab.example.")
        let instance = Names.name("ciao.lab.example.")
        let response = try capture("\(name)-response")
        return Result { () throws(RegistrationError) in
            try UpdateResponse.read(
                response, id: UInt16(request[0]) << 8 | UInt16(request[1]), instance: instance, zone: zone, key: key,
                requestMAC: requestRecord.mac, unixTime: requestRecord.timeSigned)
        }
    }

    @Test func aSignedNoErrorReplyIsSuccessWithoutALease() throws {
        #expect(try Self.read("signed", key: Self.key()).get() == UpdateResponse(grantedLease: nil))
    }

    @Test func bindsBadSignatureReplyIsAnAuthenticationError() throws {
        #expect(throws: RegistrationError.authentication(.badSignature)) {
            try Self.read("wrong-secret", key: Self.key()).get()
        }
    }

    @Test func bindsBadKeyReplyIsAnAuthenticationError() throws {
        let unknown = try Self.key(named: "nobody-knows.")
        #expect(throws: RegistrationError.authentication(.badKey(unknown.name))) {
            try Self.read("unknown-key", key: unknown).get()
        }
    }

    @Test func aReplyToAnotherIDIsNotOurs() throws {
        let response = try Self.capture("signed-response")
        let zone = Names.name("lab.example.")
        let other = UInt16(response[0]) << 8 | UInt16(response[1]) ^ 1
        #expect(
            try UpdateResponse.read(
                response, id: other, instance: zone, zone: zone, key: Self.key(), requestMAC: [], unixTime: 0) == nil)
    }
}
