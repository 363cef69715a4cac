import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// An app whose schema comes from GRDB's DatabaseMigrator, with seedkit's data migrations
/// registered between its schema steps.
@Suite struct DatabaseMigratorSeedTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-migrator-\(UUID().uuidString)")
    var catalog: URL { root.appendingPathComponent("seed.sqlite") }
    var store: URL { root.appendingPathComponent("store.sqlite") }

    init() throws {
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        // 0001 refers to a category by name (the catalog's key); 0002 fills a column only schema step 3 adds.
        try Data(
            """
            {"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}
            """.utf8
        ).write(to: root.appendingPathComponent("migrations/0001-add-fourth-book.json"))
        try Data(
            """
            {"update": {"books": [{"key": "The first book", "from": {"price": 10, "rating": null}, "to": {"price": 11, "rating": 5}}]}}
            """.utf8
        ).write(to: root.appendingPathComponent("migrations/0002-rate.json"))
        // The bundled seed's catalog: keys and refs, as seedkit build records them.
        let seed = try DatabaseQueue(path: catalog.path)
        try seed.write { db in
            try db.execute(sql: BookStore.schema)
            try SeedCatalog.writeSeedMetadata(
                db, meta: [("format_version", "1")],
                tables: [
                    TableSpec(name: "categories", key: ["name"]),
                    TableSpec(
                        name: "books", key: ["title"], refs: ["category_id": .init(table: "categories", column: "name")]
                    ),
                ])
        }
        try seed.close()
    }

    /// The app's migrator: schema step 1, data migration 0001, schema step 3, data migrations from 0002 on.
    func migrator() throws -> DatabaseMigrator {
        let migrations = try MigrationDirectory.load(root.appendingPathComponent("migrations"))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-schema") { db in
            try db.execute(sql: BookStore.schema)
            try db.execute(
                sql: """
                    INSERT INTO categories (name) VALUES ('Fiction'), ('Biography');
                    INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1);
                    """)
        }
        migrator.registerSeedMigrations(migrations, through: 1, catalog: catalog)
        migrator.registerMigration("3-ratings") { db in
            try db.execute(sql: "ALTER TABLE books ADD COLUMN rating INTEGER")
        }
        migrator.registerSeedMigrations(migrations, catalog: catalog)
        return migrator
    }

    @Test func schemaStepsAndDataMigrationsRunInOneOrderedHistoryAndASecondRunDoesNothing() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let history = try migrator()
        expectEqual(history.migrations, ["1-schema", "seedkit-0001-add-fourth-book", "3-ratings", "seedkit-0002-rate"])

        let queue = try DatabaseQueue(path: store.path)
        try history.migrate(queue)
        try queue.read { db in
            try expectEqual(
                history.appliedMigrations(db),
                [
                    "1-schema", "seedkit-0001-add-fourth-book", "3-ratings", "seedkit-0002-rate",
                ])
            let ledger = try MigrationLedger.entries(db)
            expectEqual(ledger.map(\.id), ["0001-add-fourth-book", "0002-rate"])
            expectEqual(ledger.map(\.origin), [.applied, .applied])
            let books = try Row.fetchAll(db, sql: "SELECT title, price, category_id, rating FROM books ORDER BY id").map
            { row in
                "\(row[0] as String) \(row[1] as Double) \(row[2] as Int) \(row[3] as Int? ?? -1)"
            }
            expectEqual(books, ["The first book 11.0 1 5", "The fourth book 12.0 2 -1"])
        }
        try queue.close()

        // The next launch registers the same history: nothing is pending, the file is untouched.
        let before = try #require(FileManager.default.contents(atPath: store.path))
        let again = try DatabaseQueue(path: store.path)
        try migrator().migrate(again)
        #expect(try again.read { db in try history.hasCompletedMigrations(db) })
        try again.close()
        expectEqual(FileManager.default.contents(atPath: store.path).map { SHA256.hex($0) }, SHA256.hex(before))
    }

    @Test func aUserEditBetweenLaunchesIsKeptByTheNextDataMigration() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let migrations = try MigrationDirectory.load(root.appendingPathComponent("migrations"))
        // Release 1 knows only schema step 1 and data migration 0001.
        var first = DatabaseMigrator()
        first.registerMigration("1-schema") { db in
            try db.execute(sql: BookStore.schema)
            try db.execute(
                sql:
                    "INSERT INTO categories (name) VALUES ('Fiction'), ('Biography'); INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1);"
            )
        }
        first.registerSeedMigrations(migrations, through: 1, catalog: catalog)
        let queue = try DatabaseQueue(path: store.path)
        try first.migrate(queue)
        // The user reprices the first book; release 2's 0002 wants 10 → 11 and keeps the user's 13.
        try queue.write { db in try db.execute(sql: "UPDATE books SET price = 13 WHERE title = 'The first book'") }
        try migrator().migrate(queue)
        let (price, ledger) = try queue.read { db in
            (
                try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The first book'"),
                try MigrationLedger.entries(db).map(\.id)
            )
        }
        expectEqual(price, 13)
        expectEqual(ledger, ["0001-add-fourth-book", "0002-rate"])
        try queue.close()
    }
}
