import Ciao
import CiaoTestFixtures
import Foundation
import Testing
@testable import ciao

/// Exit statuses of whole command lines that stop before any network use: help, and arguments
/// that fail parsing or validation ahead of `CommonOptions.applyNetworkScope`.
@Suite struct CommandLineToolTests {
    @Test(arguments: [
        ["--help"], ["-h"], ["help"], ["browse", "--help"], ["publish", "-h"], ["decode", "--help"],
        ["resolve-host", "--help"], ["resolve-address", "-h"], ["query", "--help"],
    ])
    func helpSucceeds(_ arguments: [String]) async {
        #expect(await CommandLineTool.run(arguments) == 0)
    }

    @Test(arguments: [
        [],
        ["frobnicate"],
        ["browse"],
        ["browse", "-r"],
        ["browse", "http"],
        ["browse", "--bogus", "_http._tcp"],
        ["browse", "-p", "--json", "_http._tcp"],
        ["browse", "--timeout", "0", "_http._tcp"],
        ["browse", "--domain", "bad..domain", "_http._tcp"],
        ["browse", "--domain", "lab.example", "--server", "not-an-address", "_http._tcp"],
        ["publish"],
        ["publish", "Name", "_http._tcp"],
        ["publish", "Name", "_http._tcp", "0"],
        ["publish", "Name", "_http._tcp", "70000"],
        ["publish", "Name", "_http._tcp", "x"],
        ["publish", "Name", "_http._tcp", "80", #"k=\q"#],
        ["publish", "Name", "http", "80"],
        ["resolve", "Name"],
        ["resolve", "Name", "_http._tcp", "bad..domain"],
        ["resolve", "Name", "_http._tcp", "lab.example", "--server", "198.18.0.53#notaport"],
        ["resolve", "Name", "_http._tcp", "--timeout", "abc"],
        ["resolve", "Name", "_http._tcp", "lab.example", "--server", "nowhere"],
        ["types", "-d", "bad..domain"],
        ["types", "-d", "lab.example", "--server", "198.18.0.1#0"],
        ["resolve", "Name", "_http._tcp", "-p", "--json"],
        ["types", "extra"],
        ["types", "--bogus"],
        ["types", "--parsable", "--json"],
        ["decode", "a", "b"],
        ["decode", "--bogus"],
        ["resolve-host"],
        ["resolve-host", "--timeout", "0", "alpha"],
        ["resolve-host", "-p", "alpha"],
        ["resolve-host", "--server", "not-an-address", "printer.lab.example"],
        ["resolve-address", "--server", "198.18.0.1", "192.0.2.7"],
        ["resolve-address"],
        ["resolve-address", "--timeout", "-1", "192.0.2.7"],
        ["query", "alpha.local"],
        ["query", "alpha.local", "BOGUS"],
        ["query", "alpha.local", "OPT"],
        ["query", "alpha.local", "0"],
        ["query", "alpha.local", "A", "extra"],
        ["query", "-c", "--timeout", "x", "alpha.local", "A"],
        ["query", "--server", "198.18.0.1#notaport", "printer.lab.example", "A"],
    ])
    func badArgumentsExitWithStatus2(_ arguments: [String]) async {
        #expect(await CommandLineTool.run(arguments) == 2)
    }

    @Test func anErrorIsOneLineWhateverAPeerNamed() {
        #expect(
            CommandLineTool.errorLine("could not resolve 'Evil\u{1B}]0;x\u{7}\nok'")
                == "ciao: could not resolve 'Evil\\027]0;x\\007\\010ok'\n")
    }

    /// After `--`, "--help" is a file name: decode should try to read it (and fail, status 1).
    @Test func helpAfterDoubleDashIsAnArgument() async {
        #expect(await CommandLineTool.run(["decode", "--", "--help"]) == 1)
    }
}

@Suite struct DecodeCommandTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CiaoWireTests/Captures")

    static let captureFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: captures.path)) ?? []
        return names.filter { $0.hasSuffix(".bin") }.sorted()
    }()

    /// Writes `bytes` to a new temporary file and returns its path.
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ciao-decode-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return url.path
    }

    static func decode(_ bytes: [UInt8]) throws -> Int32 {
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return DecodeCommand.run([path])
    }

    @Test func capturesAreFound() {
        #expect(Self.captureFiles.count >= 10, "looked in \(Self.captures.path)")
    }

    @Test(arguments: captureFiles)
    func decodesEveryCapture(_ name: String) {
        #expect(DecodeCommand.run([Self.captures.appendingPathComponent(name).path]) == 0)
    }

    @Test func decodesHexText() throws {
        let query = CaptureFileTests.query.map { String(format: "%02x", $0) }.joined()
        #expect(try Self.decode(Array((query + "\n\n" + query + "\n").utf8)) == 0)
    }

    @Test func threeBytesFail() throws {
        #expect(try Self.decode([0x12, 0x34, 0x56]) == 1)
    }

    @Test func compressionPointerLoopFails() throws {
        // The question's name is a pointer to itself (offset 12).
        #expect(try Self.decode(RawPackets.header(counts: [1]) + [0xC0, 0x0C, 0, 1, 0, 1]) == 1)
        // Two pointers that point at each other.
        #expect(
            try Self.decode(RawPackets.header(counts: [1]) + [0x01, 0x61, 0xC0, 0x10, 0xC0, 0x0E, 0, 1, 0, 1]) == 1)
    }

    @Test func extendedLabelTypeFails() throws {
        #expect(try Self.decode(RawPackets.header(counts: [1]) + [0x41, 0x61, 0x00, 0, 1, 0, 1]) == 1)
    }

    @Test func questionCountBeyondTheBodyFails() throws {
        #expect(try Self.decode(RawPackets.header(counts: [0xFFFF]) + [0x01, 0x61, 0x00, 0, 1, 0, 1]) == 1)
    }

    @Test func truncatedCaptureAndMissingFileFail() throws {
        #expect(try Self.decode([0xD4, 0xC3, 0xB2, 0xA1, 2, 0]) == 1)
        #expect(DecodeCommand.run(["/nonexistent/ciao-decode-test.bin"]) == 1)
    }

    /// What the library rejects in the arguments counts as a usage error (exit 2).
    @Test func libraryValidationErrorsAreArgumentErrors() {
        #expect(CommandLineTool.isArgumentError(CiaoError.invalidConfiguration("the instance name is 64 bytes")))
        #expect(CommandLineTool.isArgumentError(CiaoError.invalidServiceType("x")))
        #expect(CommandLineTool.isArgumentError(CiaoError.invalidTXTRecord("x")))
        #expect(!CommandLineTool.isArgumentError(CiaoError.timedOut))
        #expect(!CommandLineTool.isArgumentError(CiaoError.noUsableInterface))
    }

    @Test(arguments: [["--version"], ["-V"]])
    func versionExitsZero(arguments: [String]) async {
        #expect(await CommandLineTool.run(arguments) == 0)
        #expect(CiaoVersion.current.hasPrefix("0.1.0"))
    }
}
