import CiaoEngine
import CiaoWire
import Foundation
import Testing

@testable import Ciao

@Suite("TXTRecord")
struct TXTRecordTests {
    /// Builds wire data from raw strings, each prefixed with its length.
    func wire(_ strings: [[UInt8]]) -> Data {
        var data = Data()
        for string in strings {
            data.append(UInt8(string.count))
            data.append(contentsOf: string)
        }
        return data
    }

    func wire(_ strings: String...) -> Data { wire(strings.map { Array($0.utf8) }) }

    func txtMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let CiaoError.invalidTXTRecord(message) {
            return message
        } catch {
            return "unexpected \(error)"
        }
    }

    /// TXT RDATA from the engine reads as wire data does, and a record goes back to the same RDATA.
    @Test func txtDataConvertsBothWaysAsWireDataDoes() throws {
        let strings: [[UInt8]] = [Array("path=/a".utf8), [], Array("=x".utf8), Array("Flag".utf8), [0xFF, 0x3D]]
        let rdata = try TXTData(strings: strings)
        let fromRDATA = TXTRecord(rdata)
        #expect(fromRDATA == (try TXTRecord(wireData: wire(strings))))
        #expect(fromRDATA.entries.map(\.key) == ["path", "Flag"])
        #expect(fromRDATA.txtData == rdata)
        #expect(TXTRecord.empty.txtData.wireBytes == [0])
        #expect(TXTRecord(try TXTData(wireBytes: [])) == .empty)
    }

    @Test func flagEmptyValueAndAbsentAreDistinct() throws {
        let record = try TXTRecord(["flag": .flag, "empty": .bytes(Data()), "k": .bytes(Data("v".utf8))])
        #expect(record["flag"] == .flag)
        #expect(record["empty"] == .bytes(Data()))
        #expect(record["absent"] == nil)
        #expect(record[text: "flag"] == nil)
        #expect(record[text: "empty"] == "")
        #expect(record[text: "absent"] == nil)
        #expect(record[text: "k"] == "v")
        #expect(record.wireData == wire("empty=", "flag", "k=v"))

        let parsed = try TXTRecord(wireData: record.wireData)
        #expect(parsed == record)
        #expect(parsed["flag"] == .flag)
        #expect(parsed["empty"] == .bytes(Data()))
        #expect(parsed["absent"] == nil)
        #expect(try TXTRecord(["a": .flag]) != TXTRecord(["a": .bytes(Data())]))
        #expect(try TXTRecord(["a": .bytes(Data())]) != TXTRecord.empty)
    }

    @Test func binaryValuesRoundTrip() throws {
        let binary = Data([0x00, 0xFF, 0x3D, 0x00, 0x80, 0x0A])
        let record = try TXTRecord(["bin": .bytes(binary), "z": .bytes(Data([0xFF]))])
        let data = record.wireData
        #expect(data == Data([10]) + Data("bin=".utf8) + binary + Data([3]) + Data("z=".utf8) + Data([0xFF]))
        let parsed = try TXTRecord(wireData: data)
        #expect(parsed == record)
        #expect(parsed["bin"] == .bytes(binary))
        #expect(parsed[text: "bin"] == nil)  // invalid UTF-8
        #expect(parsed[text: "z"] == nil)
    }

    @Test func valueMayContainEqualsSign() throws {
        let parsed = try TXTRecord(wireData: wire("a==b=", "path=/x?y=1"))
        #expect(parsed["a"] == .bytes(Data("=b=".utf8)))
        #expect(parsed[text: "path"] == "/x?y=1")
    }

    @Test func firstOccurrenceWins() throws {
        let parsed = try TXTRecord(wireData: wire("k=first", "k=second", "k", "Flag", "flag=x", "V=1", "v=2", "v"))
        #expect(parsed[text: "k"] == "first")
        #expect(parsed["flag"] == .flag)
        #expect(parsed[text: "v"] == "1")
        #expect(parsed.values.keys.sorted() == ["flag", "k", "v"])
        #expect(parsed.values.count == 3)
    }

    @Test func keysAreCaseInsensitiveAndStoredLowercase() throws {
        let record = try TXTRecord(strings: ["TxtVers": "1", "Path": "/"])
        #expect(record.values.keys.sorted() == ["path", "txtvers"])
        #expect(record[text: "TXTVERS"] == "1")
        #expect(record[text: "txtvers"] == "1")
        #expect(record["PATH"] == .bytes(Data("/".utf8)))
        #expect(record.wireData == wire("txtvers=1", "path=/"))
        let parsed = try TXTRecord(wireData: wire("MiXeD=1"))
        #expect(parsed.values.keys.first == "mixed")
        #expect(parsed.entries == [.init(key: "MiXeD", value: .bytes(Data("1".utf8)))])
        #expect(parsed[text: "mixed"] == "1")
        // Equal only when the wire bytes are: the peer's spelling is kept.
        #expect(parsed != (try TXTRecord(strings: ["mixed": "1"])))
    }

    @Test func caseDuplicateKeysRejected() {
        let message = txtMessage { _ = try TXTRecord(["A": .flag, "a": .bytes(Data())]) }
        #expect(message != nil)
        #expect(message?.contains("\"A\"") == true)
        #expect(message?.contains("\"a\"") == true)
        #expect(throws: CiaoError.self) { try TXTRecord(strings: ["Key": "1", "KEY": "2"]) }
    }

    @Test func entryLimitIs255Bytes() throws {
        // "k=" + 253 bytes = 255: allowed.
        let ok = try TXTRecord(["k": .bytes(Data(repeating: 0x41, count: 253))])
        #expect(ok.wireData.count == 256)
        #expect(ok.wireData.first == 255)
        #expect(try TXTRecord(wireData: ok.wireData) == ok)
        // 256 bytes: rejected.
        let message = txtMessage { _ = try TXTRecord(["k": .bytes(Data(repeating: 0x41, count: 254))]) }
        #expect(message?.contains("\"k\"") == true)
        #expect(message?.contains("255") == true)
        // A flag key alone: 255 ok, 256 rejected.
        #expect(throws: Never.self) { try TXTRecord([String(repeating: "f", count: 255): .flag]) }
        #expect(throws: CiaoError.self) { try TXTRecord([String(repeating: "f", count: 256): .flag]) }
        // Multi-byte UTF-8 counts bytes, not characters: 127 × "é" = 254 bytes + "k=" = 256.
        #expect(throws: CiaoError.self) { try TXTRecord(strings: ["k": String(repeating: "é", count: 127)]) }
        #expect(throws: Never.self) { try TXTRecord(strings: ["k": String(repeating: "é", count: 126) + "x"]) }
    }

    @Test func totalSizeLimit() throws {
        // 35 entries of 255 bytes = 35 × 256 = 8960 wire bytes: over 8900.
        var big: [String: TXTRecord.Value] = [:]
        for i in 0..<35 { big[String(format: "k%02d", i)] = .bytes(Data(repeating: 0x61, count: 251)) }
        let message = txtMessage { _ = try TXTRecord(big) }
        #expect(message?.contains("8960") == true)
        // 34 entries = 8704 bytes: allowed.
        big.removeValue(forKey: "k00")
        let record = try TXTRecord(big)
        #expect(record.wireData.count == 34 * 256)
        #expect(try TXTRecord(wireData: record.wireData) == record)
    }

    @Test func emptyRecordIsOneZeroByte() throws {
        #expect(TXTRecord.empty.wireData == Data([0]))
        #expect(TXTRecord.empty.values.isEmpty)
        #expect(try TXTRecord([:]) == .empty)
        #expect(try TXTRecord(strings: [:]).wireData == Data([0]))
        #expect(try TXTRecord(wireData: Data([0])) == .empty)
        #expect(try TXTRecord(wireData: Data()) == .empty)
        // Three empty strings: no entries, but other bytes than the empty record's.
        let empties = try TXTRecord(wireData: Data([0, 0, 0]))
        #expect(empties.entries.isEmpty && empties.values.isEmpty && empties != .empty)
    }

    @Test func emptyStringsAndEmptyKeysAreSkipped() throws {
        let parsed = try TXTRecord(wireData: wire("", "=value", "a=1", "", "=", "b"))
        #expect(parsed.entries == [.init(key: "a", value: .bytes(Data("1".utf8))), .init(key: "b", value: .flag)])
        #expect(parsed.values == (try TXTRecord(["a": .bytes(Data("1".utf8)), "b": .flag])).values)
    }

    @Test func invalidKeysOnTheWireAreSkipped() throws {
        let parsed = try TXTRecord(
            wireData: wire([Array("ok=1".utf8), [0x01, 0x3D, 0x31], [0xC3, 0xA9], Array("x".utf8)]))
        #expect(parsed.values.keys.sorted() == ["ok", "x"])
    }

    @Test(arguments: [
        Data([5, 0x61]),  // claims 5, has 1
        Data([1, 0x61, 2, 0x62]),  // second string overruns by one
        Data([0xFF]),
        Data([3, 0x61, 0x62]),
    ])
    func overrunningLengthThrows(data: Data) {
        #expect(throws: CiaoError.self) { try TXTRecord(wireData: data) }
    }

    @Test(arguments: ["", "a=b", "=", "tab\tkey", "nul\u{0}", "del\u{7F}", "é", "newline\n", "emoji😀"])
    func invalidKeysRejected(key: String) {
        let message = txtMessage { _ = try TXTRecord([key: .flag]) }
        #expect(message != nil, "key \(key.debugDescription) should be rejected")
        #expect(throws: CiaoError.self) { try TXTRecord(strings: [key: "v"]) }
        if !key.isEmpty, key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            #expect(message?.contains(key) == true, "message should name the key: \(message ?? "")")
        }
    }

    @Test func printableKeysAccepted() throws {
        let record = try TXTRecord([" ": .flag, "~!@#$%^&*()": .flag, "a b": .bytes(Data("c d".utf8))])
        #expect(try TXTRecord(wireData: record.wireData) == record)
    }

    @Test func subscriptText() throws {
        let record = try TXTRecord([
            "s": .bytes(Data("héllo ✓".utf8)), "f": .flag, "e": .bytes(Data()), "bad": .bytes(Data([0xC3])),
        ])
        #expect(record[text: "s"] == "héllo ✓")
        #expect(record[text: "S"] == "héllo ✓")
        #expect(record[text: "f"] == nil)
        #expect(record[text: "e"] == "")
        #expect(record[text: "bad"] == nil)
        #expect(record[text: "missing"] == nil)
        #expect(try TXTRecord(strings: ["u": "ünïcödé"])[text: "U"] == "ünïcödé")
    }

    /// The dictionary initializers keep Ciao 4's order: lowercased keys, `txtvers` first (RFC
    /// 6763 §6.7), the others in byte order.
    @Test func dictionaryOrderIsTxtversFirstThenSorted() throws {
        let record = try TXTRecord(strings: ["b": "2", "a": "1", "C": "3", "_": "u", "A0": "x", "TxtVers": "1"])
        #expect(record.wireData == wire("txtvers=1", "_=u", "a=1", "a0=x", "b=2", "c=3"))
    }

    /// Records read from the wire, or built in order, keep their strings' order and each key's
    /// spelling: `txtvers=1 z=1 a=2 M=3` goes out as written (RFC 6763 §6.7).
    @Test func orderedRecordsKeepOrderAndSpelling() throws {
        let record = try TXTRecord(orderedStrings: ["txtvers": "1", "z": "1", "a": "2", "M": "3"])
        #expect(record.wireData == wire("txtvers=1", "z=1", "a=2", "M=3"))
        #expect(record.entries.map(\.key) == ["txtvers", "z", "a", "M"])
        #expect(record.values.keys.sorted() == ["a", "m", "txtvers", "z"])
        #expect(record[text: "m"] == "3" && record[text: "M"] == "3")
        #expect(record.description == "txtvers=1 z=1 a=2 M=3")
        let parsed = try TXTRecord(wireData: wire("c=3", "b=2", "GameName=Chess", "gamename=ignored"))
        #expect(parsed.wireData == wire("c=3", "b=2", "GameName=Chess", "gamename=ignored"))
        #expect(parsed.entries.map(\.key) == ["c", "b", "GameName", "gamename"])
        #expect(parsed.values["gamename"] == .bytes(Data("Chess".utf8)))
        #expect(parsed[text: "GAMENAME"] == "Chess")
        let entries = [TXTRecord.Entry(key: "Flag", value: .flag), .init(key: "Empty", value: .bytes(Data()))]
        #expect(try TXTRecord(entries: entries).wireData == wire("Flag", "Empty="))
        #expect(throws: CiaoError.self) { try TXTRecord(orderedStrings: ["Key": "1", "kEY": "2"]) }
        #expect(throws: CiaoError.self) { try TXTRecord(orderedStrings: ["a=b": "1"]) }
    }

    @Test func description() throws {
        let record = try TXTRecord([
            "k": .bytes(Data("v".utf8)), "flag": .flag, "empty": .bytes(Data()), "bin": .bytes(Data([0x00, 0xFF])),
            "slash": .bytes(Data("a\\b".utf8)),
        ])
        #expect(record.description == #"bin=\x00\xff empty= flag k=v slash=a\\b"#)
        #expect(TXTRecord.empty.description == "")
    }

    @Test func hashableMatchesEquality() throws {
        let a = try TXTRecord(strings: ["A": "1", "b": "2"])
        let b = try TXTRecord(wireData: wire("a=1", "b=2"))
        #expect(a == b)
        #expect(Set([a, b, .empty]).count == 2)
        let reordered = try TXTRecord(wireData: wire("b=2", "a=1"))
        #expect(reordered != a && Set([a, reordered]).count == 2)
    }

    @Test func randomRecordsRoundTrip() throws {
        var rng = SplitMix64(seed: 0xC1A0_2024)
        let keyAlphabet = (UInt8(0x20)...UInt8(0x7E)).filter { $0 != UInt8(ascii: "=") }
        var checked = 0
        var sawFlag = false, sawEmpty = false, sawMax = false
        while checked < 1_000 {
            var values: [String: TXTRecord.Value] = [:]
            var lowered: Set<String> = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                let keyLength = Int.random(in: 1...(Bool.random(using: &rng) ? 9 : 40), using: &rng)
                let key = String(
                    decoding: (0..<keyLength).map { _ in keyAlphabet.randomElement(using: &rng)! }, as: UTF8.self)
                guard lowered.insert(key.lowercased()).inserted else { continue }
                switch Int.random(in: 0..<10, using: &rng) {
                case 0, 1:
                    values[key] = .flag
                    sawFlag = true
                case 2:
                    values[key] = .bytes(Data())
                    sawEmpty = true
                case 3:
                    let count = TXTRecord.maximumEntrySize - keyLength - 1
                    values[key] = .bytes(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }))
                    sawMax = true
                default:
                    let count = Int.random(in: 1...60, using: &rng)
                    values[key] = .bytes(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }))
                }
            }
            let record = try TXTRecord(values)
            let data = record.wireData
            let parsed = try TXTRecord(wireData: data)
            #expect(parsed == record, "seeded case \(checked): \(record)")
            #expect(parsed.wireData == data)
            #expect(record.values.count == values.count)
            #expect(
                data.count
                    == (values.isEmpty
                        ? 1
                        : values.reduce(0) { total, entry in
                            switch entry.value {
                            case .flag: total + 1 + entry.key.utf8.count
                            case .bytes(let bytes): total + 2 + entry.key.utf8.count + bytes.count
                            }
                        }))
            checked += 1
        }
        #expect(sawFlag && sawEmpty && sawMax)
    }
}
