import Foundation
import GRDB
import GRDBSQLite

/// What counts the rows a `.sql` step writes.
///
/// SQLite's preupdate hook where the platform's SQLite has it, else temporary triggers. Both see
/// every row SQLite writes in the store, at any depth: REPLACE's deletes, what a user's trigger or
/// a foreign-key action writes, `WITHOUT ROWID` tables (docs/conflicts-and-triggers.md).
protocol SQLStepCounter: AnyObject {
    /// Counts again after a statement that changed the schema (its new tables included).
    func install() throws
    /// Stops counting while a table is altered (`ALTER TABLE` rewrites no row the step wrote).
    func remove()
    /// Before each statement (its first keyword): the rows deleted so far.
    func beginStatement(_ keyword: String) throws -> Int
    /// Ends the step: nothing of the counting stays on the connection.
    func finish()
    func deletedCount() throws -> Int
    /// The rows deleted after the first `skip` ones, at most `limit` (nil: all), with their keys.
    func deletedRows(after skip: Int, limit: Int?) throws -> [(table: String, key: [RowEvent.KeyValue])]
    /// Rows inserted, updated and deleted, by table (only tables with a change).
    func counts() throws -> [String: (inserted: Int, updated: Int, deleted: Int)]
}

extension SQLScript {
    /// How a step's rows are counted: ``hook`` where the platform's SQLite has the preupdate hook.
    enum Counting {
        case hook, triggers

        static var best: Counting { ChangeAccounting.functions == nil ? .triggers : .hook }
    }

    static func counter(
        _ counting: Counting, _ db: Database, keys: @escaping (String) -> [String]?, listing: Int?
    ) throws -> any SQLStepCounter {
        if counting == .hook, let functions = ChangeAccounting.functions {
            return try HookCounter(db, functions: functions, keys: keys, listing: listing)
        }
        return try TriggerCounter(db, keys: keys)
    }

    /// Temporary triggers on every table of the store that count the rows SQLite writes, and
    /// record each deleted row's key; they live in the connection's temp schema, never in the store.
    final class TriggerCounter: SQLStepCounter {
        private let db: Database
        private let keys: (String) -> [String]?
        private static let prefix = "_seedkit_sql_"

        init(_ db: Database, keys: @escaping (String) -> [String]?) throws {
            self.db = db
            self.keys = keys
            try db.execute(
                sql: """
                    CREATE TEMP TABLE IF NOT EXISTS \(Self.prefix)counts (tbl TEXT PRIMARY KEY, inserted INTEGER NOT NULL DEFAULT 0, updated INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0);
                    CREATE TEMP TABLE IF NOT EXISTS \(Self.prefix)deleted (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, columns TEXT NOT NULL, k0, k1, k2, k3);
                    DELETE FROM temp.\(Self.prefix)counts; DELETE FROM temp.\(Self.prefix)deleted;
                    """)
            try install()
        }

        /// Creates the triggers on every table that has none (after a schema change: new tables).
        func install() throws {
            // Every table but SQLite's own and virtual tables (which take no triggers; their shadow tables are counted).
            let tables = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid
                    """)
            let counted = Set(
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT tbl_name FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE '\\_seedkit\\_sql\\_%' ESCAPE '\\'"
                ))
            for (index, table) in tables.enumerated() where !counted.contains(table) {
                let withoutRowid =
                    (try? db.makeStatement(sql: "SELECT rowid FROM main.\(table.quotedDatabaseIdentifier)")) == nil
                let info = try Row.fetchAll(
                    db, sql: "SELECT name, pk FROM pragma_table_info(?) ORDER BY pk, cid", arguments: [table])
                let columns = Set(info.compactMap { $0[0] as String? }.map { $0.lowercasedName })
                var key = (keys(table) ?? []).filter { columns.contains($0.lowercasedName) }
                if key.isEmpty { key = info.filter { ($0[1] as Int64? ?? 0) > 0 }.compactMap { $0[0] as String? } }
                if key.isEmpty && !withoutRowid { key = ["rowid"] }
                key = Array(key.prefix(4))
                let label = table.replacingOccurrences(of: "'", with: "''")
                let names = key.joined(separator: "\u{1F}").replacingOccurrences(of: "'", with: "''")
                let values = (0..<4).map { $0 < key.count ? "OLD.\(key[$0].quotedDatabaseIdentifier)" : "NULL" }.joined(
                    separator: ", ")
                func count(_ kind: String) -> String {
                    "INSERT INTO \(Self.prefix)counts (tbl, \(kind)) VALUES ('\(label)', 1) ON CONFLICT (tbl) DO UPDATE SET \(kind) = \(kind) + 1;"
                }
                let on = "main.\(table.quotedDatabaseIdentifier)"
                try db.execute(
                    sql: """
                        CREATE TEMP TRIGGER \(Self.prefix)i\(index)_\(UInt32(truncatingIfNeeded: table.hashValue)) AFTER INSERT ON \(on) BEGIN \(count("inserted")) END;
                        CREATE TEMP TRIGGER \(Self.prefix)u\(index)_\(UInt32(truncatingIfNeeded: table.hashValue)) AFTER UPDATE ON \(on) BEGIN \(count("updated")) END;
                        CREATE TEMP TRIGGER \(Self.prefix)d\(index)_\(UInt32(truncatingIfNeeded: table.hashValue)) AFTER DELETE ON \(on) BEGIN \(count("deleted"))
                          INSERT INTO \(Self.prefix)deleted (tbl, columns, k0, k1, k2, k3) VALUES ('\(label)', '\(names)', \(values)); END;
                        """)
            }
        }

        /// Drops every counting trigger (before a schema change, and at the end of the step).
        func remove() {
            let names =
                (try? String.fetchAll(
                    db,
                    sql:
                        "SELECT name FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE '\\_seedkit\\_sql\\_%' ESCAPE '\\'"
                )) ?? []
            for name in names { try? db.execute(sql: "DROP TRIGGER temp.\(name.quotedDatabaseIdentifier)") }
        }

        /// Drops the counting tables: an app's connection keeps nothing of the step.
        func dropTables() {
            try? db.execute(
                sql: "DROP TABLE IF EXISTS temp.\(Self.prefix)counts; DROP TABLE IF EXISTS temp.\(Self.prefix)deleted")
        }

        func beginStatement(_ keyword: String) throws -> Int { try deletedCount() }

        func finish() {
            remove()
            dropTables()
        }

        func deletedCount() throws -> Int {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.\(Self.prefix)deleted") ?? 0
        }

        /// The rows deleted after the first `skip` ones, at most `limit` (nil: all), with their keys.
        func deletedRows(after skip: Int, limit: Int?) throws -> [(table: String, key: [RowEvent.KeyValue])] {
            try Row.fetchAll(
                db,
                sql:
                    "SELECT tbl, columns, k0, k1, k2, k3 FROM temp.\(Self.prefix)deleted ORDER BY seq LIMIT ? OFFSET ?",
                arguments: [limit ?? -1, skip]
            ).map { row in
                let columns = (row[1] as String? ?? "").split(separator: "\u{1F}", omittingEmptySubsequences: false)
                    .map(String.init)
                let key = columns.enumerated().map { index, column in
                    RowEvent.KeyValue(
                        column: column, value: SQLValue.fromDatabaseValue(row[index + 2] as DatabaseValue) ?? .null)
                }
                return (row[0] as String? ?? "", key)
            }
        }

        /// Rows inserted, updated and deleted, by table.
        func counts() throws -> [String: (inserted: Int, updated: Int, deleted: Int)] {
            var result: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT tbl, inserted, updated, deleted FROM temp.\(Self.prefix)counts")
            {
                result[row[0] as String? ?? ""] = (
                    Int(row[1] as Int64? ?? 0), Int(row[2] as Int64? ?? 0), Int(row[3] as Int64? ?? 0)
                )
            }
            return result
        }
    }

    /// Counts through SQLite's preupdate hook (`sqlite3_preupdate_hook`).
    ///
    /// SQLite calls it for every row any statement writes, a trigger's and a foreign-key action's
    /// included, before it is written: a count costs a call instead of a trigger program and a
    /// write to a temporary table per row (the `.sql` step's row in docs/performance.md). The hook
    /// replaces ``ChangeAccounting``'s for the step, which installs its own again afterwards.
    ///
    /// A deleted row's key is read from the row before it goes (`sqlite3_preupdate_old`). Deletes
    /// are listed in the order the temporary triggers (`AFTER DELETE`) list them: a row after the
    /// rows its delete cascades to.
    final class HookCounter: SQLStepCounter {
        private struct Slot {
            var name: String
            /// The key's column names and their positions in the table (-1: the rowid).
            var columns: [String]
            var positions: [Int32]
            var inserted = 0
            var updated = 0
            var deleted = 0
        }

        private struct Pending {
            var depth: Int32
            var slot: Int
            var key: [RowEvent.KeyValue]?
        }

        private let db: Database
        private let functions: ChangeAccounting.Functions
        private let keys: (String) -> [String]?
        private var slots: [Slot] = []
        private var slotByName: [String: Int] = [:]
        /// The table the last row was written in: its name's address (stable while a statement runs).
        private var lastTable: UnsafePointer<CChar>?
        private var lastSlot = 0
        private var paused = false
        private var dropping = false
        /// Deletes not yet listed: waiting for the rows their delete cascades to (see above).
        private var pending: [Pending] = []
        private var deletes = 0
        /// The first `keep` deleted rows, and the first three deleted by the current statement.
        private let keep: Int
        private var kept: [(table: String, key: [RowEvent.KeyValue])] = []
        private var sampleFrom = 0
        private var sample: [(table: String, key: [RowEvent.KeyValue])] = []
        private static let sampled = 3

        /// Whether `sqlite3_preupdate_old` numbers a rowid table's values as the row stores them
        /// (VIRTUAL generated columns left out), as SQLite 3.40 does, rather than as the table
        /// declares its columns: asked once, of a table in memory.
        private static let oldSkipsVirtualColumns: Bool = {
            final class Probe { var second: String? }
            guard let functions = ChangeAccounting.functions else { return false }
            var connection: OpaquePointer?
            defer { sqlite3_close(connection) }
            guard sqlite3_open_v2(":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK
            else { return false }
            let probe = Probe()
            _ = functions.setHook(
                connection,
                { context, db, operation, _, _, _, _ in
                    var value: OpaquePointer?
                    guard let context, operation == SQLITE_DELETE, let functions = ChangeAccounting.functions,
                        functions.old(db, 1, &value) == SQLITE_OK, let value, let text = sqlite3_value_text(value)
                    else { return }
                    Unmanaged<Probe>.fromOpaque(context).takeUnretainedValue().second = String(cString: text)
                }, Unmanaged.passUnretained(probe).toOpaque())
            _ = sqlite3_exec(
                connection,
                "CREATE TABLE t (a INTEGER PRIMARY KEY, g AS (a * 2) VIRTUAL, k TEXT); INSERT INTO t (a, k) VALUES (5, 'key'); DELETE FROM t",
                nil, nil, nil)
            _ = functions.setHook(connection, nil, nil)
            return probe.second == "key"
        }()

        init(
            _ db: Database, functions: ChangeAccounting.Functions, keys: @escaping (String) -> [String]?,
            listing: Int?
        ) throws {
            self.db = db
            self.functions = functions
            self.keys = keys
            keep = listing ?? Int.max
            try install()
            _ = functions.setHook(
                db.sqliteConnection,
                { context, db, operation, schema, table, oldRowid, newRowid in
                    guard let context, let schema, let table else { return }
                    Unmanaged<HookCounter>.fromOpaque(context).takeUnretainedValue().saw(
                        db, operation, schema, table, operation == SQLITE_INSERT ? newRowid : oldRowid)
                }, Unmanaged.passUnretained(self).toOpaque())
        }

        /// Reads each table's key (again after a schema change), as ``TriggerCounter`` does.
        func install() throws {
            paused = false
            lastTable = nil
            let tables = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%' ORDER BY rowid
                    """)
            for table in tables {
                let withoutRowid =
                    (try? db.makeStatement(sql: "SELECT rowid FROM main.\(table.quotedDatabaseIdentifier)")) == nil
                let info = try Row.fetchAll(
                    db, sql: "SELECT name, pk, hidden, type FROM pragma_table_xinfo(?)", arguments: [table])
                // A key is one of the columns `table_info` lists (as for the triggers): never a
                // generated one. Its position is the value's index in the row SQLite reports.
                var position: [String: Int32] = [:]
                var virtualBefore: Int32 = 0
                // The rowid's alias (INTEGER PRIMARY KEY) is read as the rowid: the row stores it
                // as NULL, and SQLite gives the rowid only for its index as declared, which a
                // VIRTUAL column before it moves.
                let primaryKey = info.filter { ($0[1] as Int64? ?? 0) > 0 }
                let alias =
                    !withoutRowid && primaryKey.count == 1 && (primaryKey[0][3] as String?)?.uppercased() == "INTEGER"
                    ? primaryKey[0][0] as String? : nil
                for (index, row) in info.enumerated() {
                    let hidden = row[2] as Int64? ?? 0
                    if hidden == 0, let name = row[0] as String? {
                        let skipped = !withoutRowid && Self.oldSkipsVirtualColumns ? virtualBefore : 0
                        position[name.lowercasedName] = name == alias ? -1 : Int32(index) - skipped
                    }
                    if hidden == 2 { virtualBefore += 1 }
                }
                var key = (keys(table) ?? []).filter { position[$0.lowercasedName] != nil }
                if key.isEmpty {
                    key = info.filter { ($0[1] as Int64? ?? 0) > 0 }.sorted {
                        ($0[1] as Int64? ?? 0) < ($1[1] as Int64? ?? 0)
                    }
                    .compactMap { $0[0] as String? }
                }
                if key.isEmpty && !withoutRowid { key = ["rowid"] }
                key = Array(key.prefix(4))
                let positions = key.map { position[$0.lowercasedName] ?? -1 }
                if let slot = slotByName[table] {
                    slots[slot].columns = key
                    slots[slot].positions = positions
                } else {
                    slotByName[table] = slots.count
                    slots.append(Slot(name: table, columns: key, positions: positions))
                }
            }
        }

        func remove() {
            flush(below: 0)
            paused = true
        }

        func beginStatement(_ keyword: String) throws -> Int {
            flush(below: 0)
            // DROP TABLE empties the table first (foreign keys on): those rows are the statement's
            // own, not counted (the table's triggers go with it); what that cascades to is.
            dropping = keyword == "DROP"
            lastTable = nil
            sampleFrom = deletes
            sample.removeAll()
            return deletes
        }

        func finish() {
            _ = functions.setHook(db.sqliteConnection, nil, nil)
        }

        func deletedCount() throws -> Int {
            flush(below: 0)
            return deletes
        }

        func deletedRows(after skip: Int, limit: Int?) throws -> [(table: String, key: [RowEvent.KeyValue])] {
            flush(below: 0)
            let end = limit.map { min(deletes, skip + $0) } ?? deletes
            guard skip < end else { return [] }
            return (skip..<end).compactMap { index in
                let inSample = index - sampleFrom
                if inSample >= 0 && inSample < sample.count { return sample[inSample] }
                return index < kept.count ? kept[index] : nil
            }
        }

        func counts() throws -> [String: (inserted: Int, updated: Int, deleted: Int)] {
            flush(below: 0)
            var result: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]
            for slot in slots where slot.inserted + slot.updated + slot.deleted > 0 {
                result[slot.name] = (slot.inserted, slot.updated, slot.deleted)
            }
            return result
        }

        private func saw(
            _ connection: OpaquePointer?, _ operation: Int32, _ schema: UnsafePointer<CChar>,
            _ table: UnsafePointer<CChar>, _ rowid: Int64
        ) {
            guard !paused, strcmp(schema, "main") == 0 else { return }
            let depth = functions.depth(connection)
            if dropping && depth == 0 { return }
            let slot: Int
            if table == lastTable {
                slot = lastSlot
            } else {
                let name = String(cString: table)
                if let found = slotByName[name] {
                    slot = found
                } else if name.lowercased().hasPrefix("sqlite_") {
                    // SQLite's own tables (ANALYZE's `sqlite_stat1`): not the store's rows, as for the triggers.
                    slot = -1
                } else {
                    // A table the schema did not list when the keys were read: counted by its rowid.
                    slot = slots.count
                    slotByName[name] = slot
                    slots.append(Slot(name: name, columns: ["rowid"], positions: [-1]))
                }
                lastTable = table
                lastSlot = slot
            }
            guard slot >= 0 else { return }
            if !pending.isEmpty { flush(below: depth) }
            switch operation {
            case SQLITE_INSERT: slots[slot].inserted += 1
            case SQLITE_UPDATE: slots[slot].updated += 1
            default:
                // Once both lists are full they stay full: no key is read.
                let wanted = deletes < keep || deletes - sampleFrom < Self.sampled
                pending.append(
                    Pending(depth: depth, slot: slot, key: wanted ? key(connection, slot: slot, rowid: rowid) : nil))
            }
        }

        /// Lists the pending deletes at `depth` or deeper: the rows their delete cascaded to are listed.
        private func flush(below depth: Int32) {
            while let last = pending.last, last.depth >= depth {
                pending.removeLast()
                slots[last.slot].deleted += 1
                let row = (table: slots[last.slot].name, key: last.key ?? [])
                if deletes < keep { kept.append(row) }
                if deletes - sampleFrom < Self.sampled { sample.append(row) }
                deletes += 1
            }
        }

        private func key(_ connection: OpaquePointer?, slot: Int, rowid: Int64) -> [RowEvent.KeyValue] {
            zip(slots[slot].columns, slots[slot].positions).map { column, position in
                var value: OpaquePointer?
                guard position >= 0 else { return RowEvent.KeyValue(column: column, value: .integer(rowid)) }
                guard functions.old(connection, position, &value) == SQLITE_OK, let value else {
                    return RowEvent.KeyValue(column: column, value: .null)
                }
                return RowEvent.KeyValue(column: column, value: ChangeAccounting.sqlValue(value))
            }
        }
    }
}
