import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Every count is SQLite's own (issue 22): a schema's ON CONFLICT REPLACE / IGNORE clause or a
/// trigger's RAISE(IGNORE) must never make a row vanish while the report says it arrived, and a
/// user's row is never deleted as a side effect of a seedkit write.
@Suite struct SchemaDecidesTests {
    /// A BookStore project whose books table is `books` (DDL), with `csv` as its fixture; the seed
    /// built without migrations is copied to `user.sqlite` when `userStore`.
    private func project(
        books: String,
        csv: String = "title,price,category_id,isbn\nThe first book,10,Fiction,111\nThe second book,15,Fiction,222\n",
        extra: String = ""
    ) throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            \(books)
            \(extra)
            """)
        try project.write("seeds/data/books.csv", csv)
        return project
    }

    private func userStore(_ project: TemporaryProject) throws {
        let build = try project.seedkit("build")
        try #require(build.status == 0, "\(build)")
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
    }

    static let replaceISBN =
        "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id), isbn TEXT UNIQUE ON CONFLICT REPLACE);"
    static let ignoreISBN =
        "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id), isbn TEXT UNIQUE ON CONFLICT IGNORE);"
    static let plainBooks =
        "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id), isbn TEXT);"
    static let noPricey =
        "CREATE TRIGGER no_pricey BEFORE INSERT ON books WHEN NEW.price > 100 BEGIN SELECT RAISE(IGNORE); END;"

    @Test func aMigrationInsertNeverDeletesTheUsersRowThroughOnConflictReplace() throws {
        let project = try project(books: Self.replaceISBN)
        try userStore(project)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO books (title, price, category_id, isbn) VALUES ('My diary', 1, 1, '999')")
        }
        try project.write(
            "migrations/0001-nana.yml",
            "insert:\n  books:\n    - { title: Nana, price: 9, category_id: Fiction, isbn: '999' }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(!squeezed(result.stdout).contains("1 inserted"), "\(result)")
        #expect(
            squeezed(result.stdout).contains(
                "conflict books 'Nana': not inserted: its isbn '999' is held by the store's row 'My diary'; the schema's ON CONFLICT REPLACE on books.isbn would delete that row"
            ), "\(result)")
        let titles = try project.rows("user.sqlite", "SELECT title FROM books ORDER BY id")
        expectEqual(titles, ["'The first book'", "'The second book'", "'My diary'"])
    }

    @Test func aBuildWhoseFixturesShareAReplaceKeyFailsInsteadOfLosingARow() throws {
        let project = try project(
            books: Self.replaceISBN,
            csv: "title,price,category_id,isbn\nDune,10,Fiction,111\nEmma,15,Fiction,111\nNana,9,Fiction,333\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        #expect(result.stderr.contains("seeds/data/books.csv:3:"), "\(result)")
        #expect(
            result.stderr.contains(
                "duplicate key isbn '111': line 2 has the same (the schema's ON CONFLICT REPLACE would have deleted that row"
            ), "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aBuildWhoseFixturesShareAnIgnoreKeyFailsInsteadOfDroppingARow() throws {
        let project = try project(
            books: Self.ignoreISBN, csv: "title,price,category_id,isbn\nDune,10,Fiction,111\nEmma,15,Fiction,111\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains("seeds/data/books.csv:3:")
                && result.stderr.contains("ON CONFLICT IGNORE would have dropped this row"), "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aMigrationInsertIgnoredByTheSchemaIsReportedNotPresent() throws {
        let project = try project(books: Self.ignoreISBN)
        try userStore(project)
        try project.write(
            "migrations/0001-nana.yml",
            "insert:\n  books:\n    - { title: Nana, price: 9, category_id: Fiction, isbn: '111' }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(!squeezed(result.stdout).contains("already present"), "\(result)")
        #expect(
            squeezed(result.stdout).contains(
                "conflict books 'Nana': not inserted: ignored by the schema's ON CONFLICT IGNORE on books.isbn: its isbn '111' is held by the store's row 'The first book'"
            ), "\(result)")
        try expectEqual(project.rows("user.sqlite", "SELECT count(*) FROM books WHERE title = 'Nana'"), ["0"])
    }

    @Test func aBuildRowVetoedByATriggerFailsTheBuild() throws {
        let project = try project(
            books: Self.plainBooks, csv: "title,price,category_id,isbn\nDune,10,Fiction,111\nEmma,500,Fiction,222\n",
            extra: Self.noPricey)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains(
                "seeds/data/books.csv:3: error: this row of books was not inserted: vetoed by trigger no_pricey [1550]"),
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aMigrationRowVetoedByATriggerIsNotReportedInserted() throws {
        let project = try project(books: Self.plainBooks, extra: Self.noPricey)
        try userStore(project)
        try project.write(
            "migrations/0001-pricey.yml",
            "insert:\n  books:\n    - { title: Pricey, price: 900, category_id: Fiction }\n    - { title: Cheap, price: 5, category_id: Fiction }\n"
        )
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            squeezed(result.stdout).contains("conflict books 'Pricey': not inserted: vetoed by trigger no_pricey"),
            "\(result)")
        #expect(squeezed(result.stdout).contains("1 inserted"), "\(result)")
        try expectEqual(
            project.rows("user.sqlite", "SELECT title FROM books ORDER BY id"),
            [
                "'The first book'", "'The second book'", "'Cheap'",
            ])
        // --on-conflict fail: an error, nothing written.
        try project.write(
            "migrations/0002-pricey-again.yml",
            "insert:\n  books:\n    - { title: Pricey again, price: 901, category_id: Fiction }\n")
        let before = try #require(project.read("user.sqlite"))
        let strict = try project.seedkit("migrate", "user.sqlite", "--on-conflict", "fail")
        #expect(strict.status != 0, "\(strict)")
        expectEqual(project.read("user.sqlite"), before)
    }

    @Test func anUpdateThroughAReplaceIndexNeverDeletesTheOtherRow() throws {
        let project = try project(books: Self.replaceISBN)
        try userStore(project)
        try project.write(
            "migrations/0001-isbn.yml",
            """
            update:
              books:
                - key: The first book
                  from: { isbn: '111' }
                  to: { isbn: '222' }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            squeezed(result.stdout).contains(
                "conflict books 'The first book': not updated: its isbn '222' is held by the store's row 'The second book'"
            ), "\(result)")
        try expectEqual(
            project.rows("user.sqlite", "SELECT title || ' ' || isbn FROM books ORDER BY id"),
            [
                "'The first book 111'", "'The second book 222'",
            ])
    }

    @Test func updatesAndDeletesVetoedByTriggersAreNotReportedDone() throws {
        let project = try project(
            books: Self.plainBooks,
            extra: """
                CREATE TRIGGER frozen BEFORE UPDATE OF price ON books WHEN OLD.title = 'The first book' BEGIN SELECT RAISE(IGNORE); END;
                CREATE TRIGGER keep BEFORE DELETE ON books BEGIN SELECT RAISE(IGNORE); END;
                """)
        try userStore(project)
        try project.write(
            "migrations/0001-changes.yml",
            """
            update:
              books:
                - key: The first book
                  from: { price: 10 }
                  to: { price: 11 }
            delete:
              books:
                - key: The second book
                  from: { price: 15 }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            squeezed(result.stdout).contains("conflict books 'The first book': not updated: vetoed by trigger frozen"),
            "\(result)")
        #expect(
            squeezed(result.stdout).contains("conflict books 'The second book': not deleted: vetoed by trigger keep"),
            "\(result)")
        try expectEqual(
            project.rows("user.sqlite", "SELECT title || ' ' || price FROM books ORDER BY id"),
            [
                "'The first book 10.0'", "'The second book 15.0'",
            ])
    }

    /// An AFTER INSERT trigger that deletes rows: the build counts what the seed holds, and fails
    /// when rows it inserted are gone.
    @Test func aBuildWhoseRowsATriggerDeletesFails() throws {
        let project = try project(
            books: Self.plainBooks, csv: "title,price,category_id,isbn\nDune,10,Fiction,111\nEmma,500,Fiction,222\n",
            extra: "CREATE TRIGGER tidy AFTER INSERT ON books BEGIN DELETE FROM books WHERE price > 100; END;")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains(
                "1 of the 2 rows seedkit inserted into books are not in it: removed by the schema (triggers that delete: tidy)"
            ), "\(result)")
    }
}

/// Output with runs of spaces as one (reports pad their event kinds into a column).
private func squeezed(_ text: String) -> String {
    text.replacingOccurrences(of: " +", with: " ", options: .regularExpression)
}

/// A key swap or rotation within one migration (issue 22): applied one by one, each rename
/// found its new key taken, was reported as a conflict, and the migration was recorded as
/// applied with the swap never made.
///
/// It is refused, naming both updates, and nothing is written.
@Suite struct KeySwapTests {
    @Test func aKeySwapWithinOneMigrationIsRefusedAndNotRecorded() throws {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "migrations/0001-swap.yml",
            """
            update:
              books:
                - key: The first book
                  from: { title: The first book }
                  to: { title: The second book }
                - key: The second book
                  from: { title: The second book }
                  to: { title: The first book }

            """)
        let before = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains(
                "migrations/0001-swap.yml:3: error: update of books 'The first book' renames it to 'The second book', which the update at line 6 renames away later in this migration"
            ), "\(result)")
        expectEqual(project.read("user.sqlite"), before)
    }

    /// The same rename through a free key, as the message says, applies.
    @Test func aSwapThroughAFreeKeyApplies() throws {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "migrations/0001-swap.yml",
            """
            update:
              books:
                - key: The first book
                  from: { title: The first book }
                  to: { title: The first book (old) }
                - key: The second book
                  from: { title: The second book }
                  to: { title: The first book }
                - key: The first book (old)
                  from: { title: The first book (old) }
                  to: { title: The second book }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        try expectEqual(
            project.rows("user.sqlite", "SELECT id || ' ' || title || ' ' || price FROM books ORDER BY id"),
            [
                "'1 The second book 10.0'", "'2 The first book 15.0'", "'3 The third book 10.0'",
            ])
    }
}

/// Table options in any order and company (`WITHOUT ROWID, STRICT`): a WITHOUT ROWID table read
/// as a rowid table made every delete from it fail with `no such column: rowid` (exit 4).
@Suite struct TableOptionsTests {
    @Test func aDeleteFromAWithoutRowidStrictTableApplies() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;
            CREATE TABLE books (title TEXT NOT NULL PRIMARY KEY, price REAL NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id)) WITHOUT ROWID, STRICT;
            """)
        let build = try project.seedkit("build")
        try #require(build.status == 0, "\(build)")
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-drop.yml", "delete:\n  books:\n    - key: The second book\n      from: { price: 15 }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let titles = try project.rows("user.sqlite", "SELECT title FROM books ORDER BY title")
        expectEqual(titles, ["'The first book'", "'The third book'"], "\(titles) \(result)")
    }

    @Test(arguments: [
        ("CREATE TABLE t (a TEXT PRIMARY KEY) WITHOUT ROWID", true),
        ("CREATE TABLE t (a TEXT PRIMARY KEY) WITHOUT ROWID, STRICT", true),
        ("CREATE TABLE t (a TEXT PRIMARY KEY) STRICT,WITHOUT  ROWID", true),
        ("CREATE TABLE t (a TEXT PRIMARY KEY) /* WITHOUT ROWID */", false),
        ("CREATE TABLE t (a TEXT PRIMARY KEY, \"without rowid\" TEXT)", false),
        ("CREATE TABLE t (a TEXT PRIMARY KEY, CHECK (a <> 'x)'))", false),
    ])
    func withoutRowidIsReadFromTheTableOptions(sql: String, expected: Bool) {
        expectEqual(TableInfo.isWithoutRowID(createTableSQL: sql), expected)
    }
}

/// The ON CONFLICT clauses seedkit reads from a table's CREATE TABLE text, to say what a collision
/// on a REPLACE or IGNORE constraint would have done.
@Suite struct ConflictClausesTests {
    @Test func columnAndTableConstraintsAreRead() {
        let clauses = ConflictClauses(
            createTableSQL: """
                CREATE TABLE "books" (
                  id INTEGER PRIMARY KEY ON CONFLICT REPLACE, -- a comment, (with parens)
                  "isbn" TEXT UNIQUE ON CONFLICT IGNORE,
                  title TEXT NOT NULL ON CONFLICT FAIL COLLATE NOCASE UNIQUE,
                  shelf INTEGER, row INTEGER, note TEXT DEFAULT 'a, b (c)',
                  CONSTRAINT place UNIQUE (shelf, [row]) ON CONFLICT REPLACE,
                  CHECK (shelf > 0)
                )
                """)
        #expect(clauses.uniqueClause(on: ["ID"])?.algorithm == "REPLACE")
        #expect(clauses.uniqueClause(on: ["isbn"])?.algorithm == "IGNORE")
        #expect(clauses.uniqueClause(on: ["title"])?.algorithm == "ABORT")
        #expect(clauses.uniqueClause(on: ["row", "shelf"])?.algorithm == "REPLACE")
        expectEqual(clauses.uniqueClause(on: ["note"]), nil)
        #expect(clauses.clauses.contains { $0.kind == .notNull && $0.columns == ["title"] && $0.algorithm == "FAIL" })
        #expect(clauses.dropsRows)
        expectEqual(
            ConflictClauses.columns(inConstraintMessage: "UNIQUE constraint failed: books.shelf, books.row"),
            [
                "shelf", "row",
            ])
    }
}
