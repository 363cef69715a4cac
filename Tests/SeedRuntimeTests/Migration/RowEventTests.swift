import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Row events are data: kind, table, key column by column (refs with the parent's key), and for
/// updates and conflicts each column's expected, wanted and kept value.
@Suite struct RowEventTests {
    /// A BookStore with a composite-keyed `editions` table whose key includes a ref.
    private func store() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: BookStore.schema)
            try db.execute(
                sql:
                    "CREATE TABLE editions (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL REFERENCES books(id), number INTEGER NOT NULL, year INTEGER, UNIQUE (book_id, number))"
            )
            try db.execute(sql: "INSERT INTO categories (name) VALUES ('Fiction'), ('Biography')")
            try db.execute(
                sql:
                    "INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1), ('The second book', 15, 1)"
            )
            // The user changed the second book's price.
            try db.execute(sql: "UPDATE books SET price = 13 WHERE title = 'The second book'")
        }
        return queue
    }

    private let tables = [
        TableSpec(name: "categories", key: ["name"]),
        TableSpec(name: "books", key: ["title"], refs: ["category_id": .init(table: "categories", column: "name")]),
        TableSpec(
            name: "editions", key: ["book_id", "number"], refs: ["book_id": .init(table: "books", column: "title")]),
    ]

    private func migration(_ json: String) throws -> Migration {
        try loadMigration(json: json, fileName: "0002-release-1-2.json")
    }

    @Test func eventsCarryKindTableKeyValuesAndColumnChanges() throws {
        let queue = try store()
        let migration = try migration(
            """
            {"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}],
                        "editions": [{"book_id": "The first book", "number": 2, "year": 2024}]},
             "update": {"books": [{"key": "The first book", "from": {"price": 10}, "to": {"price": 11}},
                                  {"key": "The second book", "from": {"price": 15}, "to": {"price": 16}}]}}
            """)
        let report = try SeedMigrator(migrations: [migration]).migrate(queue, options: .init(tables: tables))
        let outcome = try #require(report.migrations.first)
        expectEqual(outcome.id, "0002-release-1-2")
        expectEqual(outcome.name, "release-1-2")
        expectEqual(outcome.number, 2)
        expectEqual(report.events.map(\.kind), [.inserted, .inserted, .updated, .conflict])

        let book = report.events[0]
        expectEqual(book.table, "books")
        expectEqual(book.key, [RowEvent.KeyValue(column: "title", value: .text("The fourth book"))])
        expectEqual(book.keyDescription, "'The fourth book'")
        #expect(book.changes.isEmpty)

        let edition = report.events[1]
        expectEqual(edition.table, "editions")
        expectEqual(
            edition.key,
            [
                RowEvent.KeyValue(
                    column: "book_id", value: .integer(1),
                    parent: .init(table: "books", column: "title", value: .text("The first book"))),
                RowEvent.KeyValue(column: "number", value: .integer(2)),
            ])
        expectEqual(edition.keyDescription, "(book_id='The first book', number=2)")

        let updated = report.events[2]
        expectEqual(updated.keyValue("TITLE"), .text("The first book"))
        expectEqual(
            updated.changes, [RowEvent.ColumnChange(column: "price", old: .real(10), new: .real(11), kept: .real(11))]
        )

        let conflict = report.events[3]
        expectEqual(conflict.key, [RowEvent.KeyValue(column: "title", value: .text("The second book"))])
        expectEqual(
            conflict.changes,
            [
                RowEvent.ColumnChange(column: "price", old: .real(15), new: .real(16), kept: .real(13))
            ])
        expectEqual(conflict.detail, "changed in the store (price is 13, expected 15); the store's values are kept")
        expectEqual(report.attention, [conflict])
    }

    @Test func aConflictingDeleteListsTheColumnsItChecked() throws {
        let queue = try store()
        let migration = try migration(
            """
            {"delete": {"books": [{"key": "The second book", "from": {"price": 15, "category_id": "Fiction"}}]}}
            """)
        let report = try SeedMigrator(migrations: [migration]).migrate(queue, options: .init(tables: tables))
        let event = try #require(report.events.first)
        expectEqual(event.kind, .conflict)
        expectEqual(
            event.changes,
            [
                RowEvent.ColumnChange(column: "price", old: .real(15), new: nil, kept: .real(13)),
                RowEvent.ColumnChange(
                    column: "category_id", old: .integer(1), new: nil, kept: .integer(1),
                    oldParent: .init(table: "categories", column: "name", value: .text("Fiction")),
                    keptParent: .init(table: "categories", column: "name", value: .text("Fiction"))),
            ])
        try expectEqual(queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") }, 2)
    }
}
