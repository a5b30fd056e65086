import Foundation
import Synchronization
import Testing
@testable import ciao

#if canImport(Glibc)
import Glibc
#endif

@Suite struct KeyDecoderTests {
    @Test func decodesKeysMouseAndUTF8() {
        var decoder = KeyDecoder()
        let bytes = Array(
            "\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[D\u{1B}[H\u{1B}[4~\u{1B}[5~\u{1B}[6~\u{1B}[Z\r\u{7F}\u{03}q日".utf8)
        #expect(
            decoder.keys(from: bytes) == [
                .up, .down, .right, .left, .home, .end, .pageUp, .pageDown, .backTab, .enter, .backspace,
                .control("c"), .character("q"), .character("日"),
            ])
        #expect(
            decoder.keys(from: Array("\u{1B}[<64;10;5M\u{1B}[<0;3;4m".utf8)) == [
                .mouse(MouseEvent(action: .wheelUp, column: 9, row: 4)),
                .mouse(MouseEvent(action: .release, column: 2, row: 3)),
            ])
    }

    @Test func aLoneEscapeIsEscAndSplitSequencesWait() {
        var decoder = KeyDecoder()
        #expect(decoder.keys(from: [0x1B]) == [.escape])
        #expect(decoder.keys(from: Array("\u{1B}[1".utf8)).isEmpty)
        #expect(decoder.keys(from: Array(";5A".utf8)) == [.up])
        #expect(decoder.keys(from: [0xE6, 0x97]).isEmpty)
        #expect(decoder.keys(from: [0xA5]) == [.character("日")])
    }
}

@Suite struct ScreenTests {
    @Test func clipsWithAnEllipsisAndCountsWideCharacters() {
        var screen = Screen(width: 10, height: 1)
        screen.put("日本語テキスト", row: 0, column: 0)
        // Four wide characters and the ellipsis take 9 columns; a fifth would not leave room for it.
        #expect(screen.line(0) == "日本語テ… ")
        #expect(DisplayWidth.of(screen.line(0)) == 10)
    }

    @Test func rendersOnlyWhatChangedAndNoStyleUnlessAllowed() {
        var before = Screen(width: 20, height: 3)
        before.put("hello", row: 1, column: 2, style: .bold)
        var after = before
        after.put("J", row: 1, column: 3, style: .bold)
        #expect(after.rendering(from: before, styled: false) == "\u{1B}[2;4HJ")
        #expect(after.rendering(from: before, styled: true) == "\u{1B}[2;4H\u{1B}[0;1mJ\u{1B}[0m")
        #expect(!before.rendering(from: nil, styled: false).contains("\u{1B}[0;1m"))
    }
}

/// The terminal settings are restored exactly, on a pseudo-terminal of the test's own.
@Suite struct RawTerminalTests {
    static func settings(_ descriptor: Int32) -> [UInt8] {
        var state = termios()
        tcgetattr(descriptor, &state)
        return withUnsafeBytes(of: &state) { Array($0) }
    }

    @Test func entersRawModeAndRestoresExactly() throws {
        var main: Int32 = -1
        var secondary: Int32 = -1
        #expect(openpty(&main, &secondary, nil, nil, nil) == 0)
        defer {
            close(main)
            close(secondary)
        }
        let before = Self.settings(secondary)
        let terminal = try RawTerminal(descriptor: secondary)
        terminal.enter()
        #expect(Self.settings(secondary) != before)
        terminal.restore()
        terminal.restore()
        #expect(Self.settings(secondary) == before)
        // a pty may hand over what was written in more than one read: read until all of it, or
        // nothing more comes within a second
        let expected = RawTerminal.enterSequence + RawTerminal.leaveSequence
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        var ready = pollfd(fd: main, events: Int16(POLLIN), revents: 0)
        while received.count < expected.utf8.count, poll(&ready, 1, 1000) > 0 {
            let count = read(main, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        #expect(String(decoding: received, as: UTF8.self) == expected)
    }

    @Test func refusesWhatIsNotATerminal() {
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        defer { for end in pipeEnds { close(end) } }
        #expect(throws: TerminalError.notATerminal) { try RawTerminal(descriptor: pipeEnds[1]) }
    }
}

/// Input is read one delivery at a time, so that input without end waits in the kernel.
@Suite struct KeyboardReaderTests {
    private final class Deliveries: Sendable {
        let log = Mutex<(sizes: [Int], closed: Int)>(([], 0))

        /// Waits up to five seconds for `condition`; says whether it came.
        func wait(until condition: ((sizes: [Int], closed: Int)) -> Bool) async -> Bool {
            for _ in 0..<500 {
                if log.withLock({ condition($0) }) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }
    }

    @Test func readsNothingMoreUntilTheLastDeliveryIsDealtWith() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // Three reads' worth, which the pipe holds without blocking the writer.
        let written = [UInt8](repeating: 0x61, count: 3 * 4096)
        #expect(write(ends[1], written, written.count) == written.count)
        let deliveries = Deliveries()
        let reader = KeyboardReader(
            descriptor: ends[0], deliver: { bytes in deliveries.log.withLock { $0.sizes.append(bytes.count) } },
            closed: { deliveries.log.withLock { $0.closed += 1 } })
        #expect(await deliveries.wait { $0.sizes == [4096] })
        // Readable all along, yet nothing more is read.
        try await Task.sleep(for: .milliseconds(300))
        #expect(deliveries.log.withLock { $0.sizes } == [4096])
        reader.resumeReading()
        #expect(await deliveries.wait { $0.sizes == [4096, 4096] })
        reader.resumeReading()
        #expect(await deliveries.wait { $0.sizes == [4096, 4096, 4096] })
        close(ends[1])
        reader.resumeReading()
        #expect(await deliveries.wait { $0.closed == 1 })
        #expect(deliveries.log.withLock { $0.sizes.count } == 3)
    }

    @Test func cancelsWhileWaitingAndLetsGo() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        #expect(write(ends[1], "q", 1) == 1)
        let deliveries = Deliveries()
        weak var released: KeyboardReader?
        do {
            let reader = KeyboardReader(
                descriptor: ends[0], deliver: { bytes in deliveries.log.withLock { $0.sizes.append(bytes.count) } },
                closed: { deliveries.log.withLock { $0.closed += 1 } })
            released = reader
            #expect(await deliveries.wait { $0.sizes == [1] })
            reader.cancel()
            reader.resumeReading()
        }
        #expect(write(ends[1], "q", 1) == 1)
        // The cancelled source lets its handler, and with it the reader, go.
        for _ in 0..<500 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil)
        #expect(deliveries.log.withLock { $0.sizes } == [1])
    }
}
