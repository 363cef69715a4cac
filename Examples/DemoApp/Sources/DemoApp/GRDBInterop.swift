import Foundation
import GRDB
import SeedRuntime

// GRDB interop: the app's own DatabasePool, and seedkit migrations inside a DatabaseMigrator.
func runGRDBExamples() {
    do {
        try withAppsOwnPool()
        try withDatabaseMigrator()
    } catch {
        print("GRDB example failed: \(error)")
    }
}

// snippet: pool
/// The app opens its store itself (WAL mode); seedkit fills it on first launch, migrates it later.
func withAppsOwnPool() throws {
    let poolURL = root.appendingPathComponent("Pool/BookStore.sqlite")
    try FileManager.default.createDirectory(at: poolURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    let pool = try DatabasePool(path: poolURL.path)
    let installer = SeedInstaller(seed: seed, migrations: try MigrationDirectory.load(bundle: .module))
    let outcome = try installer.prepareStore(in: pool)
    let books = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") ?? 0 }
    print(
        "6. the app's own DatabasePool:",
        outcome == .installedSeed(MigrationReport(migrations: [], dryRun: false)) ? "installed the seed" : "\(outcome)",
        "- books:", books)
}
// end snippet

// snippet: migrator
/// Schema steps and seedkit's data migrations in one ordered history.
func withDatabaseMigrator() throws {
    let queue = try DatabaseQueue()
    let migrations = try MigrationDirectory.load(root.appendingPathComponent("v2/migrations"))
    var migrator = DatabaseMigrator()
    migrator.registerMigration("1-schema") { db in
        try db.execute(
            sql: """
                CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL,
                                    category_id INTEGER NOT NULL REFERENCES categories(id));
                INSERT INTO categories (name) VALUES ('Fiction'), ('Biography');
                INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1);
                """)
    }
    migrator.registerSeedMigrations(migrations, through: 1, catalog: seed)  // seedkit-0001-add-fourth-book
    migrator.registerMigration("3-ratings") { db in
        try db.execute(sql: "ALTER TABLE books ADD COLUMN rating INTEGER")
    }
    migrator.registerSeedMigrations(migrations, catalog: seed)  // seedkit-0002-reprice
    try migrator.migrate(queue)
    try queue.read { db in
        print("7. DatabaseMigrator:", try migrator.appliedMigrations(db))
        print("   seedkit ledger:", try MigrationLedger.entries(db).map(\.id))
        print("   books:", try String.fetchAll(db, sql: "SELECT title || ' ' || price FROM books ORDER BY id"))
    }
}
// end snippet
