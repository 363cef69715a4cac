import Foundation
import SeedTestSupport
import SeedkitCLI
import Testing

/// Issue 43: a store named `--help` was committed because `make-store.py --help` took its first
/// argument as the output's name.
///
/// The repository holds only what README.md's layout explains, and the scripts that write a file
/// never take an option for its name.
@Suite struct RepositoryLayoutTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The tracked files, as `git ls-files` lists them.
    static func trackedFiles() throws -> [String] {
        let result = try run(URL(fileURLWithPath: "/usr/bin/env"), ["git", "ls-files"], in: root)
        try #require(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func noTrackedPathStartsWithADashAndEveryFolderIsInTheLayout() throws {
        let files = try Self.trackedFiles()
        #expect(files.count > 100, "\(files.count) files")
        let dashed = files.filter { $0.split(separator: "/").contains { $0.hasPrefix("-") } }
        expectEqual(dashed, [], "a file named like an option was committed")
        // README.md's layout: the code block whose lines start with the folders (`Sources/SeedRuntime/   …`).
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(
            readme.components(separatedBy: "```").first { $0.contains("\nSources/SeedRuntime/ ") })
        let explained = block.split(separator: "\n").filter { !$0.hasPrefix(" ") }.flatMap { line in
            (line.components(separatedBy: "  ").first ?? "").components(separatedBy: ", ")
        }
        let folders = Set(
            files.compactMap { $0.split(separator: "/", maxSplits: 1).count > 1 ? $0.split(separator: "/")[0] : nil })
        for folder in folders.sorted() {
            #expect(
                explained.contains { $0.hasPrefix(folder + "/") },
                "\(folder)/ is not in README.md's layout: \(explained)")
        }
    }

    /// Commands only configure (issue 43): a command's file holds no `SeedError(` and no `print(`.
    ///
    /// Each command's file turns options into a library call and renders the report it gets; why something fails (a `SeedError`) and what is printed
    /// (`print`) belong to SeedTooling's functions and reports, where they are tested without the
    /// CLI. The commands come from seedkit's own configuration, so a new command is checked
    /// without an edit here.
    @Test func noCommandBuildsAnErrorOrPrints() throws {
        let folder = Self.root.appendingPathComponent("Sources/SeedkitCLI/Commands")
        var files: [String] = []
        for command in SeedTool.commandTypeNames {
            let name = command + ".swift"
            files.append(name)
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for forbidden in ["SeedError(", "print("] {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.element.contains(forbidden) }.map { "\(name):\($0.offset + 1)" }
                expectEqual(lines, [], "\(forbidden) in a command: move it into the library function that knows why")
            }
        }
        // Every file in Commands/ is a command's (support code lives in Options/).
        let present = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        expectEqual(Set(present), Set(files))
    }

    /// Every script that writes a file named on its command line: Examples' generators and scripts/make-*.
    @Test func scriptsThatWriteAFileRefuseANameThatStartsWithADash() throws {
        let scripts = try Self.trackedFiles().filter {
            ($0.hasPrefix("Examples/") && $0.hasSuffix(".py")) || ($0.hasPrefix("scripts/make-") && $0.hasSuffix(".py"))
        }
        #expect(scripts.count >= 2, "\(scripts)")
        let project = try TemporaryProject(bookStore: false)
        let before = project.listing(".")
        for script in scripts {
            for name in ["--help", "-x.sqlite"] {
                let result = try run(
                    Python3.executable,
                    Python3.arguments([Self.root.appendingPathComponent(script).path, name]),
                    in: project.root)
                #expect(result.status != 0, "\(script) \(name): \(result)")
                #expect(result.stderr.contains("usage:"), "\(script) \(name): \(result)")
                expectEqual(project.listing("."), before, "\(script) \(name) wrote a file")
            }
        }
    }
}
