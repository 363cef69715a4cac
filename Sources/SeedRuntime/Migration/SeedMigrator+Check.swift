import GRDB

extension SeedMigrator {
    /// The problems `migrate` would refuse `migrations` with as written (an unknown table or
    /// column, an update without `from:`), found by running their data changes on `db` inside a
    /// savepoint that is rolled back: `build` and `export-migrations` refuse what `migrate
    /// --dry-run` refuses (docs/reference.md, "What build checks").
    ///
    /// What depends on a store's rows (a row missing, a user's edit) is not a problem here; SQL
    /// steps are not run.
    ///
    /// - parameters:
    ///   - migrations: the migrations, in order.
    ///   - tables: the manifest's table specs (natural keys and refs).
    ///   - base: the run's options (the validator, the Core Data facts), its tables set to `tables`.
    ///   - db: a store with the release's schema, inside a transaction.
    /// - returns: the configuration problems, each once, in the order found.
    /// - throws: a database error when the store cannot be read.
    package static func configurationProblems(
        of migrations: [Migration], tables: [TableSpec], options base: Options = Options(), in db: Database
    ) throws -> [Diagnostic] {
        let data = migrations.filter { if case .changes = $0.body { true } else { false } }.map {
            sampled($0, tables: tables)
        }
        guard !data.isEmpty else { return [] }
        var options = base
        options.tables = tables
        try db.execute(sql: "SAVEPOINT seedkit_migration_check")
        defer {
            try? db.execute(sql: "ROLLBACK TO seedkit_migration_check")
            try? db.execute(sql: "RELEASE seedkit_migration_check")
        }
        var problems: [Diagnostic] = []
        do {
            var run = try MigrationRun(db: db, options: options)
            for migration in data { try run.apply(migration) }
            _ = try run.finish(wholeStore: false)
        } catch let error as SeedError {
            for diagnostic in error.diagnostics
            where (diagnostic.code == .configuration || diagnostic.code == .unknownColumn)
                && !problems.contains(diagnostic)
            {
                problems.append(diagnostic)
            }
        }
        return problems
    }

    /// `migration` with one row of each shape per operation: what `migrate` refuses as
    /// configuration depends on the tables, the columns a row names and the kinds of its values
    /// (none, one value, or a list or object, whose members are names too and kept whole), not on
    /// the scalar values themselves, so the check's cost follows the
    /// release's shapes rather than its rows (issue 45: a 150k-row release checked by every build).
    ///
    /// Updates that change a key column are all kept: whether a rename is a swap depends on the
    /// keys (a table without a natural key keeps every update).
    static func sampled(_ migration: Migration, tables: [TableSpec]) -> Migration {
        guard case .changes(let changes) = migration.body else { return migration }
        func tag(_ value: InputValue) -> String {
            switch value {
            case .null: return "n"
            // A composite's members are names a row gives (an unknown one is refused): the whole text.
            case .json(let text): return "j:" + text
            default: return "v"
            }
        }
        func shape(_ row: DataChanges.RowValues) -> String {
            row.values.map { "\($0.column.lowercasedName)=\(tag($0.value))" }.sorted().joined(separator: ",")
        }
        func shape(_ change: DataChanges.RowChange) -> String {
            let key: String
            switch change.key {
            case .single(let value): key = "1=" + tag(value)
            case .columns(let row): key = shape(row)
            }
            return [key, shape(change.from), shape(change.to)].joined(separator: "|")
        }
        var seen: Set<String> = []
        var operations: [DataChanges.Operation] = []
        for (index, operation) in changes.operations.enumerated() {
            let prefix = "\(index)|"
            switch operation {
            case .insert(let table, let rows):
                operations.append(.insert(table: table, rows: rows.filter { seen.insert(prefix + shape($0)).inserted }))
            case .update(let table, let rows):
                let key = tables.first { $0.name.isSameName(as: table) }?.key ?? []
                operations.append(
                    .update(
                        table: table,
                        changes: rows.filter { change in
                            key.isEmpty
                                || change.to.values.contains { value in key.contains { $0.isSameName(as: value.column) }
                                }
                                || seen.insert(prefix + shape(change)).inserted
                        }))
            case .delete(let table, let rows):
                operations.append(
                    .delete(table: table, changes: rows.filter { seen.insert(prefix + shape($0)).inserted }))
            }
        }
        var sample = migration
        sample.body = .changes(DataChanges(operations: operations))
        return sample
    }
}
