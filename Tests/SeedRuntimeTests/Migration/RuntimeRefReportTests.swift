import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// The app runtime's report names a ref's parent by its natural key (the seed's recorded refs), as the CLI does.
@Suite struct RuntimeRefReportTests {
    @Test func prepareStoreReportsARefChangeByTheParentsKey() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-refs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let store = root.appendingPathComponent("BookStore.sqlite")
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            try db.execute(sql: BookStore.schema)
            try db.execute(sql: "INSERT INTO categories (name) VALUES ('Fiction'), ('Biography')")
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1)")
            try SeedCatalog.writeSeedMetadata(
                db, meta: [("format_version", "1")],
                tables: [
                    TableSpec(name: "categories", key: ["name"]),
                    TableSpec(
                        name: "books", key: ["title"], refs: ["category_id": .init(table: "categories", column: "name")]
                    ),
                ])
        }
        try queue.close()
        let migrations = root.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try Data(
            """
            {"update": {"books": [{"key": "The first book", "from": {"category_id": "Fiction"}, "to": {"category_id": "Biography"}}]}}
            """.utf8
        ).write(to: migrations.appendingPathComponent("0001-move.json"))
        let outcome = try SeedInstaller(
            store: store, seed: root.appendingPathComponent("unused.sqlite"),
            migrations: try MigrationDirectory.load(migrations)
        ).prepareStore()
        guard case .migrated(let report) = outcome else {
            Issue.record("expected migrated, got \(outcome)")
            return
        }
        let event = try #require(report.events.first)
        expectEqual(event.detail, "category_id 'Fiction' → 'Biography'")
        let biography = RowEvent.Reference(table: "categories", column: "name", value: .text("Biography"))
        expectEqual(
            event.changes,
            [
                RowEvent.ColumnChange(
                    column: "category_id", old: .integer(1), new: .integer(2), kept: .integer(2),
                    oldParent: .init(table: "categories", column: "name", value: .text("Fiction")),
                    newParent: biography, keptParent: biography)
            ])
    }
}
