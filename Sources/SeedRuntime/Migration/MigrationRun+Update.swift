import Foundation
import GRDB

/// Updates where the row still holds `from`, and renames: the row keeps its identity and what refers to it follows.
extension MigrationRun {
    /// Updates a row where it still holds `from`.
    ///
    /// An update may change key columns (a rename): the row keeps its identity, and rows that store
    /// the renamed value follow it.
    mutating func update(_ change: DataChanges.RowChange, in table: TableInfo, file: String, slot: Slot?) throws
        -> Attempt
    {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else {
            return .done
        }
        // For messages only: not worked out for each of 100,000 rows that need none.
        var keyText: String { RowEvent.describe(key: fields) }
        if dialect is CoreDataDialect,
            let column = change.to.values.map(\.column).first(where: {
                table.column(storeColumn($0, in: table)) == nil
                    && specs.writtenRef(table.name, SQLName(storeColumn($0, in: table))) != nil
            })
        {
            errors.append(
                Diagnostic(
                    file: file, line: change.line, code: .configuration,
                    message:
                        "update of \(written(table)) \(keyText) changes the many-to-many relationship '\(column)', which seedkit does not change in updates yet; nothing was written",
                    table: table.name))
            return .done
        }
        for column in change.to.values.map(\.column) where change.from[column] == nil {
            errors.append(
                Diagnostic(
                    file: file, line: change.line, code: .configuration,
                    message:
                        "update of \(written(table)) \(keyText) sets '\(column)' without a 'from' value; add what the previous seed shipped, so that a user's edit is never overwritten",
                    table: table.name))
            return .done
        }
        let errorCount = errors.count
        let fromResolution = try resolve(change.from, in: table)
        let toResolution = try resolve(change.to, in: table)
        if errors.count > errorCount { return .done }
        // A new parent that a later change of the run inserts: wait for it. A rename brings its
        // new key (rows waiting for that key wait for this update, not for a row nobody inserts).
        if !toResolution.missing.isEmpty {
            return .waiting(
                key: fields, missing: toResolution.missing, provides: providedKeys(table, toResolution.values))
        }
        if let parent = fromResolution.missing.first {
            // A parent a waiting change may still bring (a rename's new key): tried again at the end of the run.
            if deferringUpdates && !queue.open.isEmpty {
                deferredUpdates.append(
                    DeferredUpdate(change: change, table: operationName, file: file, slot: slot))
                return .done
            }
            fill(
                slot,
                conflict(
                    table, line: change.line, file: file, key: fields,
                    "its 'from' \(missingText(parent)); row not updated"))
            return .done
        }
        let from = fromResolution.values
        let to = toResolution.values
        let newKey = key.map { part in
            to.first { $0.column.isSameName(as: part.column) }.map { (column: part.column, value: $0.value) } ?? part
        }
        let renames = !zip(key, newKey).allSatisfy { $0.value.isSame(as: $1.value) }
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            if rows.isEmpty, renames, let renamed = try fetch(table, newKey).first, matches(renamed, to) {
                fill(
                    slot,
                    event(
                        .upToDate, table, line: change.line, file: file, key: fields,
                        "already up to date (renamed to \(try describeKey(newKey, in: table, input: change.to)))"))
                return .done
            }
            fill(
                slot,
                rows.isEmpty
                    ? event(
                        .missing, table, line: change.line, file: file, key: fields,
                        "not in the store (deleted by the user?); nothing to update")
                    : event(
                        .conflict, table, line: change.line, file: file, key: fields,
                        "\(rows.count) rows have this key; none updated"))
            return .done
        }
        if matches(current, to) {
            fill(slot, event(.upToDate, table, line: change.line, file: file, key: fields, "already up to date"))
            return .done
        }
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(
                from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false,
                in: table)
            fill(
                slot,
                conflict(
                    table, line: change.line, file: file, key: fields, changes: changes,
                    "changed in the store (\(changed)); the store's values are kept"))
            return .done
        }
        // The row itself is not "another row": a NOCASE key renamed to its own other case matches it.
        if renames, try hasRow(table, newKey, excluding: Self.rowids(of: current)) {
            if let later = try renamedAwayLater(newKey, in: table, file: file) {
                // A swap or rotation: SQLite holds one row per key at every step, so applying these
                // one by one would leave each a conflict and record the migration as applied.
                let target = try describeKey(newKey, in: table, input: change.to)
                errors.append(
                    Diagnostic(
                        file: file, line: change.line, code: .configuration,
                        message: """
                            update of \(written(table)) \(keyText) renames it to \(target), which the update at line \(later.line) renames away later in this migration: \
                            a key is held by one row at every step. List that update first; for a swap or a rotation, rename through a key no row has \
                            (A → A-old, B → A, A-old → B); nothing was written
                            """, table: table.name))
                return .done
            }
            let changes = try columnChanges(
                from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false,
                in: table)
            fill(
                slot,
                conflict(
                    table, line: change.line, file: file, key: fields, changes: changes,
                    "the new key \(try describeKey(newKey, in: table, input: change.to)) is already taken by another row; not renamed"
                ))
            return .done
        }
        if let validator = options.validator {
            errors += validator.validate(
                table: written(table), values: written(to, as: change.to), file: file, line: change.to.line)
        }
        if let coreData {
            let archived = coreData.unwritableValues(entity: written(table), values: to)
            for (attribute, type) in archived {
                errors.append(
                    Diagnostic(
                        file: file, line: change.to.line, code: .unknownColumn,
                        message: CoreDataDialect.unwritableMessage(
                            entity: written(table), attribute: attribute, type: type), table: table.name))
            }
            let wrongCases = coreData.wrongEnumCases(entity: written(table), values: to)
            for (attribute, value, name) in wrongCases {
                errors.append(
                    Diagnostic(
                        file: file, line: change.to.line, code: .otherRule,
                        message: CoreDataDialect.wrongEnumCaseMessage(
                            entity: written(table), attribute: attribute, value: value, name: name), table: table.name))
            }
            let notArchives = coreData.invalidArchives(entity: written(table), values: to)
            for (attribute, why) in notArchives {
                errors.append(
                    Diagnostic(
                        file: file, line: change.to.line, code: .otherRule,
                        message: "\(written(table)): " + CoreDataDialect.archiveMessage(attribute: attribute, why: why),
                        table: table.name))
            }
            if !archived.isEmpty || !wrongCases.isEmpty || !notArchives.isEmpty { return .done }
            let missingAttributes = coreData.missingRequired(
                entity: written(table), table: table, values: to, inserting: false)
            for attribute in missingAttributes {
                errors.append(
                    Diagnostic(
                        file: file, line: change.to.line, code: .missingRequired,
                        message: CoreDataDialect.requiredMessage(
                            entity: written(table), key: keyText, attribute: attribute, action: "not updated"),
                        table: table.name))
            }
            if !missingAttributes.isEmpty { return .done }
        }
        // A rename changes the rows that store the old key too (``followRename(of:row:to:)``).
        if coreData == nil && !renames { memo.wroteRows(table.name) } else { memo.changedRows() }
        do {
            // The row first, then what refers to it by value: nothing of theirs moves unless the row did.
            if renames { try db.execute(sql: "PRAGMA defer_foreign_keys = ON") }
            guard try updateRow(table, key: key, rowid: current[Self.rowidKey], values: to) > 0
            else {
                let changes = try columnChanges(
                    from: written(from, as: change.from), to: written(to, as: change.to), current: current,
                    applied: false, in: table)
                fill(
                    slot,
                    conflict(
                        table, line: change.line, file: file, key: fields, changes: changes,
                        "not updated: \(try TriggerVeto.reason(db, table: table.name, event: "UPDATE"))"))
                return .done
            }
            if renames { try followRename(of: table, row: current, to: to) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            var merged = current.map { (column: $0.key.lowered, value: $0.value) }
            merged.removeAll { row in to.contains { $0.column.isSameName(as: row.column) } }
            if let collision = try schemaCollision(error, in: table, values: merged + to) {
                let changes = try columnChanges(
                    from: written(from, as: change.from), to: written(to, as: change.to), current: current,
                    applied: false, in: table)
                fill(
                    slot,
                    conflict(
                        table, line: change.line, file: file, key: fields, changes: changes, "not updated: \(collision)"
                    ))
                return .done
            }
            errors.append(
                Diagnostic(
                    file: file, line: change.line, code: constraintCode(error),
                    message: "cannot update \(written(table)) \(keyText): \(error.message ?? "constraint failed")",
                    table: table.name))
            return .done
        }
        if lists(.updated, in: slot) {
            var described: [String] = []
            // Each column by the name the migration gave it (`pages`, `Shelf.books`), not the store's (`ZPAGES`).
            for ((column, value), name) in zip(to, written(to, as: change.to).map(\.column)) {
                // A column set to what it holds (an enum's other cases, given as its case's name) is no change to show.
                if (current[SQLName(column)] ?? .null).isSame(as: value) { continue }
                let (oldShown, newShown) = try shownSideBySide(
                    current[SQLName(column)] ?? .null, value, column: column, in: table)
                described.append("\(name) \(oldShown) → \(newShown)")
            }
            let description = described.joined(separator: ", ")
            let changes = try columnChanges(
                from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: true,
                in: table)
            fill(
                slot, event(.updated, table, line: change.line, file: file, key: fields, changes: changes, description))
        } else {
            // Past the report's sample: counted, and not described (a ref's parent key looked up
            // for each side of each row cost more than the update itself; issue 45).
            unlist(.updated, in: slot)
        }
        if renames {
            var values = current.filter { $0.key != Self.rowidKey }.map { (column: $0.key.lowered, value: $0.value) }
            values += to
            queue.appeared(table.name, values)
        }
        return .done
    }

    /// The rowid ``fetch(_:_:)`` read with `row` (none for a WITHOUT ROWID table).
    static func rowids(of row: StoredRow) -> Set<Int64> {
        guard case .integer(let rowid)? = row[rowidKey] else { return [] }
        return [rowid]
    }

    /// The later update of the operation being applied whose key is `key` and which changes it
    /// (renames that row away), if one does.
    mutating func renamedAwayLater(_ key: [(column: String, value: SQLValue)], in table: TableInfo, file: String) throws
        -> DataChanges.RowChange?
    {
        let errorCount = errors.count
        defer { errors.removeSubrange(errorCount...) }  // a later update's own problems are reported when it is applied
        for later in laterUpdates {
            guard let (laterKey, _) = try resolveKey(later.key, in: table, file: file, line: later.line),
                zip(laterKey, key).allSatisfy({ $0.value.isSame(as: $1.value) })
            else { continue }
            let renamed = laterKey.contains { part in
                later.to.values.contains {
                    $0.column.isSameName(as: part.column)
                        || storeColumn($0.column, in: table).isSameName(as: part.column)
                }
            }
            if renamed { return later }
        }
        return nil
    }

    mutating func describeKey(
        _ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues
    ) throws -> String {
        RowEvent.describe(key: try keyFields(key, in: table, input: input))
    }

    /// Rows that store a renamed column's value (a FOREIGN KEY or a manifest ref to that column,
    /// not to the row's id) are changed to the new value, so that they still point at the row.
    mutating func followRename(of table: TableInfo, row current: StoredRow, to: [(column: String, value: SQLValue)])
        throws
    {
        let changed = to.filter { !(current[SQLName($0.column)] ?? .null).isSame(as: $0.value) }
        var followers: [(child: String, column: String, old: SQLValue, new: SQLValue)] = []
        for childName in try TableInfo.userTables(db) {
            let child = try tableInfo(childName, file: "")
            var columns = Set<String>()
            for key in child.foreignKeys where key.columns.count == 1 && key.parent.isSameName(as: table.name) {
                columns.insert(key.columns[0])
            }
            for (column, reference) in references(of: childName) where reference.table.isSameName(as: table.name) {
                columns.insert(child.column(column.lowered)?.name ?? column.lowered)
            }
            for column in columns.sorted() {
                guard let target = child.referencedColumn(of: column, in: table).map(SQLName.init),
                    let new = changed.first(where: { target.matches($0.column) }), let old = current[target],
                    old != .null
                else { continue }
                followers.append((child.name, column, old, new.value))
            }
        }
        guard !followers.isEmpty else { return }
        // The parent and its children change one after the other: check foreign keys at commit.
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        for follower in followers {
            try db.execute(
                "UPDATE \(quoteIdentifier(follower.child)) SET \(quoteIdentifier(follower.column)) = ? WHERE \(quoteIdentifier(follower.column)) IS ?",
                binding: [follower.new, follower.old])
        }
    }
}
