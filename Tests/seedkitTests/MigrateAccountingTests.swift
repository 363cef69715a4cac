import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 41: every row SQLite changes during a migrate is one the report names, or the run fails,
/// rolled back, naming the trigger and the row.
///
/// Each case exited 0 ("1 inserted") on 17ab545 while the user's rows changed or vanished.
@Suite struct MigrateAccountingTests {
    /// The BookStore user store (three books) with `sql` run on it, and 0001 (insert the fourth book) pending.
    private func store(_ sql: String) throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        try project.database("user.sqlite").write { db in try db.execute(sql: sql) }
        return project
    }

    private func titles(_ project: TemporaryProject, _ table: String = "books") throws -> [String] {
        try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT title FROM \(table) ORDER BY title")
        }
    }

    private func expectRefused(
        _ project: TemporaryProject, naming: [String], _ arguments: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit(["migrate", "user.sqlite"] + arguments)
        #expect(result.status == 3, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("seedkit did not write"), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("nothing was written"), "\(result)", sourceLocation: sourceLocation)
        for name in naming {
            #expect(result.stderr.contains(name), "\(name) in \(result)", sourceLocation: sourceLocation)
        }
        #expect(!result.stdout.contains("1 inserted"), "\(result)", sourceLocation: sourceLocation)
        #expect(project.sha256("user.sqlite") == before, "the store changed", sourceLocation: sourceLocation)
    }

    @Test func aUsersTriggerThatDeletesBooksWhenOneIsInsertedFailsTheRun() throws {
        let project = try store(
            "CREATE TRIGGER tidy AFTER INSERT ON books BEGIN DELETE FROM books WHERE price < NEW.price; END;")
        try expectRefused(
            project,
            naming: [
                "trigger tidy", "books rowid 1 (1, 'The first book', 10.0, 1) deleted",
                "books rowid 3 (3, 'The third book', 10.0, 2) deleted",
            ])
        #expect(try titles(project) == ["The first book", "The second book", "The third book"])
    }

    @Test func aTriggerThatEmptiesTheUsersOwnTableFailsTheRun() throws {
        let project = try store(
            """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
            INSERT INTO notes (text) VALUES ('buy milk'), ('call Ann');
            CREATE TRIGGER wipe AFTER INSERT ON books BEGIN DELETE FROM notes; END;
            """)
        try expectRefused(project, naming: ["trigger wipe", "notes rowid 1 (1, 'buy milk') deleted"])
        let notes = try project.database("user.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")
        }
        #expect(notes == 2)
    }

    @Test func aTriggerThatUpdatesAnotherRowFailsTheRun() throws {
        let project = try store(
            "CREATE TRIGGER cheaper AFTER INSERT ON books BEGIN UPDATE books SET price = 0 WHERE title = 'The first book'; END;"
        )
        try expectRefused(project, naming: ["trigger cheaper", "books rowid 1 (1, 'The first book', 10.0, 1) updated"])
    }

    @Test func aTriggerThatStampsTheRowSeedkitWroteIsNamedByTheReport() throws {
        let project = try store(
            """
            ALTER TABLE books ADD COLUMN stamp TEXT;
            CREATE TRIGGER stamp AFTER INSERT ON books BEGIN UPDATE books SET stamp = 'new' WHERE id = NEW.id; END;
            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        let stamped = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT title FROM books WHERE stamp = 'new'")
        }
        #expect(stamped == ["The fourth book"])
    }

    @Test func aTemporaryTriggerAnSQLStepCreatesCannotChangeRowsLaterStepsDoNotName() throws {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "migrations/0001-temp-trigger.sql",
            "CREATE TEMP TRIGGER sneaky AFTER INSERT ON main.books BEGIN DELETE FROM books WHERE id = 1; END;\n")
        try project.write("migrations/0002-add-fourth-book.yml", BookStore.fourthBook)
        try expectRefused(
            project, naming: ["temporary trigger sneaky", "books rowid 1 (1, 'The first book', 10.0, 1) deleted"])
    }

    @Test func anInsertIntoAViewWhoseTriggerWritesTheTableBehindItFailsTheRun() throws {
        let project = try store(
            """
            ALTER TABLE books RENAME TO book_rows;
            CREATE VIEW books AS SELECT * FROM book_rows;
            CREATE TRIGGER books_insert INSTEAD OF INSERT ON books BEGIN
              INSERT INTO book_rows (title, price, category_id) VALUES (NEW.title, NEW.price, NEW.category_id);
            END;
            """)
        try expectRefused(
            project, naming: ["trigger books_insert", "book_rows rowid 4 (4, 'The fourth book', 12, 2) inserted"])
        #expect(!(try titles(project, "book_rows")).contains("The fourth book"))
    }

    @Test func theLibraryCallAppsUseFailsTheSameWay() throws {
        let project = try store(
            "CREATE TRIGGER tidy AFTER INSERT ON books BEGIN DELETE FROM books WHERE price < NEW.price; END;")
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "migrations/0001-add-fourth-book.json",
            #"{"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}"#)
        let migrator = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations")))
        let error = #expect(throws: SeedError.self) {
            try migrator.migrate(try project.database("user.sqlite"))
        }
        #expect(error?.kind == .refused)
        #expect(error?.description.contains("trigger tidy") == true, "\(String(describing: error))")
        #expect(try titles(project).count == 3)
    }

    @Test func rowsATriggerInsertsAreNamedInTheReport() throws {
        let project = try store(
            """
            CREATE TABLE audit (what TEXT);
            CREATE TRIGGER audit_books AFTER INSERT ON books BEGIN INSERT INTO audit VALUES ('added ' || NEW.title); END;
            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("audit: 1 inserted by trigger audit_books"), "\(result)")
        let audit = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT what FROM audit")
        }
        #expect(audit == ["added The fourth book"])
    }

    // MARK: - seedkit's own tables

    @Test(arguments: [
        "DROP TABLE _seedkit_migrations;", "DELETE FROM _seedkit_migrations;",
        "UPDATE \"_SEEDKIT_MIGRATIONS\" SET checksum = 'x';",
        "CREATE TRIGGER t AFTER INSERT ON books BEGIN DELETE FROM _seedkit_migrations; END;",
    ])
    func aSQLStepCannotWriteSeedkitsTables(_ sql: String) throws {
        let project = try TemporaryProject.withUserStore()
        #expect(try project.seedkit("migrate", "user.sqlite").status == 0)
        try project.write("migrations/0002-forget.sql", sql + "\n")
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("migrations/0002-forget.sql:1:1: error: writing _"), "\(result)")
        #expect(result.stderr.contains("is not allowed in a SQL migration: seedkit's tables"), "\(result)")
        #expect(project.sha256("user.sqlite") == before)
        let again = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        #expect(!again.stdout.contains("0001"), "0001 stays applied: \(again)")
    }

    // MARK: - The user's own unique index

    @Test func aKeyTheUsersNocaseIndexHoldsIsAConflictWithTheUsersRow() throws {
        let project = try store(
            """
            CREATE UNIQUE INDEX books_title_nocase ON books (title COLLATE NOCASE);
            INSERT INTO books (title, price, category_id) VALUES ('the fourth book', 3, 1);
            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("already present"), "\(result)")
        #expect(
            result.stdout.contains(
                "books 'The fourth book': not inserted: the store's row 'the fourth book' holds the same value under the unique index books_title_nocase (title COLLATE NOCASE): title 'the fourth book', price 3, category_id 1"
            ), "\(result)")
        let strict = try project.seedkit("migrate", "user.sqlite", "--on-conflict", "fail")
        #expect(strict.status == 0, "already applied: \(strict)")
        #expect(try titles(project) == ["The first book", "The second book", "The third book", "the fourth book"])
    }
}
