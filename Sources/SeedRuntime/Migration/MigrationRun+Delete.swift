import Foundation
import GRDB

/// Deletes of unchanged rows nothing references, and the deletes retried once the migration's other changes are done.
extension MigrationRun {
    /// Retries the deletes that something still referenced, in a loop while one of them goes (a
    /// migration may list a parent before the children it also deletes, in any order).
    ///
    /// At the end of each data migration the blocked ones stay blocked (a row of the run still
    /// waiting for a parent may yet stop referring to them); at the end of the run (`final`), or
    /// before a SQL migration, rows that only each other refer to go together (a cycle through
    /// nullable refs), and what is still referenced then is denied (1600).
    ///
    /// A retry deletes the row the first attempt found and checked against `from` (the
    /// migration's own later changes do not make it a conflict), under the name its operation
    /// used (a Core Data sub-entity's key and `Z_ENT`). Each pass goes from the last blocked to
    /// the first, so that a chain listed parents first goes in one pass.
    mutating func settleBlockedDeletes(final: Bool) throws {
        let operation = operationName
        defer { operationName = operation }
        var progress = true
        while progress && !blockedDeletes.isEmpty {
            progress = false
            var still: [BlockedDelete] = []
            for blocked in blockedDeletes.reversed() {
                operationName = blocked.operationName
                let rows = try fetch(blocked.table, blocked.key)
                guard rows.count == 1, let current = rows.first else {
                    // Gone meanwhile (the migration deleted it twice): nothing left to delete.
                    fill(
                        blocked.slot,
                        RowEvent(
                            kind: .missing, table: blocked.denied.table, key: blocked.denied.key,
                            detail: "not in the store; nothing to delete", file: blocked.file, line: blocked.line))
                    progress = true
                    continue
                }
                switch try deleteUnlessReferenced(
                    current, key: blocked.key, fields: blocked.denied.key, in: blocked.table, file: blocked.file,
                    line: blocked.line)
                {
                case .done(let event):
                    fill(blocked.slot, event)
                    progress = true
                case .blocked(var again):
                    again.slot = blocked.slot
                    still.append(again)
                case .waiting: break  // only delete(_:from:file:deferring:) waits
                }
            }
            blockedDeletes = still.reversed()
        }
        guard final else { return }
        try deleteBlockedTogether()
        for blocked in blockedDeletes {
            fill(blocked.slot, blocked.denied)
            if options.onConflict == .fail { errors.append(blocked.error) }
        }
        blockedDeletes = []
    }

    /// A delete's outcome: done (deleted, missing, a conflict, or nothing on an error), or blocked
    /// by a row that still refers to it.
    enum DeleteOutcome {
        case done(RowEvent?)
        case blocked(BlockedDelete)
        /// Its `from` names a parent not in the store while other changes of the run wait: tried
        /// again at the end of the run (a rename that waits for a parent brings the key later).
        case waiting
    }

    /// A delete tried again at the end of the run (``DeleteOutcome/waiting``).
    struct DeferredDelete {
        var change: DataChanges.RowChange
        var table: TableInfo
        var file: String
        var slot: Slot
        var operationName: String
    }

    /// An update whose `from` named a parent not in the store while other changes of the run
    /// waited: tried again once they are settled (``retryDeferredUpdates()``).
    struct DeferredUpdate {
        var change: DataChanges.RowChange
        var table: String
        var file: String
        var slot: Slot?
    }

    /// Tries the deferred updates again, once what waited is settled (a rename that waited for a
    /// parent has run): applied, waiting again for a `to` parent (settled once more), or, if
    /// their `from` still names a missing parent, the conflict they were.
    ///
    /// - Parameter settling: settle what waits afterwards (at the end of the run; not before a
    ///   SQL migration, which may still insert the parents rows wait for).
    /// - Throws: a database error from SQLite; the caller's transaction is then rolled back.
    mutating func retryDeferredUpdates(settling: Bool = true) throws {
        guard !deferredUpdates.isEmpty else { return }
        let operation = operationName
        defer { operationName = operation }
        deferringUpdates = false
        defer { deferringUpdates = true }
        let deferred = deferredUpdates
        deferredUpdates = []
        for entry in deferred {
            operationName = entry.table
            let table = try tableInfo(entry.table, file: entry.file)
            try settle(
                .update(change: entry.change, table: entry.table, file: entry.file), slot: entry.slot,
                try update(entry.change, in: table, file: entry.file, slot: entry.slot))
        }
        if settling { try settleWaiting() }
    }

    /// Tries the deferred deletes again, once what waited is settled: done, blocked (settled with
    /// the others), or, if their `from` still names a missing parent, a conflict as before.
    mutating func retryDeferredDeletes() throws {
        let operation = operationName
        defer { operationName = operation }
        let deferred = deferredDeletes
        deferredDeletes = []
        for entry in deferred {
            operationName = entry.operationName
            switch try delete(entry.change, from: entry.table, file: entry.file, deferring: false) {
            case .done(let event): fill(entry.slot, event)
            case .blocked(var blocked):
                blocked.slot = entry.slot
                blockedDeletes.append(blocked)
            case .waiting: break
            }
        }
    }

    /// A delete a row still refers to: the row it found (by its resolved key), and what to report if it stays blocked.
    struct BlockedDelete {
        var slot = Slot(migration: 0, index: 0)
        var operationName: String
        var table: TableInfo
        var key: [(column: String, value: SQLValue)]
        var file: String
        var line: Int
        var denied: RowEvent
        var error: Diagnostic
    }

    mutating func delete(_ change: DataChanges.RowChange, from table: TableInfo, file: String, deferring: Bool = true)
        throws -> DeleteOutcome
    {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else {
            return .done(nil)
        }
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            return .done(
                rows.isEmpty
                    ? event(
                        .missing, table, line: change.line, file: file, key: fields,
                        "not in the store; nothing to delete")
                    : event(
                        .conflict, table, line: change.line, file: file, key: fields,
                        "\(rows.count) rows have this key; none deleted"))
        }
        let errorCount = errors.count
        let resolution = try resolve(change.from, in: table)
        if errors.count > errorCount { return .done(nil) }
        if let parent = resolution.missing.first {
            if deferring && !queue.open.isEmpty { return .waiting }
            return .done(
                conflict(
                    table, line: change.line, file: file, key: fields,
                    "its 'from' \(missingText(parent)); row not deleted"))
        }
        let from = resolution.values
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(
                from: written(from, as: change.from), to: [], current: current, applied: false, in: table)
            return .done(
                conflict(
                    table, line: change.line, file: file, key: fields, changes: changes,
                    "changed in the store (\(changed)); not deleted"))
        }
        return try deleteUnlessReferenced(current, key: key, fields: fields, in: table, file: file, line: change.line)
    }

    /// Deletes `current` (found by `key`, checked against `from`) unless a row other than those
    /// `excluding` names (SQL table → rowids) still refers to it.
    mutating func deleteUnlessReferenced(
        _ current: StoredRow, key: [(column: String, value: SQLValue)], fields: [RowEvent.KeyValue],
        in table: TableInfo, file: String, line: Int, excluding: [SQLName: Set<Int64>] = [:]
    ) throws -> DeleteOutcome {
        // Many-to-many links follow the relationships' deletion rules (Nullify: they go with the row).
        var reason = try coreData?.manyToManyDeleteBlock(db, row: { current[SQLName($0)] })
        if reason == nil {
            reason = try referrer(of: current, in: table, excluding: excluding).map { "still referenced by \($0)" }
        }
        // Every other column the model says can point at the row: a to-one without an inverse,
        // an inverse-less to-many kept on the other side (docs/core-data.md, "Deletes and pointers to a row").
        if reason == nil, let coreData {
            reason = try coreData.pointerDeleteBlock(db, row: { current[SQLName($0)] })
        }
        if let reason {
            return .blocked(
                BlockedDelete(
                    operationName: operationName, table: table, key: key, file: file, line: line,
                    denied: RowEvent(
                        kind: .deleteDenied, table: written(table), key: fields, detail: "\(reason); not deleted",
                        file: file, line: line),
                    error: Diagnostic(
                        file: file, line: line, code: .deleteDenied,
                        message: "cannot delete \(written(table)) \(RowEvent.describe(key: fields)): \(reason)",
                        table: table.name)))
        }
        if coreData == nil { memo.wroteRows(table.name) } else { memo.changedRows() }
        guard try deleteRow(table, key: key, rowid: current[Self.rowidKey]) > 0 else {
            return .done(
                conflict(
                    table, line: line, file: file, key: fields,
                    "not deleted: \(try TriggerVeto.reason(db, table: table.name, event: "DELETE"))"))
        }
        return .done(event(.deleted, table, line: line, file: file, key: fields, "deleted"))
    }

    /// The blocked deletes whose rows only other blocked rows refer to (rows of the migration
    /// that refer to each other, through nullable refs): deleted together, their foreign keys
    /// checked at the commit.
    ///
    /// Plain SQLite stores, without an `ON DELETE` action on a foreign key to their tables
    /// (deleting one of them first would make SQLite change the others).
    mutating func deleteBlockedTogether() throws {
        guard coreData == nil, !blockedDeletes.isEmpty else { return }
        let operation = operationName
        defer { operationName = operation }
        var group: [(blocked: BlockedDelete, row: StoredRow)] = []
        for blocked in blockedDeletes {
            operationName = blocked.operationName
            let rows = try fetch(blocked.table, blocked.key)
            if rows.count == 1, let row = rows.first, case .integer? = row[Self.rowidKey] {
                group.append((blocked, row))
            }
        }
        let tables = Set(group.map { SQLName($0.blocked.table.name) })
        for child in try TableInfo.userTables(db) {
            for action in try db.sqlRows(
                "SELECT \"table\", on_delete FROM pragma_foreign_key_list(?)", binding: [.text(child)])
            {
                guard case .text(let parent)? = action.first, tables.contains(SQLName(parent)) else { continue }
                if case .text(let rule)? = action.last, !["NO ACTION", "RESTRICT"].contains(rule.uppercased()) {
                    return
                }
            }
        }
        // Leave out, until none is left to leave out, each row that a row outside the group refers to.
        var changed = true
        while changed && !group.isEmpty {
            changed = false
            let excluded = Self.rowids(group.map { ($0.blocked.table, $0.row) })
            for (position, member) in group.enumerated().reversed() {
                operationName = member.blocked.operationName
                if try referrer(of: member.row, in: member.blocked.table, excluding: excluded) != nil {
                    group.remove(at: position)
                    changed = true
                }
            }
        }
        guard !group.isEmpty else { return }
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        let excluded = Self.rowids(group.map { ($0.blocked.table, $0.row) })
        var gone = Set<Slot>()
        for member in group {
            let blocked = member.blocked
            operationName = blocked.operationName
            guard
                case .done(let event) = try deleteUnlessReferenced(
                    member.row, key: blocked.key, fields: blocked.denied.key, in: blocked.table, file: blocked.file,
                    line: blocked.line, excluding: excluded)
            else { continue }
            fill(blocked.slot, event)
            gone.insert(blocked.slot)
        }
        blockedDeletes.removeAll { gone.contains($0.slot) }
    }

    /// SQL table → the rowids of `rows`.
    static func rowids(_ rows: [(table: TableInfo, row: StoredRow)]) -> [SQLName: Set<Int64>] {
        var result: [SQLName: Set<Int64>] = [:]
        for (table, row) in rows {
            if case .integer(let rowid)? = row[rowidKey] { result[SQLName(table.name), default: []].insert(rowid) }
        }
        return result
    }
}
