import GRDB

// A big delete migration finds, checks and deletes its rows a batch at a time (issue 45), as a big
// insert writes them (MigrationRun+Bulk.swift): one statement reads a batch's rows by their keys
// (the keys bound as a multi-row VALUES joined with the table) and says which still hold their
// `from` (MigrationRun+BatchFetch.swift), one per referring column asks
// which of them a row still refers to, and one `DELETE … WHERE rowid IN (…)` removes the rows
// that are there once, still hold their `from` and that nothing refers to. Every other row of the
// batch (missing, under a duplicate key, changed in the store, still referenced, or all of them
// when the DELETE failed) then goes the one-row way (``MigrationRun/delete(_:from:file:deferring:)``),
// which reports, blocks or denies it exactly as before; the rows' events are filled in their order.
//
// What keeps the outcome the same as one row at a time:
// - A row's key and `from` are resolved when it is held, as before; one that names a row of the
//   table itself (a self-ref) has the held rows deleted first, so it sees what it would have seen.
// - Nothing else reads or writes the table while rows are held: the batch is written when it is
//   full, when the rows' key columns change, and at the operation's end.
// - Only where a row's deletion changes nothing else: plain SQLite, no trigger in the store (the
//   memo of parent ids is kept), no foreign key with an `ON DELETE`/`ON UPDATE` action, a table
//   with rowids, reached by a name no column hides (``TableInfo/rowIDName``); not under `--on-conflict fail` (a conflict's error would go after the errors of
//   the rows resolved after it); and only where nobody observes the connection
//   (``SeedMigrator/Options/writesDirectly``).
// - A referrer found for a row in the batch sends that row the one-row way after the DELETE: one
//   the batch deleted no longer refers to it, and it goes at once instead of blocked and retried
//   at the migration's end (``MigrationRun/settleBlockedDeletes(final:)``), with the same event.

/// Whether a table's deletes and updates go in batches (``MigrationRun/deleteBatching(_:)``), its
/// columns that are refs to itself, and its key columns as the operation names the table.
typealias Batching = (batched: Bool, selfRefs: Set<SQLName>, key: [String])

/// Deletes of one table held for a batch (see MigrationRun+BatchDelete.swift).
struct HeldDeletes {
    struct Row {
        var change: DataChanges.RowChange
        var slot: Slot
        var key: [(column: String, value: SQLValue)]
        /// The key as the report shows it; empty for a row past the report's sample when held
        /// (``MigrationRun/lists(_:in:)`` only turns false as events are listed).
        var fields: [RowEvent.KeyValue]
        /// Nil when it did not resolve: the row goes the one-row way.
        var from: [(column: String, value: SQLValue)]?
        /// Where in ``MigrationRun/errors`` an error of this row goes: their count when it was held.
        var errorsAt: Int
    }

    /// Rows per batch of rows that bind `width` values each in a statement: at most 256, within
    /// SQLite's smallest limit of bound parameters (``MultiRowInsert/parameterLimit``).
    static func rowsPerBatch(width: Int) -> Int { max(1, min(256, MultiRowInsert.parameterLimit / max(1, width))) }

    /// Values bound per row by the batch's SELECT (``MigrationRun/fetchRows(_:keyColumns:keys:from:to:columns:)``):
    /// position, mask, key, and each `from` column any held row names, and `to` columns.
    static func fetchWidth(key: Int, from: Int, to: Int = 0) -> Int { 2 + key + from + to }

    /// How many of `values`' columns `held` lacks, each counted once.
    static func newColumns(_ values: [(column: String, value: SQLValue)], beside held: Set<SQLName>) -> Int {
        // Rows of one shape: every column held already, and no set is made.
        guard values.contains(where: { !held.contains(SQLName($0.column)) }) else { return 0 }
        var new: Set<SQLName> = []
        for (column, _) in values where !held.contains(SQLName(column)) { new.insert(SQLName(column)) }
        return new.count
    }

    var table: TableInfo?
    var file = ""
    var keyColumns: [String] = []
    var rows: [Row] = []
    /// The held rows' keys: a key held twice has the first written before the second is held.
    var keys = Set<[SQLValue]>()
    /// The `from` columns the held rows name (the batch's SELECT binds each for every row).
    var fromColumns = Set<SQLName>()
    /// By table and operation: whether its deletes may be batched, and the columns that refer to
    /// the table itself through a manifest ref (a row naming one is resolved after the held rows go).
    var tables: [String: Batching] = [:]
}

extension MigrationRun {
    /// Whether the deletes of `table` go in batches (see MigrationRun+BatchDelete.swift), and its
    /// columns that are refs to itself.
    mutating func deleteBatching(_ table: TableInfo) -> Batching {
        let id = table.name + "\u{0}" + operationName
        if let known = heldDeletes.tables[id] { return known }
        let ownName = table.name.lowercasedName
        let selfRefs = Set(
            references(of: table.name).filter { dialect.tableName($0.value.table).lowercasedName == ownName }.keys)
        // A key that is a ref to the table itself is resolved by reading the table: not batched.
        let key = (try? keyColumns(table, file: "", line: 0)) ?? []
        let batched =
            !key.isEmpty && !key.contains(where: { selfRefs.contains(SQLName($0)) })
            && options.writesDirectly && options.batchedChanges && plainSQLite && table.rowIDName != nil
            && memo.parentIDs != nil && !memo.foreignKeyActions && options.onConflict != .fail
        heldDeletes.tables[id] = (batched, selfRefs, key)
        return (batched, selfRefs, key)
    }

    /// Resolves a delete's key and holds it for the batch.
    ///
    /// A key that does not resolve is settled here as ``delete(_:from:file:deferring:)`` settles it. A `from` that does not
    /// resolve (a column the table lacks, a parent not there) makes the row go the one-row way at
    /// its turn in the batch: it reads the row before its `from`.
    mutating func holdDelete(
        _ change: DataChanges.RowChange, from table: TableInfo, file: String, slot: Slot, batching: Batching
    ) throws {
        let selfRefs = batching.selfRefs
        if !selfRefs.isEmpty && !heldDeletes.rows.isEmpty
            && change.from.values.contains(where: { $0.value != .null && selfRefs.contains(SQLName($0.column)) })
        {
            try flushDeletes()
        }
        guard
            let (key, fields) = try resolveKey(
                change.key, in: table, file: file, line: change.line, keyColumns: batching.key,
                describing: lists(.deleted, in: slot))
        else { return }
        let errorCount = errors.count
        let resolution = try resolve(change.from, in: table)
        let resolved = errors.count == errorCount && resolution.missing.isEmpty
        errors.removeSubrange(errorCount...)  // reported, if the row is there, by the one-row way
        let keyValues = key.map(\.value)
        if !heldDeletes.rows.isEmpty
            && (heldDeletes.table?.name != table.name || heldDeletes.file != file
                || !heldDeletes.keyColumns.elementsEqual(key.lazy.map(\.column))
                || heldDeletes.keys.contains(keyValues))
        {
            try flushDeletes()
        }
        // Bound per row: its position, mask and key, and every held row's `from` columns, to find
        // and check it; its position, rowid and the values a referring column holds to check its referrers.
        let targets = try referrerChecks(of: table).map(\.targets.count).max() ?? 0
        let newColumns = resolved ? HeldDeletes.newColumns(resolution.values, beside: heldDeletes.fromColumns) : 0
        func width(_ from: Int) -> Int { max(HeldDeletes.fetchWidth(key: key.count, from: from), 2 + targets) }
        if !heldDeletes.rows.isEmpty
            && (heldDeletes.rows.count + 1) * width(heldDeletes.fromColumns.count + newColumns)
                > MultiRowInsert.parameterLimit
        {
            try flushDeletes()
        }
        if heldDeletes.rows.isEmpty {
            heldDeletes.table = table
            heldDeletes.file = file
            heldDeletes.keyColumns = key.map(\.column)
        }
        if resolved { for (column, _) in resolution.values { heldDeletes.fromColumns.insert(SQLName(column)) } }
        heldDeletes.keys.insert(keyValues)
        heldDeletes.rows.append(
            HeldDeletes.Row(
                change: change, slot: slot, key: key, fields: fields, from: resolved ? resolution.values : nil,
                errorsAt: errors.count))
        if heldDeletes.rows.count >= HeldDeletes.rowsPerBatch(width: width(heldDeletes.fromColumns.count)) {
            try flushDeletes()
        }
    }

    /// Settles what ``delete(_:from:file:deferring:)`` decided for the row in `slot`.
    mutating func settleDelete(
        _ outcome: DeleteOutcome, _ change: DataChanges.RowChange, table: TableInfo, file: String, slot: Slot
    ) {
        switch outcome {
        case .done(let event): fill(slot, event)
        case .blocked(var blocked):
            blocked.slot = slot
            blockedDeletes.append(blocked)
        case .waiting:
            deferredDeletes.append(
                DeferredDelete(change: change, table: table, file: file, slot: slot, operationName: operationName))
        }
    }

    /// Finds, checks and deletes the held rows (see MigrationRun+BatchDelete.swift): each run of
    /// rows that may go by one DELETE, and each other row the one-row way, in the rows' order.
    mutating func flushDeletes() throws {
        guard !heldDeletes.rows.isEmpty, let table = heldDeletes.table else { return }
        let batch = heldDeletes.rows
        let file = heldDeletes.file
        heldDeletes.rows.removeAll(keepingCapacity: true)
        heldDeletes.keys.removeAll(keepingCapacity: true)
        heldDeletes.fromColumns.removeAll(keepingCapacity: true)
        let found = try fetchBatch(table, batch)
        var clean = [Bool](repeating: false, count: batch.count)
        // Two keys that find one row (a NOCASE key): the second goes the one-row way, after the first.
        var seen = Set<SQLValue>()
        for index in batch.indices {
            guard let current = found[index], current.holds else { continue }
            clean[index] = seen.insert(current.rowid).inserted
        }
        for index in try referencedRows(of: table, found, among: clean) { clean[index] = false }
        var moved = 0
        var start = 0
        while start < batch.count {
            var end = start
            var rowids: [(column: String, value: SQLValue)] = []
            while end < batch.count, clean[end], let rowid = found[end]?.rowid {
                rowids.append(("rowid", rowid))
                end += 1
            }
            var deleted = false
            if !rowids.isEmpty {
                memo.wroteRows(table.name)
                deleted = try deleteRowids(rowids, from: table)
            }
            var oneByOne = Array(start..<end).filter { _ in !deleted }
            if end < batch.count { oneByOne.append(end) }
            if deleted {
                for row in batch[start..<end] {
                    if lists(.deleted, in: row.slot) {
                        fill(
                            row.slot,
                            event(.deleted, table, line: row.change.line, file: file, key: row.fields, "deleted"))
                    } else {
                        unlist(.deleted, in: row.slot)
                    }
                }
            }
            for index in oneByOne {
                let row = batch[index]
                let before = errors.count
                settleDelete(
                    try delete(row.change, from: table, file: file), row.change, table: table, file: file,
                    slot: row.slot)
                placeErrors(since: before, at: row.errorsAt, moved: &moved)
            }
            start = max(end + 1, start + 1)
        }
    }

    /// Moves the errors a held row's one-row write added (from `before`) to where the one-row way
    /// would have put them: at `errorsAt`, before those of rows held after it, shifted by the
    /// `moved` errors of earlier held rows of the same flush.
    mutating func placeErrors(since before: Int, at errorsAt: Int, moved: inout Int) {
        guard errors.count > before else { return }
        let added = errors[before...]
        errors.removeSubrange(before...)
        errors.insert(contentsOf: added, at: errorsAt + moved)
        moved += added.count
    }

    /// The held rows as stored, by their position in `batch`: rowid, whether they hold their
    /// `from`, and the columns referring rows hold; nil for a row not there once (missing, or a
    /// duplicate key).
    private mutating func fetchBatch(_ table: TableInfo, _ batch: [HeldDeletes.Row]) throws -> [FoundRow?] {
        var wanted: [String] = []
        for check in try referrerChecks(of: table) {
            for target in check.targets where target != Self.rowidKey {
                if let column = table.column(target.lowered)?.name { wanted.append(column) }
            }
        }
        return try fetchRows(
            table, keyColumns: heldDeletes.keyColumns, keys: batch.map(\.key), from: batch.map(\.from), columns: wanted)
    }

    /// The positions of the rows among `candidates` that a row (other than itself) still refers
    /// to, by one statement per referring column; each column counted as read once per row, as
    /// ``referrer(of:in:excluding:)`` counts it (``findReferrersByIndex(_:_:id:)``).
    private mutating func referencedRows(of table: TableInfo, _ found: [FoundRow?], among candidates: [Bool]) throws
        -> Set<Int>
    {
        var referenced = Set<Int>()
        for check in try referrerChecks(of: table) {
            var values: [SQLValue] = []
            var rows = 0
            for (index, row) in found.enumerated() where candidates[index] && !referenced.contains(index) {
                guard let row else { continue }
                let targets = check.targets.map { $0 == Self.rowidKey ? row.rowid : row.stored[$0] ?? .null }
                if targets.contains(.null) { continue }
                try findReferrersByIndex(check.child, check.columns, id: check.id)
                values.append(.integer(Int64(index)))
                values.append(row.rowid)
                values += targets
                rows += 1
            }
            guard rows > 0 else { continue }
            let width = 2 + check.targets.count
            let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
            var conditions = check.columns.enumerated().map { "c.\(quoteIdentifier($1)) = v.column\($0 + 3)" }
            if check.child.name.isSameName(as: table.name), let rowid = check.child.rowIDName {
                conditions.append("c.\(rowid) IS NOT v.column2")
            }
            let sql =
                "SELECT v.column1 FROM (VALUES " + Array(repeating: tuple, count: rows).joined(separator: ", ")
                + ") AS v WHERE EXISTS (SELECT 1 FROM \(quoteIdentifier(check.child.name)) AS c WHERE "
                + conditions.joined(separator: " AND ") + ")"
            for row in try db.cachedStatement(sql: sql).rows(binding: values) {
                if case .integer(let index)? = row.first { referenced.insert(Int(index)) }
            }
        }
        return referenced
    }

    /// `DELETE … WHERE rowid IN (…)`: true when every row went, false (none went) when a
    /// constraint failed; the rows then go one by one.
    ///
    /// - Throws: ``batchMiscount(_:of:changed:)`` (refused) when SQLite deleted another number of rows.
    private mutating func deleteRowids(_ rowids: [(column: String, value: SQLValue)], from table: TableInfo) throws
        -> Bool
    {
        let sql =
            "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(table.rowIDName ?? "rowid") IN ("
            + Array(repeating: "?", count: rowids.count).joined(separator: ", ") + ")"
        let changes: Int
        do {
            changes = try execute(db.cachedStatement(sql: sql), binding: rowids)
        } catch let error as DatabaseError where db.isInsideTransaction && error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
        guard changes == rowids.count else {
            throw Self.batchMiscount("a DELETE of \(rowids.count) rows", of: table.name, changed: changes)
        }
        return true
    }
}

extension MigrationRun {
    /// The refusal (exit 3) of a batch statement that changed another number of rows than it names.
    ///
    /// SQLite says it changed `changed` rows of `table`: something the run did not see (a
    /// trigger) changed what seedkit writes, so the report would name rows SQLite did not change
    /// as written, as ``ChangeAccounting`` refuses a change the report cannot name
    /// (docs/reference.md, "Exit codes"). The caller's transaction rolls back.
    static func batchMiscount(_ statement: String, of table: String, changed: Int) -> SeedError {
        SeedError(
            .refused,
            "SQLite changed \(changed) rows of \(table) for \(statement): something in the store or on its connection (a trigger) changed what seedkit writes, and seedkit reports every row a migration changes; nothing was written"
        )
    }
}
