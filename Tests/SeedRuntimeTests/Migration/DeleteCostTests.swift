import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime
import SeedTestSupport
import Testing

/// SQLite's virtual-machine steps on one connection, summed as each statement's run ends (the
/// profile trace): the rows a run reads and writes, counted rather than clocked.
private final class StepCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int64 = 0
    func add(_ steps: Int64) { lock.withLock { count += steps } }
    var value: Int64 { lock.withLock { count } }
}

/// Issue 45: deleting rows of a hierarchy whose parent column has no index read the whole table
/// for each deleted row (seedkit's check that nothing refers to it, and SQLite's foreign key):
/// 20k of 100k rows took 212 s.
///
/// The run indexes such a column for the migration (MigrationRun+Referrers.swift).
@Suite struct DeleteCostTests {
    /// Deletes every fifth of `count` nodes (parent column all NULL); the steps SQLite ran, and
    /// the nodes left.
    private func deleteAFifth(of count: Int) throws -> (steps: Int64, left: Int, indexes: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-delete-cost-\(UUID().uuidString).sqlite"
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
                    CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                    INSERT INTO nodes (name) SELECT 'node ' || i FROM n;
                    """)
        }
        let deletes = stride(from: 1, through: count, by: 5).map { #"{"key": "node \#($0)", "from": {}}"# }
        let migration = try loadMigration(
            json: #"{"delete": {"nodes": ["# + deletes.joined(separator: ", ") + "]}}", fileName: "0001-prune.json")
        let counted = StepCount()
        let context = Unmanaged.passRetained(counted)
        defer { context.release() }
        queue.inDatabase { db in
            _ = sqlite3_trace_v2(
                db.sqliteConnection, UInt32(SQLITE_TRACE_PROFILE),
                { _, context, statement, _ in
                    guard let context, let statement else { return 0 }
                    let steps = sqlite3_stmt_status(OpaquePointer(statement), SQLITE_STMTSTATUS_VM_STEP, 1)
                    Unmanaged<StepCount>.fromOpaque(context).takeUnretainedValue().add(Int64(steps))
                    return 0
                }, context.toOpaque())
        }
        _ = try SeedMigrator(migrations: [migration]).migrate(
            queue, options: SeedMigrator.Options(tables: [TableSpec(name: "nodes", key: ["name"])]))
        queue.inDatabase { db in _ = sqlite3_trace_v2(db.sqliteConnection, 0, nil, nil) }
        let (left, indexes) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM nodes") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'index'") ?? -1
            )
        }
        try queue.close()
        return (counted.value, left, indexes)
    }

    @Test func doublingTheRowsOfAHierarchyDeleteAtMostDoublesTheSteps() throws {
        let small = try deleteAFifth(of: 1000)
        let large = try deleteAFifth(of: 2000)
        expectEqual(small.left, 800)
        expectEqual(large.left, 1600)
        // The store keeps its own schema: only the UNIQUE constraint's index, no index of the run's.
        expectEqual(small.indexes, 1)
        expectEqual(large.indexes, 1)
        #expect(large.steps > small.steps, "the count follows the rows: \(small.steps) → \(large.steps)")
        #expect(large.steps * 10 <= small.steps * 21, "at most about doubled: \(small.steps) → \(large.steps)")
    }
}
