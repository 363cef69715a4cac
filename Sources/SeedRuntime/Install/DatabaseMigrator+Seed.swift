import Foundation
public import GRDB

extension DatabaseMigrator {
    /// Puts seedkit's data migrations into a GRDB migrator's ordered history, after the
    /// migrations registered so far: one GRDB migration per data migration, named
    /// `seedkit-0002-release-1-2`, applying it as `seedkit migrate` would (user edits kept,
    /// recorded in seedkit's ledger too, so `seedkit status` agrees).
    ///
    /// Data migrations already registered are skipped, so calls interleave with schema steps:
    ///
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("1-schema") { db in try db.execute(sql: schema) }
    /// migrator.registerSeedMigrations(migrations, through: 1, catalog: seedURL)  // 0001
    /// migrator.registerMigration("3-ratings") { db in try db.execute(sql: "ALTER TABLE books ADD COLUMN rating INTEGER") }
    /// migrator.registerSeedMigrations(migrations, catalog: seedURL)              // 0002 and later
    /// try migrator.migrate(pool)
    /// ```
    ///
    /// - parameters:
    ///   - migrations: the bundled migrations (``MigrationDirectory/load(bundle:)`` or ``MigrationDirectory/load(_:)``).
    ///   - last: register up to this number; nil for all.
    ///   - catalog: a seed built by seedkit whose natural keys and refs the migrations use
    ///     (nil: the store's own catalog, or primary keys).
    ///   - options: conflict policy and the like; `options.tables` wins over `catalog`.
    public mutating func registerSeedMigrations(
        _ migrations: [Migration], through last: Int? = nil, catalog: URL? = nil,
        options: SeedMigrator.Options = .init()
    ) {
        let sorted = migrations.sorted { $0.number < $1.number }
        let registered = Set(self.migrations)
        for migration in sorted where last.map({ migration.number <= $0 }) ?? true {
            let identifier = "seedkit-" + migration.id
            guard !registered.contains(identifier) else { continue }
            // Everything up to this one: earlier ones are in the ledger, so only this one is pending.
            let history = sorted.filter { $0.number <= migration.number }
            registerMigration(identifier) { db in
                var options = options
                if options.tables == nil, let catalog {
                    options.tables = try DatabaseQueue(path: catalog.path, configuration: SeedInstaller.readOnly).read {
                        db in try SeedCatalog.tableSpecs(db)
                    }
                }
                let seedMigrator = try SeedMigrator(migrations: history)
                defer { seedMigrator.releaseBytes() }  // a big data update's file: not kept for the app's life
                _ = try seedMigrator.apply(db, options: options)
            }
        }
    }
}
