import Foundation
import SeedTestSupport
import Testing

/// A folder or an empty file named as a store gets a message that says what it is (issue 14).
@Suite struct StoreFileKindTests {
    @Test(arguments: [
        ["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "build/seed.sqlite"],
    ])
    func aFolderIsNamedAsAFolder(command: [String]) throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.createDirectory(at: project.url("stores"), withIntermediateDirectories: true)
        let result = try runSeedkit(command + ["stores"], in: project.root)
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr, "stores: error: this is a folder, not a store: name the store file in it [2100]\n",
            "\(result)")
    }

    @Test(arguments: [
        ["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "build/seed.sqlite"],
    ])
    func anEmptyFileIsRefusedAndStaysEmpty(command: [String]) throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        try project.write("empty.sqlite", "")
        let result = try runSeedkit(command + ["empty.sqlite"], in: project.root)
        expectEqual(result.status, 3, "\(result)")
        expectEqual(
            result.stderr,
            "empty.sqlite: error: the file is empty (0 bytes), not a store: a store written by an app or by `seedkit build` has at least SQLite's header [2200]\n",
            "\(result)")
        expectEqual(project.read("empty.sqlite"), Data())
    }
}

@Test func aWhereWithASecondStatementSaysSoWithoutGRDBsAdvice() throws {
    let project = try TemporaryProject()
    try expectEqual(project.seedkit("build").status, 0)
    let before = project.sha256("build/seed.sqlite")
    let result = try project.seedkit("inspect", "build/seed.sqlite", "books", "--where", "1; DELETE FROM books")
    expectEqual(result.status, 2, "\(result)")
    expectEqual(
        result.stderr,
        "build/seed.sqlite: error: the query failed: --where takes one SQL expression, and this one ends a statement and starts another (a ';') (--where 1; DELETE FROM books) [2100]\n",
        "\(result)")
    #expect(!result.stderr.contains("Database.execute"))
    expectEqual(project.sha256("build/seed.sqlite"), before)
}

/// `inspect` prints rows as it reads them: a row SQLite fails on part way ends the output after
/// the rows before it, with the error on stderr and exit 2 (docs/reference.md, "Reading stores someone handed you").
@Test func aWhereThatFailsPartWayPrintsTheRowsBeforeAndExitsTwo() throws {
    let project = try TemporaryProject()
    try expectEqual(project.seedkit("build").status, 0)
    let result = try project.seedkit(
        "inspect", "build/seed.sqlite", "books", "--columns", "title", "--format", "csv", "--where",
        "CASE WHEN id = 2 THEN json_extract(title, '$') ELSE 1 END")
    expectEqual(result.status, 2, "\(result)")
    expectEqual(result.stdout, "title\r\nThe first book\r\n", "\(result)")
    expectEqual(
        result.stderr,
        "build/seed.sqlite: error: the query failed: malformed JSON (--where CASE WHEN id = 2 THEN json_extract(title, '$') ELSE 1 END) [2100]\n",
        "\(result)")
}
