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
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        let store = try project.database("user.sqlite")
        try store.write { db in try db.execute(sql: sql) }
        try store.close()
        return project
    }

    @Test(arguments: [
        ["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "build/seed.sqlite"],
    ])
    func aBlobInSeedkitsOwnTablesIsAForeignStore(command: [String]) throws {
        for (sql, names) in Self.corruptions {
            let project = try corruptStore(sql)
            let before = project.sha256("user.sqlite")
            let result = try project.seedkit(command + ["user.sqlite"])
            expectEqual(result.status, 3, "\(sql): \(result)")
            #expect(result.stderr.contains("foreign or corrupt store: \(names) of "), "\(sql): \(result)")
            #expect(!result.stderr.contains("Fatal error"), "\(result)")
            expectEqual(project.sha256("user.sqlite"), before, "\(sql)")
        }
    }

    /// Core Data's bookkeeping is input too: a blob where Core Data writes an entity's number.
    @Test(arguments: [["inspect"], ["inspect", "--format", "json"]])
    func aBlobInCoreDatasPrimaryKeyTableIsAForeignStore(command: [String]) throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/seedkit.yml", "schema: schema.sql\ntables: {}\n")
        let store = try DatabaseQueue(path: project.path("app.sqlite"))
        try store.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, x'00ff', 0, 0);
                    """)
        }
        try store.close()
        let result = try project.seedkit(command + ["app.sqlite", "--manifest", "none"])
        expectEqual(result.status, 3, "\(command): \(result)")
        #expect(
            result.stderr.contains(
                "foreign or corrupt store: Z_PRIMARYKEY.Z_NAME of a row holds a blob (2 bytes), not what Core Data writes there"
            ), "\(command): \(result)")
        #expect(!result.stderr.contains("Fatal error"), "\(result)")
    }
}
