import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

/// The pid of a process that has exited: a temporary file named after it was left by a dead process.
private func deadPID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}

/// Temporary files a killed process left are removed by the next run; an interrupted run leaves none (issue 14).
@Suite struct LeftoverFileTests {
    @Test func aLaterBuildRemovesTheTemporaryFilesOfKilledBuildsOnly() throws {
        let project = try TemporaryProject()
        let dead = try deadPID()
        let live = getpid()  // this test process: a build running elsewhere keeps its file
        try FileManager.default.createDirectory(at: project.url("build"), withIntermediateDirectories: true)
        for name in [
            ".seed.sqlite.seedkit-\(dead).tmp", ".seed.sqlite.seedkit-\(dead).tmp-journal",
            ".seed.sqlite.seedkit-\(live).tmp", ".other.sqlite.seedkit-\(dead).tmp", "notes.tmp",
        ] {
            try project.write("build/\(name)", "partial")
        }
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            project.listing("build"),
            [
                ".other.sqlite.seedkit-\(dead).tmp", ".seed.sqlite.seedkit-\(live).tmp", "notes.tmp", "seed.sqlite",
            ])
    }

    @Test func aLaterMigrateBackupRemovesTheTemporaryFileOfAKilledOne() throws {
        let project = try TemporaryProject.withUserStore()
        let dead = try deadPID()
        try project.write(".copy.sqlite.seedkit-\(dead).tmp", "partial")
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", "copy.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(!project.exists(".copy.sqlite.seedkit-\(dead).tmp"))
        #expect(project.exists("copy.sqlite"))
    }

    @Test(arguments: [["build", "--check"], ["check-upgrade", "old.sqlite"]])
    func anInterruptedBuildInTheTemporaryFolderLeavesNothingThere(arguments: [String]) throws {
        let project = try TemporaryProject()
        _ = try project.seedkit("build")
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("old.sqlite"))
        // Enough rows that the build is still running when the signal comes.
        var books = "title,price,category_id\n"
        for index in 0..<300_000 { books += "Book \(index),\(index % 900),Fiction\n" }
        try project.write("seeds/data/books.csv", books)
        try project.remove("migrations/0001-add-fourth-book.yml")
        let temporary = project.url("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = seedkitBinary
        process.arguments = arguments
        process.currentDirectoryURL = project.root
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let start = Date()
        while process.isRunning && project.listing("tmp").isEmpty && Date().timeIntervalSince(start) < 60 {
            usleep(1_000)
        }
        #expect(!project.listing("tmp").isEmpty, "the build started writing in $TMPDIR")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        expectEqual(project.listing("tmp"), [], "\(arguments) left \(project.listing("tmp"))")
    }

    @Test func aLaterCheckRemovesWhatAKilledCheckLeftInTheTemporaryFolder() throws {
        let project = try TemporaryProject()
        let dead = try deadPID()
        let temporary = project.url("tmp")
        try project.write("tmp/seedkit-check-\(dead).sqlite", "partial")
        try project.write("tmp/seedkit-check-\(dead).sqlite-journal", "partial")
        let result = try runSeedkit(["build", "--check"], in: project.root, environment: ["TMPDIR": temporary.path])
        expectEqual(result.status, 1, "no output yet: stale")
        expectEqual(project.listing("tmp"), [])
    }
}
