import GRDB
import GRDBSQLite

// A big insert migration writes rows with multi-row INSERTs, as a build does (``MultiRowInsert``):
// SQLite's work per statement is as much as a one-row insert itself.
//
// A row that insert() would write with `INSERT … ON CONFLICT (key) DO NOTHING` (plain SQLite, a
// UNIQUE index on exactly its key, no trigger in the store, no REPLACE clause) is held instead,
// with the rows of its table after it, until ``MultiRowInsert/rowsPerStatement(parameters:)``
// of them are there; they then go in by one `INSERT OR ABORT … VALUES (…), (…), …`, which takes
// them all or, when one breaks a constraint (a key already there, in the store or earlier in
// the same statement; a NOT NULL or CHECK; a foreign key), none: each of them then goes again
// through the one-row path (``MigrationRun/writeInsert(_:into:name:row:slot:key:keyColumns:unlessPresent:links:linkLater:membersLater:shownKey:)``),
// which skips, reports or fails it exactly as without multi-row INSERTs.
//
// What keeps the outcome the same as one row at a time:
// - Nothing else reads or writes the store while rows are held: any row that is not held (a
//   count of its key, a wait for a parent, a Core Data row, …), an operation's end, a retry of
//   waiting rows and the run's end write the held rows first.
// - Only the held rows' table is written meanwhile, and no row held reads it: a table whose refs
//   or foreign keys point at itself is never held, nor one some waiting row waits on.
// - What a held row settles (its event, its errors, what waited for it) is settled when it is
//   written, in the rows' order; an error goes where the one-row path would have put it among
//   the errors of the rows between.
// - Only where nobody observes the connection (``SeedMigrator/Options/writesDirectly``): GRDB's
//   observers would see the rows of a multi-row INSERT that a constraint then undid.

/// Rows of one table and column list held for a multi-row INSERT (see MigrationRun+Bulk.swift).
struct HeldInserts {
    struct Row {
        var input: DataChanges.RowValues
        var slot: Slot
        /// Where in ``MigrationRun/errors`` an error of this row goes: their count when it was held.
        var errorsAt: Int
    }

    var table: TableInfo?
    var name = ""
    var keyColumns: [String] = []
    /// Where each key column's value is among a held row's values (the same for all: they have one column list).
    var keyPositions: [Int] = []
    /// The held rows' columns, as insert() wrote them (one list for all), and their values, one
    /// row after the other: no array per row to make, copy and free (a tenth of the applying
    /// thread's work in a 100,000-row update went to that).
    var columns: [String] = []
    var values: [SQLValue] = []
    var rows: [Row] = []
    var rowsPerStatement = 1
    /// Rows still to go one by one after a multi-row INSERT failed on a constraint (as many as it
    /// took): keys already there tend to come in runs (a store that has part of the update), and
    /// each failed statement costs its work and its undoing.
    var singly = 0
    /// The text and blob bytes of the statement being bound (SQLITE_STATIC: they outlive its step).
    var bytes: [UInt8] = []
}

extension MigrationRun {
    /// Holds a row for a multi-row INSERT when its table allows one; false when it must be written
    /// now.
    ///
    /// The caller has found that it would be inserted unless its key is there (`unlessPresent`).
    mutating func holdForMultiRowInsert(
        _ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String, row: DataChanges.RowValues,
        slot: Slot, keyColumns: [String]
    ) throws -> Bool {
        guard options.writesDirectly, options.multiRowInserts, !queue.awaits(table.name) else { return false }
        if held.name != name || held.table?.name != table.name {
            try flushInserts()
            held.singly = 0
        } else if !held.rows.isEmpty, !held.columns.elementsEqual(values, by: { $0 == $1.column }) {
            try flushInserts()
        }
        if held.rows.isEmpty {
            let perStatement = try multiRowStatementRows(table, columns: values.count)
            guard perStatement > 1 else { return false }
            // The key's values are where insert() found them: the first value of each key column.
            var positions: [Int] = []
            for column in keyColumns {
                let wanted = SQLName(column)
                guard let position = values.firstIndex(where: { wanted.matches($0.column) }) else { return false }
                positions.append(position)
            }
            held.keyPositions = positions
            held.columns = values.map(\.column)
            held.table = table
            held.name = name
            held.keyColumns = keyColumns
            held.rowsPerStatement = perStatement
        }
        if held.singly > 0 {
            held.singly -= 1
            return false
        }
        for (_, value) in values { held.values.append(value) }
        held.rows.append(HeldInserts.Row(input: row, slot: slot, errorsAt: errors.count))
        if held.rows.count == held.rowsPerStatement { try flushInserts() }
        return true
    }

    /// Rows per multi-row INSERT into `table` for rows of `columns` values; 1 where it is not
    /// safe: a trigger, a foreign key or ref to the table itself, a schema's conflict clause
    /// other than ABORT (see ``MultiRowInsert/Hazards``).
    ///
    /// Worked out once per table.
    private mutating func multiRowStatementRows(_ table: TableInfo, columns: Int) throws -> Int {
        let allowed: Bool
        if let known = memo.multiRowTables[table.name] {
            allowed = known
        } else {
            let hazards = try MultiRowInsert.hazards(db, table: table.name)
            let ownName = table.name.lowercasedName
            let refersToItself = references(of: table.name).values.contains {
                dialect.tableName($0.table).lowercasedName == ownName
            }
            allowed = hazards.allowsMultipleRows && !hazards.conflictClauses && !refersToItself
            memo.multiRowTables[table.name] = allowed
        }
        return allowed ? MultiRowInsert.rowsPerStatement(parameters: columns) : 1
    }

    /// Writes the rows held for a multi-row INSERT (see MigrationRun+Bulk.swift): by one
    /// statement when they are as many as it takes, else (or when it failed on a constraint)
    /// one by one, each settled as ``insert(_:named:slot:validate:later:)`` settles a row.
    mutating func flushInserts() throws {
        guard !held.rows.isEmpty, let table = held.table else { return }
        let batch = held.rows
        let values = held.values
        held.rows.removeAll(keepingCapacity: true)
        held.values.removeAll(keepingCapacity: true)
        let (columns, width) = (held.columns, held.columns.count)
        // Row `index`'s values, and its key as insert() found it: made only for the rows a report
        // lists, that something waits for, or that go one by one.
        func valuesOf(_ index: Int) -> [(column: String, value: SQLValue)] {
            zip(columns, values[(index * width)...]).map { ($0, $1) }
        }
        let (keyColumns, keyPositions) = (held.keyColumns, held.keyPositions)
        func key(of index: Int) -> [(column: String, value: SQLValue)] {
            zip(keyColumns, keyPositions).map { ($0, values[index * width + $1]) }
        }
        let current = operationName
        operationName = held.name
        defer { operationName = current }
        if batch.count == held.rowsPerStatement,
            try insertMany(values, columns: columns, rows: batch.count, into: table)
        {
            memo.wrote(table.name)
            // Once a migration lists no more of its inserted rows, the rest of the batch in it are
            // only counted, together.
            let migration = batch[0].slot.migration
            var unlisted = 0
            let awaited = queue.awaits(table.name)
            for (index, row) in batch.enumerated() {
                if row.slot.migration == migration, unlisted > 0 || !lists(.inserted, in: row.slot) {
                    unlisted += 1
                } else if lists(.inserted, in: row.slot) {
                    fill(
                        row.slot,
                        event(
                            .inserted, table, row: row.input,
                            key: try keyFields(key(of: index), in: table, input: row.input), "inserted"))
                } else {
                    unlist(.inserted, in: row.slot)
                }
                if awaited { queue.appeared(table.name, valuesOf(index)) }
            }
            if unlisted > 0 { slots[migration].unlisted[.inserted, default: 0] += unlisted }
            return
        }
        if batch.count == held.rowsPerStatement { held.singly = held.rowsPerStatement }
        // One by one, as the one-row path writes them; each row's errors go where they would have.
        var moved = 0
        for (index, row) in batch.enumerated() {
            let before = errors.count
            _ = try writeInsert(
                valuesOf(index), into: table, name: held.name, row: row.input, slot: row.slot, key: key(of: index),
                keyColumns: keyColumns, unlessPresent: true)
            guard errors.count > before else { continue }
            let added = errors[before...]
            errors.removeSubrange(before...)
            errors.insert(contentsOf: added, at: row.errorsAt + moved)
            moved += added.count
        }
    }

    /// One multi-row INSERT of `rows` rows of `values` (all of ``HeldInserts/rowsPerStatement``,
    /// one row's `columns` after the other): true when they are in, false (none in) when one
    /// broke a constraint.
    private mutating func insertMany(_ values: [SQLValue], columns: [String], rows: Int, into table: TableInfo) throws
        -> Bool
    {
        let statement: Statement
        if let known = memo.statement(.insertMany, table: table.name, operation: held.name, columns: columns) {
            statement = known
        } else {
            statement = try prepare(
                RunMemo.Key(kind: .insertMany, table: table.name, operation: held.name, columns: columns),
                sql: MultiRowInsert.sql(into: table.name, columns: columns, rows: rows))
        }
        // As GRDB does before each statement (see ``execute(_:binding:)``).
        guard db.isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql)
        }
        do {
            guard try statement.insertDirectly(values: values, bytes: &held.bytes) else { return false }
        } catch let error as DatabaseError where db.isInsideTransaction {
            // Whatever else failed (a value too big, the disk), the rows going one by one fail
            // on it where and as the one-row path does; only a transaction that ended is final.
            _ = error
            return false
        }
        let changes = Int(sqlite3_changes(db.sqliteConnection))
        guard changes == rows else {
            throw Self.batchMiscount("a multi-row INSERT of \(rows) rows", of: table.name, changed: changes)
        }
        return true
    }
}
