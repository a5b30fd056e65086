import CiaoTestFixtures
import CiaoWire
import Foundation
import Testing

/// SHA-256 and HMAC-SHA256 on the standards' own test vectors.
@Suite struct HashTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func sha256MatchesFIPS180Vectors() {
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var million = SHA256()
        for _ in 0..<1000 { million.update([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) }
        #expect(Self.hex(million.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block is hashed first).
    @Test func hmacSHA256MatchesRFC4231() {
        #expect(
            Self.hex(
                HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            Self.hex(
                HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Self.hex(
                HMACSHA256.authenticationCode(
                    for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                    key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}

/// TSIG (RFC 8945) against BIND 9: nsupdate's signed UPDATE and named's replies, captured by
/// `Scripts/capture-tsig.sh` with the test key in `Captures/TSIG/ciao-test.key`.
@Suite struct TSIGTests {
    static func capture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Captures/TSIG/\(name)", withExtension: "bin"))
        return Array(try Data(contentsOf: url))
    }

    static func key() throws -> TSIGKey {
        let url = try #require(Bundle.module.url(forResource: "Captures/TSIG/ciao-test", withExtension: "key"))
        return try TSIGKey(bindKeyFile: String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    @Test func aBINDKeyFileIsReadAndItsSecretNeverShown() throws {
        let key = try Self.key()
        #expect(key.name == (try DomainName(parsing: "ciao-test.")))
        let secretText = "Y2lhby10c2lnLXRlc3Qtc2VjcmV0LW9mLTMyLWJ5dGVzISE="
        for shown in [
            String(describing: key), String(reflecting: key), "\(key)",
            {
                var s = ""
                dump(key, to: &s)
                return s
            }(),
        ] {
            #expect(!shown.contains(secretText) && !shown.contains("secret") && !shown.contains("ciao-tsig-test"))
        }
        #expect(throws: TSIGError.unsupportedAlgorithm("hmac-md5")) {
            try TSIGKey(bindKeyFile: "key \"k.\" { algorithm hmac-md5; secret \"AAAA\"; };")
        }
        #expect(throws: TSIGError.badKeyFile("the secret is not base64")) {
            try TSIGKey(bindKeyFile: "key \"k.\" { algorithm hmac-sha256; secret \"not base64!\"; };")
        }
        let commented = try TSIGKey(
            bindKeyFile: "# made by hand\nkey k { // inline\n algorithm HMAC-SHA256; /* x */ secret \"YWJj\"; };")
        #expect(commented.name == (try DomainName(parsing: "k.")))
    }

    /// Signing the unsigned part of nsupdate's UPDATE at its time gives its bytes exactly.
    @Test func signingReproducesNsupdatesSignatureByteForByte() throws {
        let request = try Self.capture("signed-request")
        let key = try Self.key()
        let record = try TSIG.verify(request, with: key, requestMAC: nil, at: 0x6b0f_d4b5)
        let unsigned = try #require(
            request.firstRange(of: key.name.wireFormForTest).map { Array(request[..<$0.lowerBound]) })
        var header = unsigned
        header[11] -= 1
        let signed = try TSIG.sign(header, with: key, at: record.timeSigned, fudge: record.fudge)
        #expect(signed.message == request)
        #expect(signed.mac == record.mac)
    }

    @Test func namedsSignedReplyVerifiesWithTheRequestsMAC() throws {
        let key = try Self.key()
        let request = try TSIG.verify(Self.capture("signed-request"), with: key, requestMAC: nil, at: 0x6b0f_d4b5)
        let response = try Self.capture("signed-response")
        let record = try TSIG.verify(response, with: key, requestMAC: request.mac, at: request.timeSigned)
        #expect(record.error == 0)
        #expect(throws: TSIGError.badSignature) {
            try TSIG.verify(response, with: key, requestMAC: nil, at: request.timeSigned)
        }
        #expect(throws: TSIGError.badTime(signed: request.timeSigned, now: request.timeSigned + 301)) {
            try TSIG.verify(response, with: key, requestMAC: request.mac, at: request.timeSigned + 301)
        }
        var tampered = response
        tampered[3] ^= 0x01
        #expect(throws: TSIGError.badSignature) {
            try TSIG.verify(tampered, with: key, requestMAC: request.mac, at: request.timeSigned)
        }
    }

    /// named's answers to a wrong secret (BADSIG) and to a key it does not know (BADKEY), and a
    /// reply without any TSIG record.
    @Test func namedsErrorsBecomeTypedErrors() throws {
        let key = try Self.key()
        let now = try TSIG.verify(Self.capture("signed-request"), with: key, requestMAC: nil, at: 0x6b0f_d4b5)
            .timeSigned
        #expect(throws: TSIGError.badSignature) {
            try TSIG.verify(Self.capture("wrong-secret-response"), with: key, requestMAC: nil, at: now)
        }
        let unknown = try TSIGKey(name: DomainName(parsing: "nobody-knows."), secret: [1, 2, 3])
        #expect(throws: TSIGError.badKey(unknown.name)) {
            try TSIG.verify(Self.capture("unknown-key-response"), with: unknown, requestMAC: nil, at: now)
        }
        #expect(throws: TSIGError.badKey(unknown.name)) {
            try TSIG.verify(Self.capture("unknown-key-response"), with: key, requestMAC: nil, at: now)
        }
        let plain = try Messages.response([]).encoded()
        #expect(throws: TSIGError.unsigned) { try TSIG.verify(plain, with: key, requestMAC: nil, at: now) }
        let request = try Self.capture("signed-request")
        for cut in [1, 10, 40] {
            #expect(throws: TSIGError.self) {
                try TSIG.verify(Array(request.dropLast(cut)), with: key, requestMAC: nil, at: now)
            }
        }
    }
}

extension DomainName {
    /// The uncompressed wire form, to find a TSIG record's start in a capture.
    fileprivate var wireFormForTest: [UInt8] { storage + [0] }
}
