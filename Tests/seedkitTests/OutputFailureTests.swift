import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Runs seedkit through `sh` so that its stdout or stderr can be redirected to `/dev/full` or closed.
private func seedkitRedirected(_ redirection: String, _ arguments: [String], in project: TemporaryProject) throws
    -> CommandResult
{
    try run(
        URL(fileURLWithPath: "/bin/sh"), ["-c", "\"$0\" \"$@\" \(redirection)", seedkitBinary.path] + arguments,
        in: project.root)
}

/// Output that can't be written is an I/O failure (exit 4) with a message, never a silent success (issue 14).
@Suite struct OutputFailureTests {
    static let commands: [[String]] = [
        ["inspect", "user.sqlite", "books"],
        ["inspect", "user.sqlite"],
        ["status", "user.sqlite"],
        ["diff", "build/seed.sqlite", "user.sqlite"],
        ["verify", "user.sqlite"],
        ["build", "--format", "json", "--output", "build/other.sqlite"],
        ["export-migrations", "app/migrations"],
        ["migrate", "user.sqlite", "--dry-run"],
        ["check-upgrade", "user.sqlite"],
        ["--help"],
    ]

    @Test(arguments: commands)
    func aFullStdoutIsAnIOFailure(arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let before = try #require(project.sha256("user.sqlite"))
        let result = try seedkitRedirected("> /dev/full", arguments, in: project)
        expectEqual(result.status, 4, "\(arguments): \(result)")
        #expect(result.stderr.contains("cannot write the output: No space left on device"), "\(arguments): \(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test(arguments: commands)
    func aClosedStdoutIsRefusedBeforeAnythingIsDone(arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let result = try seedkitRedirected(">&-", arguments, in: project)
        expectEqual(result.status, 4, "\(arguments): \(result)")
        #expect(result.stderr.contains("standard output is closed"), "\(arguments): \(result)")
    }

    @Test func aClosedStdoutLeavesTheStoreUnmigrated() throws {
        let project = try TemporaryProject.withUserStore()
        let before = try #require(project.sha256("user.sqlite"))
        let result = try seedkitRedirected(">&-", ["migrate", "user.sqlite"], in: project)
        expectEqual(result.status, 4, "\(result)")
        expectEqual(project.sha256("user.sqlite"), before, "nothing was done: the report could not have been shown")
    }

    @Test func aMigrationWhoseReportCanNotBeWrittenSaysItWasApplied() throws {
        let project = try TemporaryProject.withUserStore()
        let result = try seedkitRedirected("> /dev/full", ["migrate", "user.sqlite"], in: project)
        expectEqual(result.status, 4, "\(result)")
        #expect(
            result.stderr.contains(
                "cannot write the output: No space left on device (user.sqlite: 1 migration applied all the same)"),
            "\(result)")
        try expectEqual(project.database("user.sqlite").read { db in try MigrationLedger.entries(db).count }, 1)
    }

    @Test func aFullOrClosedStderrDoesNotCrash() throws {
        let project = try TemporaryProject.withUserStore()
        for redirection in ["2> /dev/full", "2>&-"] {
            let result = try seedkitRedirected(redirection, ["status", "missing.sqlite"], in: project)
            expectEqual(result.status, 2, "\(redirection): \(result)")
        }
    }
}

/// `--backup` must never name the store itself (issue 14).
@Suite struct MigrateBackupPathTests {
    @Test(arguments: [
        "user.sqlite", "./user.sqlite", "user.sqlite-wal", "user.sqlite-journal", "user.sqlite-shm", "link.sqlite",
        "sub/../user.sqlite",
    ])
    func aBackupOntoTheStoreIsAUsageError(backup: String) throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.createDirectory(at: project.url("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: project.path("link.sqlite"), withDestinationPath: "user.sqlite")
        let before = try #require(project.sha256("user.sqlite"))
        let listing = project.listing(".")
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", backup)
        expectEqual(result.status, 2, "\(backup): \(result)")
        #expect(result.stderr.contains("--backup \(backup) is the store user.sqlite"), "\(backup): \(result)")
        expectEqual(project.sha256("user.sqlite"), before)
        expectEqual(project.listing("."), listing)
    }

    @Test func aBackupThroughASymlinkedFolderOntoTheStoreIsAUsageError() throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.createSymbolicLink(atPath: project.path("here"), withDestinationPath: ".")
        let before = try #require(project.sha256("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", "here/user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }
}
