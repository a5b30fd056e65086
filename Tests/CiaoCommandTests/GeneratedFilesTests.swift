import Foundation
import Testing
@testable import ciao

/// The man pages in docs/man and the completion scripts in completions/ are generated from the
/// commands' `CommandSpec`s and `CommandLineTool.usage`; this checks the copies in the
/// repository are current, byte for byte. With `CIAO_REGENERATE=1` it writes them instead
/// (`Scripts/generate-cli-docs.sh`).
@Suite struct GeneratedFilesTests {
    /// The package root, three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let regenerate = ProcessInfo.processInfo.environment["CIAO_REGENERATE"] == "1"

    static let howToRegenerate =
        "run Scripts/generate-cli-docs.sh (CIAO_REGENERATE=1 swift test --filter GeneratedFilesTests)"

    /// Every generated file by its path in the repository.
    static var files: [(path: String, contents: String)] {
        [("docs/man/ciao.1", ManPage.topLevel())]
            + ManPage.commandNames.map { name in
                ("docs/man/" + ManPage.fileName(for: name), ManPage.page(for: CommandLineTool.commands[name]!.spec))
            }
            + [("completions/ciao.bash", ShellCompletion.bash()), ("completions/_ciao", ShellCompletion.zsh())]
    }

    @Test func generatedFilesAreCurrent() throws {
        for (path, contents) in Self.files {
            let url = Self.root.appendingPathComponent(path)
            if Self.regenerate {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: url)
                continue
            }
            let stored = FileManager.default.contents(atPath: url.path)
            #expect(stored != nil, "\(path) is missing: \(Self.howToRegenerate)")
            if let stored {
                #expect(stored == Data(contents.utf8), "\(path) is stale: \(Self.howToRegenerate)")
            }
        }
    }

    /// A page left behind by a command that is gone is stale too (and removed when regenerating).
    @Test func noPageForAMissingCommand() throws {
        let directory = Self.root.appendingPathComponent("docs/man")
        let expected = Set(Self.files.map(\.path))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasSuffix(".1") {
            let path = "docs/man/" + name
            if expected.contains(path) { continue }
            if Self.regenerate {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            } else {
                Issue.record("\(path) belongs to no command: \(Self.howToRegenerate)")
            }
        }
    }

    /// Generating twice gives the same bytes: nothing comes from the clock.
    @Test func generationIsDeterministic() {
        let first = Self.files
        let second = Self.files
        #expect(first.map(\.path) == second.map(\.path))
        #expect(first.map(\.contents) == second.map(\.contents))
    }

    @Test func everyCommandIsInTheTopLevelUsage() {
        let listed = Set(TopLevelUsage.commandLines.map(\.name))
        #expect(Set(CommandLineTool.commands.keys).subtracting(listed).isEmpty)
    }

    @Test func roffEscapes() {
        #expect(Roff.escape("a\\b --all") == "a\\eb \\-\\-all")
        var page = Roff()
        page.text(".starts with a dot\n'and a quote")
        #expect(page.output.hasSuffix("\\&.starts with a dot\n\\&'and a quote\n"))
    }

    @Test func zshEscapes() {
        #expect(ShellCompletion.descriptionEscape("a [b] \\c") == "a \\[b\\] \\\\c")
        #expect(ShellCompletion.messageEscape("fe80::1%eth0") == "fe80\\:\\:1%%eth0")
    }
}

/// The completion scripts parse: `bash -n`, and `zsh -n` where zsh is installed.
@Suite struct CompletionScriptSyntaxTests {
    @Test(arguments: [("/bin/bash", "ciao.bash"), ("/usr/bin/zsh", "_ciao")])
    func scriptParses(shell: String, file: String) throws {
        guard FileManager.default.isExecutableFile(atPath: shell) else { return }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ciao-completion-\(getpid())-\(file)")
        let contents = file == "_ciao" ? ShellCompletion.zsh() : ShellCompletion.bash()
        try Data(contents.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-n", script.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(shell) -n \(file) failed")
    }
}
