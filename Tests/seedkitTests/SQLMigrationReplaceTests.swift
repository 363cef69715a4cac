import Foundation
import GRDB
import SeedTestSupport
import Testing

/// A `.sql` migration's counts come from SQLite, REPLACE's deletes included, and a statement
/// other than DELETE never deletes a row the store holds as a side effect (issue 34).
@Suite struct SQLMigrationReplaceTests {
    /// A user store where the user edited 'The first book' and wrote a review of it (ON DELETE CASCADE).
    private func editedStore() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        let store = try project.database("user.sqlite")
        try store.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE reviews (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE, text TEXT);
                    INSERT INTO reviews (book_id, text) VALUES (1, 'my favourite');
                    UPDATE books SET price = 99 WHERE title = 'The first book';
                    """)
        }
        try store.close()
        return project
    }

    static let replacing: [String] = [
        "INSERT OR REPLACE INTO books (id, title, price, category_id) VALUES (1, 'The first book', 11, 1);",
        "REPLACE INTO books (title, price, category_id) VALUES ('The first book', 11, 1);",
        "WITH v(t) AS (SELECT 'The first book') INSERT OR REPLACE INTO books (title, price, category_id) SELECT t, 11, 1 FROM v;",
        "UPDATE OR REPLACE books SET title = 'The first book' WHERE title = 'The second book';",
    ]

    @Test(arguments: replacing)
    func aReplaceThatDeletesAStoreRowFailsNamingIt(sql: String) throws {
        let project = try editedStore()
        try project.write("migrations/0002-replace.sql", "-- the seed's price\n\(sql)\n")
        let before = project.sha256("user.sqlite")
        for arguments in [["migrate", "user.sqlite", "--dry-run"], ["migrate", "user.sqlite"]] {
            let result = try project.seedkit(arguments)
            expectEqual(result.status, 1, "\(sql): \(result)")
            #expect(result.stderr.contains("migrations/0002-replace.sql:2:1: error: this "), "\(result)")
            #expect(
                result.stderr.contains("deleted 2 rows the store held (reviews 1; books 'The first book')"), "\(result)"
            )
            #expect(result.stderr.contains("a SQL migration may delete rows only with DELETE"), "\(result)")
            #expect(result.stderr.contains("nothing was written"), "\(result)")
            expectEqual(project.sha256("user.sqlite"), before, "the user's row and its review are kept")
        }
        let store = try project.database("user.sqlite")
        try expectEqual(
            store.read { db in
                try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The first book'")
            }, 99)
        try expectEqual(store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reviews") }, 1)
    }

    /// DROP TABLE, foreign keys on, deletes the table's rows first, and ON DELETE CASCADE takes the
    /// rows that refer to them: the user's review would go unreported.
    @Test func droppingATableWhoseRowsOthersReferToFailsNamingTheCascadedRows() throws {
        let project = try editedStore()
        try project.write("migrations/0002-drop.sql", "CREATE TABLE archive (title TEXT);\nDROP TABLE books;\n")
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains(
                "migrations/0002-drop.sql:2:1: error: this DROP deleted 1 row the store held (reviews 1)"), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func explicitDeletesAndTheirCascadesAreCountedAndReportedByKey() throws {
        let project = try editedStore()
        try project.write("migrations/0002-drop-first.sql", "DELETE FROM books WHERE title = 'The first book';\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                """
                applied 0002-drop-first: SQL changed 2 rows
                  sql             books: 1 deleted
                  sql             reviews: 1 deleted
                  deleted         reviews 1
                  deleted         books 'The first book'

                """), "\(result)")
    }

    @Test func upsertsAndWithoutRowidTablesAreCounted() throws {
        let project = try editedStore()
        try project.write(
            "migrations/0002-upsert.sql",
            """
            CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO tags VALUES ('classic', 1), ('new', 2);
            INSERT INTO books (title, price, category_id) VALUES ('The first book', 11, 1) ON CONFLICT (title) DO UPDATE SET price = excluded.price;

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                """
                applied 0002-upsert: SQL changed 3 rows
                  sql             books: 1 updated
                  sql             tags: 2 inserted

                """), "\(result)")
        let store = try project.database("user.sqlite")
        try expectEqual(store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reviews") }, 1)
        try expectEqual(store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_temp_master") }, 0)
    }
}
