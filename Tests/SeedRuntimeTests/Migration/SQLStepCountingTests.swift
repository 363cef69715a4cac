import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// A `.sql` step's rows are counted by SQLite's preupdate hook where SQLite has it, else by triggers.
///
/// The temporary triggers on every table cost 1.65× sqlite3 running the same SQL (issue 45). Each script here runs through both on a real store file, and both must give the
/// same counts, the same deleted rows by key in the same order, and the same refusal: a user's
/// trigger deleting rows, a REPLACE and what it cascades to, `WITHOUT ROWID` tables, a DELETE
/// without WHERE (SQLite's truncate), DROP TABLE with foreign keys, tables a step creates.
@Suite struct SQLStepCountingTests {
    private static let schema = """
        PRAGMA foreign_keys = ON;
        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL);
        CREATE TABLE reviews (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE, text TEXT);
        CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE log (id INTEGER PRIMARY KEY, note TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
        CREATE TABLE codes (id INTEGER PRIMARY KEY, twice AS (id * 2) VIRTUAL, code TEXT NOT NULL UNIQUE, kept AS (id * 3) STORED);
        CREATE TABLE shelf (g AS (1) VIRTUAL, id INTEGER PRIMARY KEY, label TEXT);
        CREATE TABLE bins (a TEXT, g AS (a || 'x') VIRTUAL, k TEXT PRIMARY KEY, b TEXT) WITHOUT ROWID;
        CREATE TRIGGER trim AFTER INSERT ON log BEGIN DELETE FROM log WHERE id < NEW.id - 2; END;
        CREATE TRIGGER used AFTER INSERT ON reviews BEGIN UPDATE tags SET uses = uses + 1 WHERE name = 'reviewed'; END;
        INSERT INTO books (title, price) VALUES ('A', 1), ('B', 2), ('C', 3), ('D', 4), ('E', 5);
        INSERT INTO reviews (book_id, text) VALUES (1, 'good'), (1, 'fine'), (2, 'meh');
        INSERT INTO tags (name) VALUES ('reviewed'), ('old'), ('new');
        INSERT INTO log (note) VALUES ('a'), ('b');
        INSERT INTO notes (text) VALUES ('x'), ('y'), ('z');
        INSERT INTO codes (code) VALUES ('c1'), ('c2'), ('c3');
        INSERT INTO shelf (label) VALUES ('s1'), ('s2');
        INSERT INTO bins (a, k, b) VALUES ('a1', 'k1', 'b1'), ('a2', 'k2', 'b2');
        """

    static let scripts: [String] = [
        // Plain writes, a user's trigger updating another table, an upsert.
        """
        INSERT INTO books (title, price) VALUES ('F', 6);
        UPDATE books SET price = price + 1 WHERE price > 2;
        INSERT INTO reviews (book_id, text) VALUES (3, 'new');
        INSERT INTO books (title, price) VALUES ('A', 9) ON CONFLICT (title) DO UPDATE SET price = excluded.price;
        """,
        // Deletes: a cascade, a WITHOUT ROWID table, a DELETE without WHERE.
        "DELETE FROM books WHERE title IN ('A', 'B');\nDELETE FROM tags WHERE name <> 'new';\nDELETE FROM notes;\n",
        // A user's trigger deleting rows when a row is inserted.
        "INSERT INTO log (note) VALUES ('c'), ('d'), ('e');\n",
        // REPLACE: the row it deletes, and the reviews that cascades to.
        "INSERT OR REPLACE INTO books (id, title, price) VALUES (1, 'A', 11);\n",
        "REPLACE INTO books (title, price) VALUES ('B', 12);\n",
        "REPLACE INTO tags (name, uses) VALUES ('old', 7);\n",
        // A table the step creates, one it alters, one it drops (foreign keys on: a cascade).
        """
        CREATE TABLE shelves (name TEXT PRIMARY KEY, size INTEGER) WITHOUT ROWID;
        INSERT INTO shelves VALUES ('top', 1), ('bottom', 2);
        ALTER TABLE notes ADD COLUMN color TEXT;
        UPDATE notes SET color = 'red';
        DELETE FROM shelves WHERE name = 'top';
        """,
        "DROP TABLE books;\n",
        // A key after a VIRTUAL generated column (SQLite 3.40 leaves it out of the row's values).
        "DELETE FROM codes WHERE id > 1;\n", "REPLACE INTO codes (id, code) VALUES (1, 'c9');\n",
        // SQLite's own tables (ANALYZE writes sqlite_stat1) are not the store's rows.
        "ANALYZE;\nINSERT INTO notes (text) VALUES ('w');\n",
        // A rowid alias after a VIRTUAL generated column; a WITHOUT ROWID key after one.
        "DELETE FROM shelf WHERE id = 2;\n",
        "DELETE FROM bins WHERE k = 'k2';\nREPLACE INTO bins (a, k, b) VALUES ('a9', 'k1', 'b9');\n",
        // A CTE's DELETE, an upsert of a WITHOUT ROWID table, a table created and dropped.
        "WITH cheap AS (SELECT id FROM books WHERE price < 3) DELETE FROM books WHERE id IN cheap;\n",
        "INSERT INTO tags (name) VALUES ('old') ON CONFLICT (name) DO UPDATE SET uses = 5;\n",
        "CREATE TABLE scratch (x INTEGER PRIMARY KEY);\nINSERT INTO scratch VALUES (1), (2);\nDROP TABLE scratch;\n",
        "UPDATE notes SET id = id + 10;\n", "UPDATE OR REPLACE books SET title = 'A' WHERE title = 'B';\n",
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO notes (text) SELECT 'n' || i FROM n;\n",
        "ALTER TABLE notes RENAME TO jottings;\nDELETE FROM jottings WHERE id = 1;\n",
        "REPLACE INTO shelf (id, label) VALUES (1, 'z');\n",
        "INSERT INTO notes (text) VALUES ('q');\nINSERT INTO reviews (book_id, text) VALUES (99, 'x');\n",
    ]

    /// What a counting gives for `sql`: the changes, or the refusal's message.
    private func outcome(_ sql: String, _ counting: SQLScript.Counting, listing: Int?) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-count-\(UUID().uuidString).sqlite"
        )
        .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: Self.schema) }
        return try queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            defer { try? db.execute(sql: "ROLLBACK") }
            do {
                let changes = try SQLScript(sql).run(
                    in: db, file: "0002-step.sql", keys: { ["books": ["title"], "codes": ["code"]][$0] },
                    listing: listing,
                    counting: counting)
                let tables = changes.byTable.sorted { $0.key < $1.key }.map {
                    "\($0.key) +\($0.value.inserted) ~\($0.value.updated) -\($0.value.deleted)"
                }
                let deleted = changes.deletedRows.map { row in
                    row.table + " " + row.key.map { "\($0.column)=\($0.value.sqlLiteral)" }.joined(separator: ",")
                }
                return
                    "\(changes.total): \(tables.joined(separator: "; ")) | \(deleted.joined(separator: "; ")) | \(changes.unlistedDeletes) more"
            } catch let error as SeedError {
                return "refused: \(error)"
            }
        }
    }

    @Test(arguments: scripts, [nil, 1])
    func theHookCountsWhatTheTriggersCount(sql: String, listing: Int?) throws {
        try #require(ChangeAccounting.isAvailable, "this platform's SQLite has no preupdate hook")
        let hook = try outcome(sql, .hook, listing: listing)
        let triggers = try outcome(sql, .triggers, listing: listing)
        expectEqual(hook, triggers, "\(sql)")
        #expect(hook.hasPrefix("refused: ") || !hook.hasPrefix("0:"), "\(hook)")
    }

    /// A full-text table's rows are written by FTS5 into its shadow tables: SQLite 3.40 crashes
    /// (a bad pointer in libsqlite3) when those tables carry temporary triggers, which is what a
    /// `.sql` step on such a store did before it was counted through the hook.
    @Test func aStepOnAStoreWithAFullTextTableIsCounted() throws {
        try #require(ChangeAccounting.isAvailable, "this platform's SQLite has no preupdate hook")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-fts-\(UUID().uuidString).sqlite"
        )
        .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE search USING fts5(body); INSERT INTO search (body) VALUES ('first note');")
        }
        let changes = try queue.write { db in
            try SQLScript("INSERT INTO search (body) VALUES ('second note');\n").run(in: db, file: "0002-step.sql")
        }
        #expect(changes.byTable["search_content"]?.inserted == 1, "\(changes.byTable)")
        #expect(changes.deletedRows.isEmpty, "\(changes.deletedRows)")
        let rows = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM search WHERE search MATCH 'note'")
        }
        expectEqual(rows, 2)
    }

    /// The counts themselves, for the scripts whose result a reader can check by hand.
    @Test func theCountsAreSQLitesRows() throws {
        try #require(ChangeAccounting.isAvailable, "this platform's SQLite has no preupdate hook")
        expectEqual(
            try outcome(Self.scripts[1], .hook, listing: nil),
            "10: books +0 ~0 -2; notes +0 ~0 -3; reviews +0 ~0 -3; tags +0 ~0 -2 | reviews id=1; reviews id=2; books title='A'; reviews id=3; books title='B'; tags name='old'; tags name='reviewed'; notes id=1; notes id=2; notes id=3 | 0 more"
        )
        let trimmed = try outcome(Self.scripts[2], .hook, listing: nil)
        #expect(trimmed.hasPrefix("refused: "), "\(trimmed)")
        #expect(trimmed.contains("this INSERT deleted 2 rows the store held (log 1; log 2)"), "\(trimmed)")
        let replaced = try outcome(Self.scripts[3], .hook, listing: nil)
        #expect(
            replaced.contains("this INSERT deleted 3 rows the store held (reviews 1; reviews 2; books 'A')"),
            "\(replaced)")
        expectEqual(
            try outcome(Self.scripts[8], .hook, listing: nil),
            "2: codes +0 ~0 -2 | codes code='c2'; codes code='c3' | 0 more")
        let codes = try outcome(Self.scripts[9], .hook, listing: nil)
        #expect(codes.contains("this REPLACE deleted 1 row the store held (codes 'c1')"), "\(codes)")
        #expect(SQLScript.Counting.best == .hook)
    }
}
