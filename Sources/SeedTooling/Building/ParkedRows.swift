import GRDB
import GRDBSQLite
import SeedRuntime

/// Records of one table whose ref names a row that is not in yet: a later row of the same
/// file (a self-reference to a parent listed after its child), a row of a table loaded later,
/// or a row that is itself parked.
///
/// They wait in a temporary table, so memory stays flat, and are inserted in passes once every
/// fixture is loaded (see `SeedBuilder.insertParked`).
///
/// Each pass reads one generation in file order and parks what still waits into the next;
/// a pass that inserts nothing anywhere ends it, and what is left is a cycle or a missing key.
final class ParkedRows {
    let plan: TablePlan
    private let db: Database
    private let name: String
    private let width: Int
    private let insert: Statement
    /// The generation records are parked into now.
    private(set) var generation = 0
    /// Records waiting, all generations.
    private(set) var count = 0
    /// The seq of the record parked last (seqs only grow: AUTOINCREMENT).
    private(set) var lastSeq: Int64 = 0

    init(db: Database, plan: TablePlan, number: Int) throws {
        self.db = db
        self.plan = plan
        width = plan.bound.count
        name = "_seedkit_parked_\(number)"
        let values = (0..<width).map { "v\($0)" }
        // Untyped columns keep each value's storage class as the converter produced it.
        try db.execute(
            sql:
                "CREATE TEMP TABLE \(name) (seq INTEGER PRIMARY KEY AUTOINCREMENT, gen INTEGER NOT NULL, line INTEGER NOT NULL, failed INTEGER NOT NULL, present INTEGER NOT NULL\(values.map { ", \($0)" }.joined()))"
        )
        insert = try db.makeStatement(
            sql:
                "INSERT INTO \(name) (gen, line, failed, present\(values.map { ", \($0)" }.joined())) VALUES (?, ?, ?, ?\(String(repeating: ", ?", count: width)))"
        )
        // A self-reference: each slot that names a row of this table, with the slot of the column it names.
        for (slot, bound) in plan.bound.enumerated() {
            guard let reference = bound.reference, reference.spec.table.isSameName(as: plan.config.name),
                let keySlot = plan.bound.firstIndex(where: {
                    $0.name.isSameName(as: reference.spec.column) || $0.info.name.isSameName(as: reference.spec.column)
                })
            else { continue }
            selfReferences.append((slot, keySlot))
            try db.execute(sql: "CREATE INDEX \(name)_v\(slot) ON \(name) (v\(slot))")
        }
    }

    /// Slots that name a row of this same table, with the slot of the column they name.
    private(set) var selfReferences: [(slot: Int, keySlot: Int)] = []

    /// Takes out of the waiting rows, into `batch`, those whose `slot` holds `value` and that the
    /// pass over `generation` has not read yet (after `seq`) or has parked again: a row of this
    /// table just inserted is what they wait for.
    ///
    /// Returns whether any was taken. This is what keeps a chain listed children first linear: each
    /// row is tried again as soon as its parent is in. Rows parked after `ceiling` (while the
    /// caller tries rows again) are left for later: they were just tried.
    func take(
        slot: Int, value: SQLValue, generation: Int, after seq: Int64, upTo ceiling: Int64, into batch: RecordBatch
    ) throws -> Bool {
        batch.reset()
        let select = try db.cachedStatement(
            sql:
                "SELECT seq, line, failed, present\((0..<width).map { ", v\($0)" }.joined()) FROM \(name) WHERE v\(slot) IS ? AND ((gen = ? AND seq > ?) OR gen > ?) AND seq <= ? ORDER BY seq LIMIT ?"
        )
        let rows = try select.rows(binding: [
            value, .integer(Int64(generation)), .integer(seq), .integer(Int64(generation)), .integer(ceiling),
            .integer(Int64(batch.capacity)),
        ])
        let delete = try db.cachedStatement(sql: "DELETE FROM \(name) WHERE seq = ?")
        for row in rows {
            append(row, to: batch)
            try delete.execute(binding: [row[0]])
            count -= 1
        }
        return !rows.isEmpty
    }

    /// Keeps a record of `batch` (its refs still as the parent's natural key) for a later pass.
    func park(_ batch: RecordBatch, record: Int) throws {
        var present: UInt64 = 0
        let first = record * width
        for slot in 0..<width where batch.slots[first + slot] != .absent { present |= 1 << UInt64(min(slot, 63)) }
        var values: [SQLValue] = [
            .integer(Int64(generation)), .integer(Int64(batch.lines[record])),
            .integer(Int64(bitPattern: batch.failedSlots[record])), .integer(Int64(bitPattern: present)),
        ]
        for slot in 0..<width { values.append(batch.value(record: record, slot: slot)) }
        try insert.execute(binding: values)
        lastSeq = db.lastInsertedRowID
        count += 1
    }

    /// Starts a pass: returns the generation to read; records parked from now on go to the next.
    func beginPass() -> Int {
        generation += 1
        return generation - 1
    }

    /// Ends a pass over `generation`: its records are in, or parked again in the next one.
    func endPass(_ generation: Int) throws {
        try db.execute(sql: "DELETE FROM \(name) WHERE gen = ?", arguments: [generation])
        count -= db.changesCount
    }

    /// Fills `batch` with the next records of `generation` after `seq`, in file order; returns the last seq read, or nil when none is left.
    func fetch(_ generation: Int, after seq: Int64, into batch: RecordBatch) throws -> Int64? {
        batch.reset()
        var last: Int64?
        try db.makeStatement(
            sql:
                "SELECT seq, line, failed, present\((0..<width).map { ", v\($0)" }.joined()) FROM \(name) WHERE gen = ? AND seq > ? ORDER BY seq LIMIT ?"
        )
        .forEachRow(binding: [.integer(Int64(generation)), .integer(seq), .integer(Int64(batch.capacity))]) { row in
            last = row[0].integerValue
            append(row, to: batch)
        }
        return last
    }

    /// Adds a parked record (`seq, line, failed, present, v0…`) to `batch` as it was parked.
    private func append(_ row: [SQLValue], to batch: RecordBatch) {
        batch.beginRecord(line: Int(row[1].integerValue ?? 0))
        batch.failedSlots[batch.count - 1] = UInt64(bitPattern: row[2].integerValue ?? 0)
        let present = UInt64(bitPattern: row[3].integerValue ?? 0)
        for slot in 0..<width where slot >= 63 || present & (1 << UInt64(slot)) != 0 {
            batch.set(slot, row[slot + 4])
        }
    }

    /// The line of a waiting record whose `slot` holds `value`, and that record's values; nil when none waits.
    func waiting(slot: Int, value: SQLValue) throws -> (line: Int, values: [SQLValue])? {
        guard
            let row = try db.sqlRow(
                "SELECT line\((0..<width).map { ", v\($0)" }.joined()) FROM \(name) WHERE v\(slot) IS ? ORDER BY seq LIMIT 1",
                binding: [value])
        else { return nil }
        return (Int(row[0].integerValue ?? 0), Array(row[1...]))
    }

    func drop() throws { try db.execute(sql: "DROP TABLE \(name)") }
}

/// Refs of one table inserted as NULL because their parent was not in yet (a later row of the
/// same file, a row of a table loaded later, or a row that waits itself), set once every row
/// is in.
///
/// A nullable ref never makes its row wait: the row goes in in the fixture's order, so a forward
/// ref costs an insert and one update, as a backward ref costs an insert and a lookup.
final class LinkedRefs {
    private let db: Database
    private let plan: TablePlan
    private let name: String
    private let insert: Statement
    /// How many links each slot holds: the UPDATE's change count against it tells whether any
    /// ref is left empty, without a second pass over the links.
    private var counts: [Int: Int] = [:]

    init(db: Database, plan: TablePlan, number: Int) throws {
        self.db = db
        self.plan = plan
        name = "_seedkit_links_\(number)"
        try db.execute(
            sql:
                "CREATE TEMP TABLE IF NOT EXISTS \(name) (seq INTEGER PRIMARY KEY, row INTEGER NOT NULL, slot INTEGER NOT NULL, line INTEGER NOT NULL, key)"
        )
        insert = try db.makeStatement(sql: "INSERT INTO \(name) (row, slot, line, key) VALUES (?, ?, ?, ?)")
    }

    /// Records that row `rowid`'s ref in `slot`, at `line`, names a key `bindKey` binds (the
    /// statement and the parameter's index): straight from the batch's bytes, no value built.
    func add(rowid: Int64, slot: Int, line: Int, bindKey: (OpaquePointer, Int32) -> Void) throws {
        let handle = insert.sqliteStatement
        sqlite3_bind_int64(handle, 1, rowid)
        sqlite3_bind_int64(handle, 2, Int64(slot))
        sqlite3_bind_int64(handle, 3, Int64(line))
        bindKey(handle, 4)
        let result = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard result == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: result),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        counts[slot, default: 0] += 1
    }

    /// Sets every recorded ref to its parent's id: one UPDATE per ref column, SQLite joining the
    /// links with the parent's key.
    ///
    /// A value the table's constraints refuse (a UNIQUE one-to-one, a CHECK, a trigger) is a
    /// diagnostic naming the row's line, found row by row once the UPDATE has failed (SQLite rolled
    /// it back whole); so is a ref left empty: its key matches no row.
    func apply(deferral: Deferral?, diagnostics: inout [Diagnostic]) throws {
        let table = quoteIdentifier(plan.table.name)
        // Links are only made for a table whose rowid a name reaches (see SeedBuilder's loading).
        let rowid = plan.table.rowIDName ?? "rowid"
        for (slot, links) in counts.sorted(by: { $0.key < $1.key }) where plan.bound.indices.contains(slot) {
            let bound = plan.bound[slot]
            guard let reference = bound.reference else { continue }
            let key = { (value: SQLValue) in "\(bound.name) '\(value.readable(as: reference.keyType).description)'" }
            let column = quoteIdentifier(bound.info.name)
            func miss(line: SQLValue, key value: SQLValue) {
                if deferral?.leavesUnchecked(
                    file: plan.config.displayFile, table: plan.table.name, field: bound.name,
                    parent: reference.spec.table) == true
                {
                    return
                }
                diagnostics.append(
                    Diagnostic(
                        file: plan.config.displayFile, line: Int(line.integerValue ?? 0), column: bound.fieldNumber,
                        code: .unresolvedReference, message: "\(key(value)) matches no \(reference.spec)",
                        table: plan.table.name))
            }
            let found = "\(name)_found"
            do {
                // Only the refs whose key a row has, each looked up once (MATERIALIZED: flattened,
                // the lookup would run for the SET and again for the WHERE). The links go by names
                // of their own: a table or parent named `l` would take a short alias.
                try db.execute(
                    sql:
                        "WITH \(found) AS MATERIALIZED (SELECT row, (\(reference.lookup(of: "\(name).key"))) AS parent FROM \(name) WHERE slot = \(slot)) UPDATE OR ABORT \(table) SET \(column) = \(found).parent FROM \(found) WHERE \(table).\(rowid) = \(found).row AND \(found).parent IS NOT NULL"
                )
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                let lookup = try db.makeStatement(sql: reference.lookupSQL)
                // OR ABORT: a schema's ON CONFLICT REPLACE or IGNORE never deletes or drops a row unseen.
                let update = try db.makeStatement(sql: "UPDATE OR ABORT \(table) SET \(column) = ? WHERE \(rowid) = ?")
                let clause = try ConflictClauses.read(db, table: plan.table.name).uniqueClause(on: [bound.info.name])
                try db.makeStatement(sql: "SELECT row, line, key FROM \(name) WHERE slot = ? ORDER BY seq").forEachRow(
                    binding: [.integer(Int64(slot))]
                ) { row in
                    guard let parent = try lookup.firstValue(binding: [row[2]]) else {
                        return miss(line: row[1], key: row[2])
                    }
                    do {
                        try update.execute(binding: [parent, row[0]])
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                        let duplicate =
                            error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
                            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
                        let replaced =
                            switch clause?.algorithm {
                            case "REPLACE":
                                " (the schema's ON CONFLICT REPLACE would have deleted that row; seedkit keeps every row or fails)"
                            case "IGNORE":
                                " (the schema's ON CONFLICT IGNORE would have left this ref empty; seedkit keeps every row or fails)"
                            default: ""
                            }
                        diagnostics.append(
                            Diagnostic(
                                file: plan.config.displayFile, line: Int(row[1].integerValue ?? 0),
                                column: bound.fieldNumber, code: duplicate ? .duplicateKey : .otherRule,
                                message: duplicate
                                    ? "duplicate key \(key(row[2])): an earlier row has the same\(replaced)"
                                    : "\(key(row[2])): \(error.message ?? "constraint failed")",
                                table: plan.table.name))
                    }
                }
                continue
            }
            // What is still empty matched no parent.
            guard db.changesCount < links else { continue }
            try db.makeStatement(
                sql:
                    "SELECT l.line, l.key FROM \(name) AS l JOIN \(table) AS t ON t.\(rowid) = l.row WHERE l.slot = ? AND t.\(column) IS NULL ORDER BY l.seq"
            ).forEachRow(binding: [.integer(Int64(slot))]) { row in miss(line: row[0], key: row[1]) }
        }
        try db.execute(sql: "DROP TABLE \(name)")
    }
}
