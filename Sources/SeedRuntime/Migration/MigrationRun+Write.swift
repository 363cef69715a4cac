import GRDB

/// Writing: rows inserted through the dialect or a prepared plain INSERT (skipping a row whose
/// key is there in the same statement where the schema allows), bound directly through SQLite's C API when the run may.
extension MigrationRun {
    /// Inserts a row through the dialect; a plain SQLite INSERT is prepared once per table and
    /// column list.
    ///
    /// Returns the rows SQLite inserted: 0 when a trigger vetoed it (`RAISE(IGNORE)`).
    mutating func write(_ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String) throws
        -> Int
    {
        let changed: Int
        if let statement = memo.statement(
            .insert, table: table.name, operation: name, columns: values.lazy.map { $0.column })
        {
            changed = try execute(statement, binding: values)
        } else if let sql = dialect.plainInsertSQL(into: table, columns: values.map { $0.column }) {
            changed = try execute(
                prepare(
                    RunMemo.Key(kind: .insert, table: table.name, operation: name, columns: values.map { $0.column }),
                    sql: sql), binding: values)
        } else {
            changed = try dialect.insert(
                db, into: table, name: name, values: values, references: parentTables(of: table))
        }
        if changed > 0 { memo.wrote(table.name) }
        return changed
    }

    /// Whether a row of `table` can be inserted unless its `key` is there in one statement
    /// (`INSERT … ON CONFLICT (key) DO NOTHING`) with the same outcome as counting rows with the
    /// key first: plain SQLite, a UNIQUE index or primary key on exactly the key's columns (no
    /// WHERE, no expression, a collation the conflict target matches), no triggers (a BEFORE
    /// INSERT trigger would fire for a row that is then not inserted) and no REPLACE clause.
    ///
    /// A big migration then probes the key's index once per row, not twice.
    mutating func insertsUnlessPresent(_ table: TableInfo, name: String, key: [String]) throws -> Bool {
        if let last = memo.lastConflictTarget, last.id.count == key.count + 2, last.id[0] == table.name,
            last.id[1] == name,
            last.id.dropFirst(2).elementsEqual(key)
        {
            return last.target != nil
        }
        let id = [table.name, name] + key
        if let known = memo.conflictTargets[id] {
            memo.lastConflictTarget = (id, known)
            return known != nil
        }
        var target: String?
        if memo.parentIDs != nil, !key.isEmpty, let sql = dialect.plainInsertSQL(into: table, columns: key) {
            let wanted = Set(key.map(SQLName.init))
            for index in try Row.fetchAll(
                db, sql: "SELECT name, \"unique\" AS isUnique, partial FROM pragma_index_list(?)",
                arguments: [table.name])
            {
                guard index["isUnique"] as Int? == 1, index["partial"] as Int? == 0,
                    let indexName = index["name"] as String?
                else { continue }
                let columns = try String?.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [indexName])
                guard columns.count == wanted.count, Set(columns.compactMap { $0.map(SQLName.init) }) == wanted else {
                    continue
                }
                let named = key.map { quoteIdentifier(table.column($0)?.name ?? $0) }.joined(separator: ", ")
                // SQLite refuses a target whose collation no index has: then count first.
                if (try? db.makeStatement(sql: sql + " ON CONFLICT (\(named)) DO NOTHING")) != nil { target = named }
                break
            }
        }
        memo.conflictTargets[id] = .some(target)
        return target != nil
    }

    /// Inserts a row unless its key is there (see ``insertsUnlessPresent(_:name:key:)``, which
    /// must have said yes); true when it was inserted.
    mutating func writeUnlessPresent(
        _ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String, key: [String]
    ) throws -> Bool {
        let statement: Statement
        if let known = memo.statement(
            .insertUnlessPresent, table: table.name, operation: name, columns: values.lazy.map { $0.column })
        {
            statement = known
        } else {
            guard let sql = dialect.plainInsertSQL(into: table, columns: values.map { $0.column }),
                let target = memo.conflictTargets[[table.name, name] + key] ?? nil
            else {
                throw SeedError(.configuration, "internal: no conflict target for \(table.name)")
            }
            statement = try prepare(
                RunMemo.Key(
                    kind: .insertUnlessPresent, table: table.name, operation: name, columns: values.map { $0.column }),
                sql: sql + " ON CONFLICT (\(target)) DO NOTHING")
        }
        guard try execute(statement, binding: values) > 0 else { return false }
        memo.wrote(table.name)
        return true
    }

    /// Deletes the row with `key` from `table` through the dialect; for plain SQLite, by a
    /// statement prepared once per table and key (a 100,000-row delete built and hashed the
    /// same SQL text for each row), found by its rowid (as ``fetch(_:_:)`` read it) when it has
    /// one, and its key.
    ///
    /// Returns the rows it deleted.
    mutating func deleteRow(_ table: TableInfo, key: [(column: String, value: SQLValue)], rowid: SQLValue?) throws
        -> Int
    {
        guard plainSQLite else {
            return try dialect.delete(db, from: table, key: key, references: parentTables(of: table))
        }
        let byRowid = !table.withoutRowID && rowid.map { if case .integer = $0 { true } else { false } } == true
        let operation = byRowid ? "rowid" : ""
        let statement =
            try memo.statement(.delete, table: table.name, operation: operation, columns: key.lazy.map(\.column))
            ?? prepare(
                RunMemo.Key(kind: .delete, table: table.name, operation: operation, columns: key.map(\.column)),
                sql:
                    "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(byRowid ? "rowid = ? AND " : "")\(keyPredicate(key))"
            )
        if byRowid, let rowid { return try execute(statement, binding: [(column: "rowid", value: rowid)] + key) }
        return try execute(statement, binding: key)
    }

    /// Sets `values` in the row with `key` of `table` through the dialect; for plain SQLite, by
    /// a statement prepared once per table, columns and key, found by its rowid and its key
    /// (see ``deleteRow(_:key:rowid:)``).
    ///
    /// Returns the rows it changed.
    mutating func updateRow(
        _ table: TableInfo, key: [(column: String, value: SQLValue)], rowid: SQLValue?,
        values: [(column: String, value: SQLValue)]
    ) throws -> Int {
        guard plainSQLite else {
            return try dialect.update(db, table: table, key: key, values: values, references: parentTables(of: table))
        }
        let byRowid = !table.withoutRowID && rowid.map { if case .integer = $0 { true } else { false } } == true
        // The columns set, then (after a name no column has) the key's.
        var columns = values.map(\.column)
        columns.append("\u{0}")
        columns += key.map(\.column)
        let operation = byRowid ? "rowid" : ""
        let statement =
            try memo.statement(.update, table: table.name, operation: operation, columns: columns)
            ?? prepare(
                RunMemo.Key(kind: .update, table: table.name, operation: operation, columns: columns),
                sql:
                    "UPDATE OR ABORT \(quoteIdentifier(table.name)) SET \(values.map { "\(quoteIdentifier($0.column)) = ?" }.joined(separator: ", ")) WHERE \(byRowid ? "rowid = ? AND " : "")\(keyPredicate(key))"
            )
        if byRowid, let rowid {
            return try execute(statement, binding: values + [(column: "rowid", value: rowid)] + key)
        }
        return try execute(statement, binding: values + key)
    }

    /// Runs an INSERT with `values` bound: with SQLite's C API alone when the run may
    /// (``SeedMigrator/Options/writesDirectly``), else through GRDB, whose observers see it.
    ///
    /// Returns the rows it changed.
    @discardableResult
    func execute(_ statement: Statement, binding values: [(column: String, value: SQLValue)]) throws -> Int {
        if options.writesDirectly {
            // As GRDB does before each statement: a constraint resolved by ROLLBACK (ON CONFLICT
            // ROLLBACK, a trigger's RAISE(ROLLBACK)) ended the run's transaction, and a row written
            // now would be committed on its own, in a store the failed run must leave unchanged.
            guard db.isInsideTransaction else {
                throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql)
            }
            return try statement.executeDirectly(binding: values)
        }
        try statement.execute(binding: values.lazy.map { $0.value })
        return db.changesCount
    }

    /// Prepares `sql` as the statement for `key` (see ``RunMemo/statements``, where callers look first).
    mutating func prepare(_ key: RunMemo.Key, sql: String) throws -> Statement {
        let statement = try db.makeStatement(sql: sql)
        memo.statements[key] = statement
        return statement
    }
}
