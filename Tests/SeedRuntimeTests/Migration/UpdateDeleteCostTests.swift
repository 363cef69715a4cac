import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime
import SeedTestSupport
import Testing

/// The statements SQLite ran on one connection and their virtual-machine steps, summed as each
/// statement's run ends (the profile trace): counted rather than clocked.
private final class StatementCount: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: (statements: Int64, steps: Int64) = (0, 0)
    func add(_ steps: Int64) {
        lock.withLock {
            counts.statements += 1
            counts.steps += steps
        }
    }
    var value: (statements: Int64, steps: Int64) { lock.withLock { counts } }
}

private let specs = [
    TableSpec(name: "categories", key: ["name"]),
    TableSpec(name: "books", key: ["isbn"], refs: ["category_id": .init(table: "categories", column: "name")]),
]

/// Issue 45: a delete or an update whose `from` names a parent looked the parent up again for
/// each row (each one forgot the run's memo of parent ids), a statement more per row than an
/// insert's.
///
/// An update or delete of `books` now forgets only what it may have made wrong.
@Suite struct UpdateDeleteCostTests {
    /// A store of `count` books in five categories; `document(count)` applied to it.
    ///
    /// The statements and steps SQLite ran, the books left, and the report.
    private func run(_ count: Int, _ document: (Int) -> String) throws -> (
        statements: Int64, steps: Int64, books: Int, report: MigrationReport, rows: [String]
    ) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-update-delete-cost-\(UUID().uuidString).sqlite"
        ).path
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, price REAL,
                                        category_id INTEGER REFERENCES categories(id));
                    INSERT INTO categories (name) VALUES ('C0'), ('C1'), ('C2'), ('C3'), ('C4');
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1))
                    INSERT INTO books (isbn, price, category_id) SELECT 'B' || i, 1.5, 1 + i % 5 FROM n;
                    """)
        }
        let migration = try loadMigration(json: document(count), fileName: "0001-change.json")
        let counted = StatementCount()
        let context = Unmanaged.passRetained(counted)
        defer { context.release() }
        queue.inDatabase { db in
            _ = sqlite3_trace_v2(
                db.sqliteConnection, UInt32(SQLITE_TRACE_PROFILE),
                { _, context, statement, _ in
                    guard let context, let statement else { return 0 }
                    let steps = sqlite3_stmt_status(OpaquePointer(statement), SQLITE_STMTSTATUS_VM_STEP, 1)
                    Unmanaged<StatementCount>.fromOpaque(context).takeUnretainedValue().add(Int64(steps))
                    return 0
                }, context.toOpaque())
        }
        // As `seedkit migrate` reports to a person: a sample of the rows listed, the rest counted.
        var options = SeedMigrator.Options(tables: specs)
        options.eventsPerKind = 10
        options.writesDirectly = true  // as the CLI writes: big deletes and updates go in batches
        let report = try SeedMigrator(migrations: [migration]).migrate(queue, options: options)
        queue.inDatabase { db in _ = sqlite3_trace_v2(db.sqliteConnection, 0, nil, nil) }
        let books = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") ?? -1 }
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT b.isbn || ' ' || c.name FROM books b JOIN categories c ON c.id = b.category_id ORDER BY b.isbn"
            )
        }
        try queue.close()
        let total = counted.value
        return (total.statements, total.steps, books, report, rows)
    }

    /// Deletes every book, each checked against its category by name.
    private func deletes(_ count: Int) -> String {
        let rows = (0..<count).map { #"{"key": "B\#($0)", "from": {"price": 1.5, "category_id": "C\#($0 % 5)"}}"# }
        return #"{"delete": {"books": ["# + rows.joined(separator: ", ") + "]}}"
    }

    /// Moves every book to the next category.
    private func moves(_ count: Int) -> String {
        let rows = (0..<count).map {
            #"{"key": "B\#($0)", "from": {"category_id": "C\#($0 % 5)"}, "to": {"category_id": "C\#(($0 + 1) % 5)"}}"#
        }
        return #"{"update": {"books": ["# + rows.joined(separator: ", ") + "]}}"
    }

    @Test func aDeleteRunsTwoStatementsPerBatchAndDoublingTheRowsDoublesTheWork() throws {
        let small = try run(400, deletes)
        let large = try run(800, deletes)
        expectEqual(small.books, 0)
        expectEqual(large.books, 0)
        expectEqual(large.report.migrations.first?.count(.deleted), 800)
        // Find a batch's rows, delete them (MigrationRun+BatchDelete.swift); each category's id is
        // looked up once, not per row. 400 rows more: two batches more, a statement per 50 rows at most.
        #expect(
            large.statements - small.statements <= 8, "statements: \(small.statements) → \(large.statements)")
        #expect(large.steps * 10 <= small.steps * 21, "steps at most about doubled: \(small.steps) → \(large.steps)")
    }

    @Test func aRefChangeRunsTwoStatementsPerBatchAndDoublingTheRowsDoublesTheWork() throws {
        let small = try run(400, moves)
        let large = try run(800, moves)
        expectEqual(large.books, 800)
        expectEqual(large.report.migrations.first?.count(.updated), 800)
        // The 10 listed go one by one (described from the row as it was), the rest a batch at a
        // time (MigrationRun+BatchUpdate.swift): find them, update them.
        #expect(
            large.statements - small.statements <= 8, "statements: \(small.statements) → \(large.statements)")
        expectEqual(large.rows, (0..<800).map { "B\($0) C\(($0 + 1) % 5)" }.sorted())
        #expect(large.steps * 10 <= small.steps * 21, "steps at most about doubled: \(small.steps) → \(large.steps)")
    }

    @Test func aParentRenamedOrDeletedAfterAnUpdateOrDeleteFoundItIsNotTakenFromMemory() throws {
        // 0001's update and delete find C0 and C1 by name (their ids are remembered); 0002 renames
        // C0 to Z and deletes C1 (nothing refers to it once its books are gone); 0003's rows name
        // C0 and C1 again, which are no longer there.
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, price REAL,
                                        category_id INTEGER REFERENCES categories(id));
                    INSERT INTO categories (name) VALUES ('C0'), ('C1'), ('C2');
                    INSERT INTO books (isbn, price, category_id) VALUES ('a', 1, 1), ('b', 1, 2), ('c', 1, 1), ('d', 1, 1);
                    """)
        }
        let migrations = try [
            #"""
            {"update": {"books": [{"key": "a", "from": {"category_id": "C0", "price": 1}, "to": {"price": 2}}]},
             "delete": {"books": [{"key": "b", "from": {"category_id": "C1"}}]}}
            """#,
            #"""
            {"update": {"categories": [{"key": "C0", "from": {"name": "C0"}, "to": {"name": "Z"}}]},
             "delete": {"categories": [{"key": "C1", "from": {}}]}}
            """#,
            #"""
            {"update": {"books": [{"key": "c", "from": {"category_id": "C0"}, "to": {"category_id": "C2"}},
                                  {"key": "d", "from": {"category_id": "C1", "price": 1}, "to": {"price": 3}}]},
             "delete": {"books": [{"key": "a", "from": {"category_id": "C0"}}]}}
            """#,
        ].enumerated().map { try loadMigration(json: $1, fileName: "000\($0 + 1)-change.json") }
        let report = try SeedMigrator(migrations: migrations).migrate(
            queue, options: SeedMigrator.Options(tables: specs))
        let last =
            report.migrations.last?.events.map { "\($0.kind) \($0.key.first?.value ?? .null) \($0.detail)" } ?? []
        expectEqual(last.count, 3, "\(last)")
        #expect(last.allSatisfy { $0.hasPrefix("conflict") && $0.contains("matches no categories.name") }, "\(last)")
        let rows = try queue.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT b.isbn || ' ' || b.price || ' ' || c.name FROM books b JOIN categories c ON c.id = b.category_id ORDER BY b.isbn"
            )
        }
        expectEqual(rows, ["a 2.0 Z", "c 1.0 Z", "d 1.0 Z"])
    }
}
