import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Runs seedkit as a shell would under `ulimit -f KILOBYTES`: a write past the limit raises
/// SIGXFSZ, whose default action kills the process (exit 153, files left behind).
///
/// The test runner hands its children SIGXFSZ blocked, which hid that: the wrapper restores what a
/// terminal gives (default action, unblocked), sets the limit and execs seedkit.
private func seedkitLimited(
    kilobytes: Int, _ arguments: [String], in project: TemporaryProject, environment: [String: String] = [:]
) throws -> CommandResult {
    let wrapper = """
        import os, resource, signal, sys
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGXFSZ])
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        limit = int(sys.argv[1]) * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        os.execv(sys.argv[2], sys.argv[2:])
        """
    return try run(
        Python3.executable,
        Python3.arguments(["-c", wrapper, "\(kilobytes)", seedkitBinary.path]) + arguments, in: project.root,
        environment: environment)
}

/// A BookStore project whose books fixture makes a seed of about 1.5 MB.
private func projectWithBigSeed() throws -> TemporaryProject {
    let project = try TemporaryProject()
    var books = "title,price,category_id\n"
    for index in 0..<20_000 { books += "Book number \(index) of a long series of books,\(index % 900),Fiction\n" }
    try project.write("seeds/data/books.csv", books)
    return project
}

/// A user store of about 1.5 MB (the user added many books of their own).
private func projectWithBigUserStore() throws -> TemporaryProject {
    let project = try TemporaryProject.withUserStore()
    try project.database("user.sqlite").write { db in
        for index in 0..<10_000 {
            try db.execute(
                sql: "INSERT INTO books (title, price, category_id) VALUES (?, 1, 1)",
                arguments: ["A book the user added, number \(index), with a long title"])
        }
    }
    return project
}

/// A file-size limit (`ulimit -f`) is an I/O failure (exit 4) that says so, never death by
/// SIGXFSZ, and leaves no temporary file behind (issue 22).
@Suite struct FileSizeLimitTests {
    @Test func aBuildPastTheFileSizeLimitIsAnIOErrorAndLeavesNoTemporaryFile() throws {
        let project = try projectWithBigSeed()
        let result = try seedkitLimited(kilobytes: 256, ["build"], in: project)
        expectEqual(result.status, 4, "\(result)")  // was: killed by SIGXFSZ
        #expect(result.stderr.contains("file-size limit"), "\(result)")
        #expect(result.stderr.contains("ulimit -f: 256 KB"), "\(result)")
        #expect(result.stderr.contains("File too large"), "\(result)")
        #expect(result.stderr.contains("nothing was written"), "\(result)")
        expectEqual(project.listing("build"), [], "left \(project.listing("build"))")
        // Without the limit the same build succeeds: the limit was the cause.
        try expectEqual(project.seedkit("build").status, 0)
    }

    @Test func anEarlierOutputStaysWhenABuildHitsTheFileSizeLimit() throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        let before = try #require(project.sha256("build/seed.sqlite"))
        var books = "title,price,category_id\n"
        for index in 0..<20_000 { books += "Book number \(index) of a long series of books,\(index % 900),Fiction\n" }
        try project.write("seeds/data/books.csv", books)
        let result = try seedkitLimited(kilobytes: 256, ["build"], in: project)
        expectEqual(result.status, 4, "\(result)")
        expectEqual(project.sha256("build/seed.sqlite"), before)
        expectEqual(project.listing("build"), ["seed.sqlite"])
    }

    @Test func aBuildCheckPastTheFileSizeLimitLeavesNothingInTheTemporaryFolder() throws {
        let project = try projectWithBigSeed()
        try FileManager.default.createDirectory(at: project.url("tmp"), withIntermediateDirectories: true)
        let result = try seedkitLimited(
            kilobytes: 256, ["build", "--check"], in: project, environment: ["TMPDIR": project.path("tmp")])
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("file-size limit"), "\(result)")
        expectEqual(project.listing("tmp"), [], "left \(project.listing("tmp"))")
    }

    @Test func aBackupPastTheFileSizeLimitIsAnIOErrorAndTheStoreIsNotMigrated() throws {
        let project = try projectWithBigUserStore()
        let before = try #require(project.sha256("user.sqlite"))
        let listing = project.listing(".")
        let result = try seedkitLimited(
            kilobytes: 256, ["migrate", "user.sqlite", "--backup", "copy.sqlite"], in: project)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("cannot write the backup"), "\(result)")
        #expect(result.stderr.contains("file-size limit"), "\(result)")
        #expect(result.stderr.contains("File too large"), "\(result)")
        #expect(result.stderr.contains("the store was not migrated"), "\(result)")
        #expect(!result.stderr.contains("not an error"), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
        expectEqual(project.listing("."), listing, "left \(Set(project.listing(".")).subtracting(listing))")
    }

    @Test func aMigrationThatGrowsTheStorePastTheFileSizeLimitIsRolledBack() throws {
        let project = try TemporaryProject.withUserStore()
        let size = try #require(project.read("user.sqlite")).count
        var rows = "insert:\n  books:\n"
        for index in 0..<3_000 {
            rows +=
                "    - { title: \"\(String(repeating: "long title ", count: 20)) \(index)\", price: 1, category_id: Fiction }\n"
        }
        try project.write("migrations/0002-many.yml", rows)
        let before = try #require(project.sha256("user.sqlite"))
        let listing = project.listing(".")
        let result = try seedkitLimited(kilobytes: max(64, size / 1024 + 16), ["migrate", "user.sqlite"], in: project)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("file-size limit"), "\(result)")
        #expect(result.stderr.contains("nothing was written"), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
        expectEqual(project.listing("."), listing, "left \(Set(project.listing(".")).subtracting(listing))")
    }

    /// new-migration writes a release's files whole or not at all: a migration cut off at the
    /// limit was left in migrations/ (and the next migrate would have read it), beside the
    /// schema step written before it.
    @Test(.tags(.slow)) func aMigrationFilePastTheFileSizeLimitIsNotLeftHalfWritten() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        // Long category names make the migration (which names them) much larger than the seed (which stores ids).
        let category =
            "A very long category name that makes every line of the migration longer than the row it stands for"
        try project.write(
            "seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: ", max_length: 25", with: ""))
        try project.write("seeds/data/categories.csv", "name\n\(category)\n")
        try project.write("seeds/data/books.csv", "title,price,category_id\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write(
            "seeds/schema.sql",
            BookStore.schema.replacingOccurrences(
                of: "category_id INTEGER NOT NULL REFERENCES categories(id)",
                with: "category_id INTEGER NOT NULL REFERENCES categories(id), note TEXT"))
        var books = "title,price,category_id,note\n"
        for index in 0..<3_000 { books += "B\(index),1,\(category),\n" }
        try project.write("seeds/data/books.csv", books)
        try FileManager.default.createDirectory(at: project.url("tmp"), withIntermediateDirectories: true)
        let result = try seedkitLimited(
            kilobytes: 200, ["new-migration", "big", "--from", "seeds/releases/1.0.sqlite"], in: project,
            environment: ["TMPDIR": project.path("tmp")])
        expectEqual(result.status, 4, "\(result)")
        #expect(
            result.stderr.contains(
                "migrations/0002-big.yml: error: cannot write: a file grew past this process's file-size limit (ulimit -f: 200 KB"
            ), "\(result)")
        #expect(result.stderr.contains("the files this run wrote before it were removed"), "\(result)")
        expectEqual(project.listing("migrations"), [], "left \(project.listing("migrations"))")
        expectEqual(project.listing("tmp"), [], "left \(project.listing("tmp"))")
        // Without the limit: both files.
        let whole = try project.seedkit("new-migration", "big", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(whole.status, 0, "\(whole)")
        expectEqual(project.listing("migrations"), ["0001-big-schema.sql", "0002-big.yml"])
    }

    /// export-migrations names the cause (was: "NSCocoaErrorDomain error 512") and leaves no temporary file.
    @Test func anExportPastTheFileSizeLimitNamesTheCauseAndLeavesNothing() throws {
        let project = try TemporaryProject()
        var rows = "insert:\n  books:\n"
        for index in 0..<3_000 {
            rows += "    - { title: \"A book with a long title, number \(index)\", price: 1, category_id: Fiction }\n"
        }
        try project.write("migrations/0002-many.yml", rows)
        let result = try seedkitLimited(kilobytes: 128, ["export-migrations", "app/migrations"], in: project)
        expectEqual(result.status, 4, "\(result)")
        #expect(
            result.stderr.contains(
                "0002-many.json: error: cannot write: a file grew past this process's file-size limit (ulimit -f: 128 KB; File too large, EFBIG): File too large"
            ), "\(result)")
        #expect(
            !project.listing("app/migrations").contains { $0.hasPrefix(".") },
            "left \(project.listing("app/migrations"))")
        #expect(!project.listing("app/migrations").contains("0002-many.json"))
    }
}
