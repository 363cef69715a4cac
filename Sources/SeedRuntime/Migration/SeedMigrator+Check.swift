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
    ///
    /// A sample's sample is itself: a caller may pass ``configurationProblems(of:tables:options:in:)``
    /// migrations sampled ahead (`build` samples them on the thread that reads them).
    package static func sampled(_ migration: Migration, tables: [TableSpec]) -> Migration {
        guard case .changes(let changes) = migration.body else { return migration }
        // A shape is the (column, kind) pairs of each part, sorted, each column by its lowercased
        // name: numbered as first met, so that a row costs a lookup per column, not strings.
        var columnNumbers: [String: Int] = [:]
        var lowercasedNumbers: [String: Int] = [:]
        var texts: [String: Int] = [:]
        func column(_ name: String) -> Int {
            if let known = columnNumbers[name] { return known }
            let lowercased = name.lowercasedName
            let number = lowercasedNumbers[lowercased] ?? lowercasedNumbers.count
            lowercasedNumbers[lowercased] = number
            columnNumbers[name] = number
            return number
        }
        func tag(_ value: InputValue) -> Int {
            switch value {
            case .null: return 0
            // A composite's members are names a row gives (an unknown one is refused): the whole text.
            case .json(let text):
                if let known = texts[text] { return 2 + known }
                texts[text] = texts.count
                return 1 + texts.count
            default: return 1
            }
        }
        func add(_ row: DataChanges.RowValues, to shape: inout [Int]) {
            let start = shape.count
            for (name, value) in row.values { shape.append(column(name) << 32 | tag(value)) }
            shape[start...].sort()
        }
        func shape(_ index: Int, _ row: DataChanges.RowValues) -> [Int] {
            var shape = [index]
            add(row, to: &shape)
            return shape
        }
        func shape(_ index: Int, _ change: DataChanges.RowChange) -> [Int] {
            var shape = [index]
            switch change.key {
            case .single(let value): shape += [-3, tag(value)]
            case .columns(let row): add(row, to: &shape)
            }
            shape.append(-1)
            add(change.from, to: &shape)
            shape.append(-2)
            add(change.to, to: &shape)
            return shape
        }
        var seen: Set<[Int]> = []
        var operations: [DataChanges.Operation] = []
        for (index, operation) in changes.operations.enumerated() {
            switch operation {
            case .insert(let table, let rows):
                operations.append(.insert(table: table, rows: rows.filter { seen.insert(shape(index, $0)).inserted }))
            case .update(let table, let rows):
                let key = tables.first { $0.name.isSameName(as: table) }?.key ?? []
                var keyColumns: [String: Bool] = [:]  // by the name as written
                func isKey(_ name: String) -> Bool {
                    if let known = keyColumns[name] { return known }
                    let answer = key.contains { $0.isSameName(as: name) }
                    keyColumns[name] = answer
                    return answer
                }
                operations.append(
                    .update(
                        table: table,
                        changes: rows.filter { change in
                            key.isEmpty || change.to.values.contains { isKey($0.column) }
                                || seen.insert(shape(index, change)).inserted
                        }))
            case .delete(let table, let rows):
                operations.append(
                    .delete(table: table, changes: rows.filter { seen.insert(shape(index, $0)).inserted }))
            }
        }
        var sample = migration
        sample.body = .changes(DataChanges(operations: operations))
        return sample
    }
}
