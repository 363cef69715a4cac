import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 13: rows written with SQLite's C API alone (``SeedMigrator/Options/writesDirectly``)
/// must keep a migration all or nothing, as GRDB's statement execution does.
@Suite struct DirectWriteAtomicityTests {
    private func migration(_ json: String) throws -> Migration {
        try loadMigration(json: json, fileName: "0002-tags.json")
    }

    /// A constraint whose conflict resolution is ROLLBACK (a column's ON CONFLICT ROLLBACK, a
    /// trigger's RAISE(ROLLBACK)) ends the run's transaction: the rows after it must not be
    /// written one by one in autocommit mode, left in the store of a run that failed.
    @Test(
        arguments: [false, true],
        [
            "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note TEXT NOT NULL ON CONFLICT ROLLBACK)",
            """
            CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note TEXT);
            CREATE TRIGGER tags_note BEFORE INSERT ON tags WHEN NEW.note IS NULL BEGIN SELECT RAISE(ROLLBACK, 'a tag needs a note'); END;
            """,
        ])
    func aConstraintThatRollsTheTransactionBackLeavesTheStoreUnchanged(direct: Bool, schema: String) throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: schema) }
        let migration = try migration(
            """
            {"insert": {"tags": [{"name": "a", "note": "x"}, {"name": "b", "note": null}, {"name": "c", "note": "z"}, {"name": "d", "note": "w"}]}}
            """)
        var options = SeedMigrator.Options(tables: [TableSpec(name: "tags", key: ["name"])])
        options.writesDirectly = direct
        #expect(throws: SeedError.self) { try SeedMigrator(migrations: [migration]).migrate(queue, options: options) }
        try expectEqual(queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM tags ORDER BY name") }, [])
    }
}
