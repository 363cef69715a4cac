import Foundation
import GRDB
import SeedTestSupport
import SeedTooling
import Testing

/// A store someone handed you is read with `trusted_schema` off and bounded work, and `verify`
/// runs SQLite's full integrity check, CHECK constraints included (issue 34).
@Suite struct UntrustedStoreTests {
    /// A BookStore user store whose `books` is a view that recurses forever (the real rows moved aside).
    private func recursingStore() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        let store = try project.database("user.sqlite")
        try store.write { db in
            try db.execute(
                sql: """
                    ALTER TABLE books RENAME TO shelved_books;
                    CREATE VIEW books AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
                        SELECT n AS id, 'book ' || n AS title, -1.0 AS price, 1 AS category_id FROM r;
                    """)
        }
        try store.close()
        return project
    }

    @Test(arguments: [["inspect", "user.sqlite", "books", "--limit", "3"], ["verify", "user.sqlite"]])
    func aViewThatNeverEndsIsStoppedWithAClearError(command: [String]) throws {
        let project = try recursingStore()
        let before = project.sha256("user.sqlite")
        let started = Date()
        let result = try runSeedkit(command, in: project.root, environment: ["SEEDKIT_READ_LIMIT": "2"])
        // The override, not the default (10 s plus 1 s per MB), stopped it: sooner than 10 s,
        // and not before the 2 s it sets.
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 2 && elapsed < 9.5, "stopped by SEEDKIT_READ_LIMIT=2 after \(elapsed) s: \(result)")
        expectEqual(result.status, 3, "\(result)")
        #expect(
            result.stderr.contains(
                "user.sqlite: error: reading the store was stopped: it ran past seedkit's bound on reading a store"),
            "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func theBoundGrowsWithTheStoreAndCanBeSet() throws {
        expectEqual(StoreAccess.readBound(forFileAt: "/no/such/store.sqlite"), 10)
        let project = try TemporaryProject()
        try project.write("big.sqlite", Data(count: 3 << 20))
        expectEqual(StoreAccess.readBound(forFileAt: project.path("big.sqlite")), 13)
    }

    @Test func storesAreReadWithTrustedSchemaOff() throws {
        let project = try TemporaryProject.withUserStore()
        let store = try project.database("user.sqlite")
        try store.write { db in try db.execute(sql: "CREATE VIEW layout AS SELECT name FROM pragma_table_list") }
        try store.close()
        let queue = try StoreAccess.openReadOnly(project.path("user.sqlite"))
        try expectEqual(queue.read { db in try Int.fetchOne(db, sql: "PRAGMA trusted_schema") }, 0)
        try queue.close()
        let writable = try StoreAccess.openWritable(project.path("user.sqlite"), busyTimeout: 1)
        try expectEqual(writable.read { db in try Int.fetchOne(db, sql: "PRAGMA trusted_schema") }, 0)
        try writable.close()
        let result = try project.seedkit("inspect", "user.sqlite", "layout")
        expectEqual(result.status, 3, "\(result)")
        #expect(result.stderr.contains("unsafe use of virtual table \"pragma_table_list\""), "\(result)")
        #expect(result.stderr.contains("trusted_schema off"), "\(result)")
    }

    /// A trigger of the store that reads what SQLite lets only trusted schemas read, fired by a
    /// migration's write (a .sql step or a data migration), makes the store refused, unchanged.
    @Test(arguments: [
        // One line each: the test's log shows its arguments, and a line break there leaked into make test's output.
        ("0002-trig.sql", "INSERT INTO categories (name) VALUES ('Trig');"),
        ("0002-trig.yml", "insert: { categories: [ { name: Trig } ] }"),
    ])
    func anUntrustedTriggerIsNotRunByAMigration(file: String, migration: String) throws {
        let project = try TemporaryProject.withUserStore()
        let store = try project.database("user.sqlite")
        try store.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE spy (n TEXT);
                    CREATE TRIGGER snoop AFTER INSERT ON categories BEGIN INSERT INTO spy SELECT name FROM pragma_table_list; END;
                    """)
        }
        try store.close()
        try project.write("migrations/\(file)", migration)
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 3, "\(result)")
        #expect(
            result.stderr.contains(
                "user.sqlite: error: the store's schema uses what SQLite allows only in stores it trusts (unsafe use of virtual table \"pragma_table_list\")"
            ), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func verifyEvaluatesCheckConstraintsAndSaysWhichCheckItRan() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql",
            BookStore.schema.replacingOccurrences(
                of: "price REAL NOT NULL,", with: "price REAL NOT NULL CHECK (price >= 0),"))
        try expectEqual(project.seedkit("build").status, 0)
        let fine = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(fine.status, 0, "\(fine)")
        expectEqual(
            fine.stdout,
            "build/seed.sqlite: ok (integrity_check with CHECK constraints, foreign keys, rules and checks)\n",
            "\(fine)")
        let store = try project.database("build/seed.sqlite")
        try store.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: "UPDATE books SET price = -5 WHERE title = 'The first book'")
        }
        try store.close()
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 3, "\(result)")
        #expect(
            result.stdout.contains("build/seed.sqlite: integrity: CHECK constraint failed in books [2200]\n"),
            "\(result)")
    }
}
