import GRDB

// A big update migration finds, checks and writes its rows a batch at a time (issue 45), as a big
// delete does (MigrationRun+BatchDelete.swift): one statement reads a batch's rows by their keys
// and says which still hold their `from` and not yet their `to` (MigrationRun+BatchFetch.swift),
// and one `UPDATE OR ABORT … FROM (VALUES …)` sets the new values of the rows that are there once,
// still hold their `from` and do not hold their `to` yet. Every other row of the batch (missing,
// under a duplicate key, up to date, changed in the store, or all of them when the UPDATE failed
// on a constraint) then goes the one-row way (``MigrationRun/update(_:in:file:slot:)``), which
// reports or refuses it exactly as before, in the rows' order.
//
// Held only where the one-row way would write the row and only count it:
// - the deletes' conditions (``MigrationRun/deleteBatching(_:)``), and no row validator;
// - a row past the report's sample (``SeedMigrator/Options/eventsPerKind``: a listed update is
//   described from the row as it was) and nothing in the run waiting for a parent (a write
//   settles what waits);
// - a row whose `to` sets no key column (a rename changes the rows that store the old key) and
//   whose key, `from` and `to` resolve without a problem: any other row goes the one-row way after
//   the held ones, its problems reported there once.

/// Updates of one table held for a batch (see MigrationRun+BatchUpdate.swift).
struct HeldUpdates {
    struct Row {
        var change: DataChanges.RowChange
        var slot: Slot
        var key: [(column: String, value: SQLValue)]
        var from: [(column: String, value: SQLValue)]
        var to: [(column: String, value: SQLValue)]
        /// Where in ``MigrationRun/errors`` an error of this row goes: their count when it was held.
        var errorsAt: Int
    }

    var table: TableInfo?
    /// The operation's name for its table (``MigrationRun/operationName``).
    var name = ""
    var file = ""
    var keyColumns: [String] = []
    var toColumns: [String] = []
    var rows: [Row] = []
    /// The held rows' keys: a key held twice has the first written before the second is held.
    var keys = Set<[SQLValue]>()
    /// The `from` columns the held rows name (the batch's SELECT binds each for every row).
    var fromColumns = Set<SQLName>()
    /// By table, operation and written columns: whether a unique index may read one of them
    /// (``MigrationRun/flushUpdates()`` then writes a run in rowid order only), and whether a
    /// foreign key refers to one of them, foreign keys on (the rows then go one by one).
    var ordered: [String: (unique: Bool, referenced: Bool)] = [:]
}

extension MigrationRun {
    /// Resolves an update and holds it for the batch when it may be (see
    /// MigrationRun+BatchUpdate.swift); false, with the held rows written and nothing reported,
    /// when it must go the one-row way.
    mutating func holdUpdate(
        _ change: DataChanges.RowChange, in table: TableInfo, name: String, file: String, slot: Slot,
        batching: Batching
    ) throws -> Bool {
        let selfRefs = batching.selfRefs
        guard queue.open.isEmpty, !lists(.updated, in: slot) else {
            try flushUpdates()
            return false
        }
        if !selfRefs.isEmpty && !heldUpdates.rows.isEmpty
            && (change.from.values + change.to.values).contains(where: {
                $0.value != .null && selfRefs.contains(SQLName($0.column))
            })
        {
            try flushUpdates()
        }
        let errorCount = errors.count
        func oneByOne() throws -> Bool {
            errors.removeSubrange(errorCount...)  // reported again, once, by the one-row way
            try flushUpdates()
            return false
        }
        guard
            let (key, _) = try resolveKey(
                change.key, in: table, file: file, line: change.line, keyColumns: batching.key, describing: false)
        else {
            return try oneByOne()
        }
        for column in change.to.values.map(\.column) where change.from[column] == nil { return try oneByOne() }
        let from = try resolve(change.from, in: table)
        let to = try resolve(change.to, in: table)
        guard errors.count == errorCount, from.missing.isEmpty, to.missing.isEmpty, !to.values.isEmpty,
            !to.values.contains(where: { value in key.contains { $0.column.isSameName(as: value.column) } })
        else { return try oneByOne() }
        let keyValues = key.map(\.value)
        // Bound per row: its position, mask and key, every held row's `from` columns and its `to`
        // to find and check it; its rowid and new values to write it.
        let newColumns = HeldDeletes.newColumns(from.values, beside: heldUpdates.fromColumns)
        func width(_ from: Int) -> Int {
            max(HeldDeletes.fetchWidth(key: key.count, from: from, to: to.values.count), 1 + to.values.count)
        }
        if !heldUpdates.rows.isEmpty
            && (heldUpdates.table?.name != table.name || heldUpdates.name != name || heldUpdates.file != file
                || !heldUpdates.keyColumns.elementsEqual(key.lazy.map(\.column)) || heldUpdates.keys.contains(keyValues)
                || !heldUpdates.toColumns.elementsEqual(to.values.lazy.map(\.column))
                || (heldUpdates.rows.count + 1) * width(heldUpdates.fromColumns.count + newColumns)
                    > MultiRowInsert.parameterLimit)
        {
            try flushUpdates()
        }
        if heldUpdates.rows.isEmpty {
            heldUpdates.table = table
            heldUpdates.name = name
            heldUpdates.file = file
            heldUpdates.keyColumns = key.map(\.column)
            heldUpdates.toColumns = to.values.map(\.column)
        }
        heldUpdates.keys.insert(keyValues)
        for (column, _) in from.values { heldUpdates.fromColumns.insert(SQLName(column)) }
        heldUpdates.rows.append(
            HeldUpdates.Row(
                change: change, slot: slot, key: key, from: from.values, to: to.values, errorsAt: errors.count))
        if heldUpdates.rows.count >= HeldDeletes.rowsPerBatch(width: width(heldUpdates.fromColumns.count)) {
            try flushUpdates()
        }
        return true
    }

    /// Finds, checks and writes the held updates (see MigrationRun+BatchUpdate.swift): each run of
    /// rows that may go by one UPDATE, and each other row the one-row way, in the rows' order.
    mutating func flushUpdates() throws {
        guard !heldUpdates.rows.isEmpty, let table = heldUpdates.table else { return }
        let batch = heldUpdates.rows
        let (name, file, columns) = (heldUpdates.name, heldUpdates.file, heldUpdates.toColumns)
        heldUpdates.rows.removeAll(keepingCapacity: true)
        heldUpdates.keys.removeAll(keepingCapacity: true)
        heldUpdates.fromColumns.removeAll(keepingCapacity: true)
        let found = try fetchRows(
            table, keyColumns: heldUpdates.keyColumns, keys: batch.map(\.key), from: batch.map(\.from),
            to: batch.map(\.to), columns: [])
        var clean = [Bool](repeating: false, count: batch.count)
        // Two keys that find one row (a NOCASE key): the second goes the one-row way, after the first.
        var seen = Set<SQLValue>()
        for index in batch.indices {
            guard let current = found[index], current.holds else { continue }
            clean[index] = seen.insert(current.rowid).inserted
        }
        // A unique index over a written column: the rows' order is seen (SQLite checks a unique
        // index row by row), and one UPDATE … FROM writes its rows in rowid order, not the batch's:
        // a row taking a value a later row gives up would be written where one row at a time it
        // fails. A run is then rows in ascending rowid order, the orders the same.
        // A foreign key whose parent columns are written: SQLite checks it at the statement's end,
        // so one UPDATE could pass a row that one row at a time breaks it (a child left without
        // its parent until a later row takes the parent's old value): all go the one-row way.
        let orderedID = ([table.name, operationName] + columns).joined(separator: "\u{0}")
        let (ordered, referenced) =
            try heldUpdates.ordered[orderedID]
            ?? (uniqueIndex(of: table, covering: columns), referencedByForeignKey(table, columns))
        heldUpdates.ordered[orderedID] = (ordered, referenced)
        if referenced { clean = clean.map { _ in false } }
        var moved = 0
        var start = 0
        while start < batch.count {
            var end = start
            var values: [(column: String, value: SQLValue)] = []
            var last: Int64?
            while end < batch.count, clean[end], let rowid = found[end]?.rowid {
                if ordered {
                    guard case .integer(let id) = rowid, last.map({ $0 < id }) ?? true else { break }
                    last = id
                }
                values.append(("rowid", rowid))
                values += batch[end].to
                end += 1
            }
            var updated = false
            if !values.isEmpty {
                memo.wroteRows(table.name)
                updated = try updateRows(values, rows: end - start, columns: columns, in: table)
            }
            var oneByOne = Array(start..<end).filter { _ in !updated }
            if end < batch.count { oneByOne.append(end) }
            if updated {
                // Past the report's sample (holdUpdate): counted.
                for row in batch[start..<end] { unlist(.updated, in: row.slot) }
            }
            for index in oneByOne {
                let row = batch[index]
                let before = errors.count
                do {
                    try settle(
                        .update(change: row.change, table: name, file: file), slot: row.slot,
                        try update(row.change, in: table, file: file, slot: row.slot))
                } catch let error as SeedError where error.kind == .refused {
                    keep(refusal: error, file: file, line: row.change.line)
                }
                placeErrors(since: before, at: row.errorsAt, moved: &moved)
            }
            start = max(end + 1, start + 1)
        }
    }

    /// Whether a unique index of `table` may read one of `columns` (any partial one may: its
    /// condition may name them; one on an expression, as well).
    private func uniqueIndex(of table: TableInfo, covering columns: [String]) throws -> Bool {
        let names = Set(columns.map(\.lowercasedName))
        for index in try db.sqlRows(
            "SELECT name, partial FROM pragma_index_list(?) WHERE \"unique\" = 1", binding: [.text(table.name)])
        {
            guard case .text(let name)? = index.first else { continue }
            if index.last != .integer(0) { return true }
            for column in try db.sqlRows("SELECT name FROM pragma_index_info(?)", binding: [.text(name)]) {
                guard case .text(let read)? = column.first else { return true }  // an expression
                if names.contains(read.lowercasedName) { return true }
            }
        }
        return false
    }

    /// Whether foreign keys are on and one (of any table) refers to one of `columns` of `table`
    /// (or to its primary key, unnamed).
    private func referencedByForeignKey(_ table: TableInfo, _ columns: [String]) throws -> Bool {
        guard try db.sqlRow("PRAGMA foreign_keys") == [.integer(1)] else { return false }
        let names = Set(columns.map(\.lowercasedName))
        let keys = try db.sqlRows(
            "SELECT f.\"to\" FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table' AND f.\"table\" = ? COLLATE NOCASE",
            binding: [.text(table.name)])
        return keys.contains { row in
            guard case .text(let column)? = row.first else {
                return table.columns.contains { $0.primaryKeyIndex > 0 && names.contains($0.name.lowercasedName) }
            }
            return names.contains(column.lowercasedName)
        }
    }

    /// `UPDATE OR ABORT … FROM (VALUES (rowid, …), …)`: true when every row changed, false
    /// (none changed) when a constraint failed; the rows then go one by one.
    private mutating func updateRows(
        _ values: [(column: String, value: SQLValue)], rows: Int, columns: [String], in table: TableInfo
    ) throws -> Bool {
        let tuple = "(" + Array(repeating: "?", count: 1 + columns.count).joined(separator: ", ") + ")"
        let sets = columns.enumerated().map { "\(quoteIdentifier($1)) = v.column\($0 + 2)" }.joined(separator: ", ")
        let sql =
            "UPDATE OR ABORT \(quoteIdentifier(table.name)) SET \(sets) FROM (VALUES "
            + Array(repeating: tuple, count: rows).joined(separator: ", ")
            + ") AS v WHERE \(quoteIdentifier(table.name)).\(table.rowIDName ?? "rowid") = v.column1"
        let changes: Int
        do {
            changes = try execute(db.cachedStatement(sql: sql), binding: values)
        } catch let error as DatabaseError where db.isInsideTransaction && error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
        guard changes == rows else {
            throw Self.batchMiscount("an UPDATE of \(rows) rows", of: table.name, changed: changes)
        }
        return true
    }
}
