import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 23: a migration's cost follows its rows. `PRAGMA foreign_key_check` reads every row of
// every table with a foreign key, so a run reads foreign keys only when SQLite counts one its
// own statements left unresolved, or when `storeCheck` is `.whole`
// (MigrationRun.foreignKeysNeedChecking).

/// The SQL statements a connection ran, collected from GRDB's trace (on the run's thread).
private final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []
    func add(_ statement: String) { lock.withLock { statements.append(statement) } }
    var all: [String] { lock.withLock { statements } }
}

@Suite struct ForeignKeyCheckTests {
    private let specs = [
        TableSpec(name: "categories", key: ["name"]), TableSpec(name: "books", key: ["title"]),
        TableSpec(name: "notes", key: ["text"]),
    ]

    /// books → categories (immediate) and notes → books (deferred), one row each; padded past
    /// 16 MB by a table of the user's when `large`; with a note whose book is gone when `orphan`
    /// (written with foreign keys off, as an app may have done).
    private func store(large: Bool, orphan: Bool = false) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-fk-\(UUID().uuidString).sqlite"
        ).path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, category_id INTEGER REFERENCES categories(id));
                    CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE,
                                        book_id INTEGER REFERENCES books(id) DEFERRABLE INITIALLY DEFERRED);
                    INSERT INTO categories (id, name) VALUES (1, 'Fiction');
                    INSERT INTO books (id, title, category_id) VALUES (1, 'Dune', 1);
                    INSERT INTO notes (text, book_id) VALUES ('good', 1);
                    """)
            if orphan { try db.execute(sql: "INSERT INTO notes (text, book_id) VALUES ('orphan', 99)") }
            if large {
                try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
                try db.execute(
                    sql:
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO user_notes (text) SELECT printf('%.400c', 'x') || i FROM n"
                )
            }
        }
        try queue.close()
        if large { #expect(((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 16 << 20) }
        return path
    }

    /// Migrates the store at `path` with `json`: the statements it ran, the error if any, and the
    /// names in `table` after (`text` of notes, `title` of books).
    private func migrate(_ path: String, _ json: String, whole: Bool = false, table: String) throws -> (
        statements: [String], rows: [String], error: String?
    ) {
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let queue = try DatabaseQueue(path: path)
        let log = StatementLog()
        queue.inDatabase { db in db.trace(options: .statement) { log.add("\($0)") } }
        var options = SeedMigrator.Options(tables: specs, now: Date(timeIntervalSince1970: 1_800_000_000))
        if whole { options.storeCheck = .whole }
        var error: String?
        do {
            _ = try SeedMigrator(migrations: [try loadMigration(json: json, fileName: "0001-change.json")]).migrate(
                queue, options: options)
        } catch let failure as SeedError {
            error = failure.diagnostics.map(\.message).joined(separator: "\n")
        }
        queue.inDatabase { db in db.trace(options: .statement, nil) }
        let rows = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT \(table == "books" ? "title" : "text") FROM \(table) ORDER BY id")
        }
        try queue.close()
        return (log.all, rows, error)
    }

    @Test(arguments: [(large: true, whole: false), (large: true, whole: true), (large: false, whole: false)])
    func aRunReadsForeignKeysOnlyWhenTheWholeStoreIsChecked(large: Bool, whole: Bool) throws {
        let run = try migrate(
            try store(large: large), #"{"insert": {"notes": [{"text": "new", "book_id": 1}]}}"#, whole: whole,
            table: "notes")
        expectEqual(run.error, nil)
        expectEqual(run.rows, ["good", "new"])
        expectEqual(
            run.statements.contains { $0.contains("foreign_key_check") }, whole,
            "\(run.statements.filter { $0.contains("PRAGMA") })")
    }

    @Test(arguments: [false, true])
    func aDeferredForeignKeyTheRunLeavesUnresolvedIsRefusedNamingItsRow(large: Bool) throws {
        let run = try migrate(
            try store(large: large), #"{"insert": {"notes": [{"text": "lost", "book_id": 42}]}}"#, table: "notes")
        expectEqual(
            run.error,
            "after the migrations, a row of notes (rowid 2) references a missing row of books; nothing was written"
        )
        expectEqual(run.rows, ["good"], "nothing was written")
    }

    /// A note whose book was gone before the run: the whole-store check refuses the run for it
    /// (as every run did before); otherwise the run does not read it, on a small store as on a large one.
    @Test(arguments: [
        (large: false, whole: true), (large: false, whole: false), (large: true, whole: true),
        (large: true, whole: false),
    ])
    func aRowThatBrokeItsForeignKeyBeforeTheRunIsSeenByTheWholeStoreCheckOnly(large: Bool, whole: Bool) throws {
        let run = try migrate(
            try store(large: large, orphan: true), #"{"insert": {"books": [{"title": "Emma", "category_id": 1}]}}"#,
            whole: whole, table: "books")
        if !whole {
            expectEqual(run.error, nil)
            expectEqual(run.rows, ["Dune", "Emma"])
        } else {
            expectEqual(
                run.error,
                "after the migrations, a row of notes (rowid 2) references a missing row of books; nothing was written"
            )
            expectEqual(run.rows, ["Dune"])
        }
    }
}
