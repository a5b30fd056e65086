import CiaoWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ciao decode [FILE]`: prints every DNS message in a capture, hex dump or raw file like `dig`.
enum DecodeCommand {
    static let spec = CommandSpec(
        name: "decode",
        summary: "Decodes DNS messages and prints them as dig does.",
        options: [],
        positionals: [
            .init(
                name: "FILE",
                help: "a pcap or pcapng capture (UDP port 5353), hex text (one message per blank-line-separated block) "
                    + "or one raw message; standard input when absent or \"-\"",
                isOptional: true)
        ],
        details: "Exit status: 0 every message decoded; 1 a message or the file could not be decoded; 2 bad arguments.")

    static func run(_ arguments: [String]) -> Int32 {
        let path: String
        do {
            path = try spec.parse(arguments).positional("FILE") ?? "-"
        } catch {
            return CommandLineTool.usageError("\(error)", spec: spec)
        }
        guard let data = readAll(path) else {
            CommandLineTool.printError("cannot read \(path): \(String(cString: strerror(errno)))")
            return 1
        }
        let file: CaptureFile
        do throws(CaptureFile.FormatError) {
            file = try CaptureFile(data)
        } catch {
            CommandLineTool.printError("\(path): \(error)")
            return 1
        }
        var status: Int32 = 0
        for (index, entry) in file.entries.enumerated() {
            if index > 0 { print("") }
            print(";; \(entry.label), \(entry.bytes.count) bytes")
            do throws(DecodingError) {
                print(MessageFormatter.format(try Message.decode(entry.bytes)))
            } catch {
                print(";; error: \(error)")
                status = 1
            }
        }
        if file.entries.isEmpty { print(";; no mDNS messages found") }
        return status
    }

    /// The whole file (or standard input for "-"), or nil with errno set.
    private static func readAll(_ path: String) -> [UInt8]? {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { if path != "-" { close(descriptor) } }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 { return nil }
            if count == 0 { return data }
            data += buffer[..<count]
        }
    }
}
