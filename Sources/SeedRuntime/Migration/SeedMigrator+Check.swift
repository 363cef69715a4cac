import GRDB

extension SeedMigrator {
    /// The problems `migrate` would refuse `migrations` with as written (an unknown table or
    /// column, an update without `from:`), found by running their data changes on `db` inside a
    /// savepoint that is rolled back: `build` and `export-migrations` refuse what `migrate
    /// --dry-run` refuses (docs/reference.md, "What build checks"). What depends on a store's
    /// rows (a row missing, a user's edit) is not a problem here; SQL steps are not run.
    ///
    /// - parameters:
    ///   - migrations: the migrations, in order.
    ///   - tables: the manifest's table specs (natural keys and refs).
    ///   - db: a store with the release's schema, inside a transaction.
    /// - returns: the configuration problems, each once, in the order found.
    package static func configurationProblems(
        of migrations: [Migration], tables: [TableSpec], options base: Options = Options(), in db: Database
    ) throws -> [Diagnostic] {
        let data = migrations.filter { if case .changes = $0.body { true } else { false } }
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
}
