import Foundation
import SeedTestSupport
import SeedkitCLI
import Testing

/// Every command seedkit has, from its own configuration: a new command is checked without an edit here.
private let commands = SeedTool.commandNames

@Test func rootHelpListsEveryCommandWithItsAbstract() throws {
    let project = try TemporaryProject()
    let help = try project.seedkit("--help")
    expectEqual(help.status, 0)
    #expect(commands.contains("new-migration") && commands.contains("check-upgrade"), "\(commands)")
    for command in commands {
        #expect(help.stdout.contains("\n  \(command) "), "\(command) is listed")
    }
    #expect(help.stdout.contains("Exit codes: 0 success · 1 the input data has errors · 2 usage or configuration"))
}

@Test(arguments: commands)
func everyOptionOfEveryCommandHasHelp(command: String) throws {
    let project = try TemporaryProject()
    let help = try project.seedkit(command, "--help")
    expectEqual(help.status, 0)
    // Each option line is `  --name <value>   Description`, or the description continues on the next, indented line.
    let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let described = try NSRegularExpression(pattern: "^  -\\S.*?\\S {2,}\\S")
    var options = 0
    for (index, line) in lines.enumerated() where line.hasPrefix("  -") {
        options += 1
        let hasText = described.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        let continued =
            index + 1 < lines.count && lines[index + 1].hasPrefix("        ")
            && !lines[index + 1].trimmingCharacters(in: .whitespaces).isEmpty
        #expect(hasText || continued, "\(command): '\(line)' has no help")
    }
    #expect(options > 0)
}

@Test func usageErrorsExit2WithTheUsage() throws {
    let project = try TemporaryProject()
    let result = try project.seedkit("diff", "only-one.sqlite")
    expectEqual(result.status, 2)
    #expect(result.stderr.contains("Missing expected argument '<b>'"))
    #expect(result.stderr.contains("Usage: seedkit diff <a> <b>"))
    let combined = try project.seedkit("migrate", "x.sqlite", "--dry-run", "--backup", "y.sqlite")
    expectEqual(combined.status, 2)
    #expect(combined.stderr.contains("--backup writes a file; it can't be combined with --dry-run"))
}

@Test(arguments: ["bash", "zsh", "fish"])
func completionScriptsAreGenerated(shell: String) throws {
    let project = try TemporaryProject()
    let result = try project.seedkit("--generate-completion-script", shell)
    expectEqual(result.status, 0)
    #expect(result.stdout.contains("seedkit"))
    #expect(result.stdout.contains("export-migrations"))
}

/// Issue 44: `seedkit biuld` said only `Unexpected argument`, and `seedkit help nope` printed the
/// root help with exit 0.
///
/// An unknown command or help topic is a usage error (2) with the nearest command.
@Test func anUnknownCommandOrHelpTopicSaysWhichCommandWasMeant() throws {
    let project = try TemporaryProject()
    let typo = try project.seedkit("biuld")
    expectEqual(typo.status, 2, "\(typo)")
    #expect(typo.stderr.hasPrefix("Error: 'biuld' is not a seedkit command; did you mean 'build'?"), "\(typo)")
    let topic = try project.seedkit("help", "nope")
    expectEqual(topic.status, 2, "\(topic)")
    #expect(topic.stderr.hasPrefix("Error: no help topic 'nope' (the commands: init, build,"), "\(topic)")
    #expect(topic.stdout.isEmpty, "\(topic)")
    let migrate = try project.seedkit("help", "migrate")
    expectEqual(migrate.status, 0, "\(migrate)")
    #expect(migrate.stdout.contains("USAGE: seedkit migrate"), "\(migrate)")
}
