import Foundation
import GRDB
import SeedTestSupport
import Testing

/// seedkit's own tables in a store someone handed you are input like any other: a blob or a
/// number where seedkit wrote text is a foreign or corrupt store (exit 3), never a crash (issue 34).
@Suite struct ForeignLedgerTests {
    /// Where a blob replaces text, and the message that names it.
    static let corruptions: [(sql: String, names: String)] = [
        ("UPDATE _seedkit_migrations SET checksum = x'00ff'", "_seedkit_migrations.checksum"),
        ("UPDATE _seedkit_meta SET value = x'00ff' WHERE key = 'format_version'", "_seedkit_meta.value"),
        ("UPDATE _seedkit_tables SET key = x'00ff' WHERE name = 'books'", "_seedkit_tables.key"),
        ("UPDATE _seedkit_migrations SET applied_at = x'01'", "_seedkit_migrations.applied_at"),
    ]

    /// A BookStore seed that recorded 0001 as `seed`, copied to `user.sqlite`, with `sql` run on the copy.
    private func corruptStore(_ sql: String) throws -> TemporaryProject {
        let project = try TemporaryProject()
        #expect(try project.seedkit("build").status == 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        let store = try project.database("user.sqlite")
        try store.write { db in try db.execute(sql: sql) }
        try store.close()
        return project
    }

    @Test(arguments: [["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "build/seed.sqlite"]])
    func aBlobInSeedkitsOwnTablesIsAForeignStore(command: [String]) throws {
        for (sql, names) in Self.corruptions {
            let project = try corruptStore(sql)
            let before = project.sha256("user.sqlite")
            let result = try runSeedkit(command + ["user.sqlite"], in: project.root)
            #expect(result.status == 3, "\(sql): \(result)")
            #expect(result.stderr.contains("foreign or corrupt store: \(names) of "), "\(sql): \(result)")
            #expect(!result.stderr.contains("Fatal error"), "\(result)")
            #expect(project.sha256("user.sqlite") == before, "\(sql)")
        }
    }
}
