import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// A `.sql` migration runs inside seedkit's one transaction; statements that would end it,
/// escape it or write other files are refused before anything runs (issue 14).
@Suite struct MigrateSQLGuardTests {
    /// Statements a SQL migration may not hold, with the word the message names.
    static let forbidden: [(sql: String, named: String)] = [
        ("COMMIT;", "COMMIT"),
        ("END; BEGIN;", "END"),
        ("BEGIN TRANSACTION;", "BEGIN"),
        ("ROLLBACK;", "ROLLBACK"),
        ("SAVEPOINT mine;\nRELEASE mine;", "SAVEPOINT"),
        ("ATTACH DATABASE 'attached.sqlite' AS other;", "ATTACH"),
        ("DETACH other;", "DETACH"),
        ("VACUUM;", "VACUUM"),
        ("VACUUM INTO 'vacuumed.sqlite';", "VACUUM"),
        ("PRAGMA journal_mode = WAL;", "PRAGMA journal_mode"),
        ("pragma main.locking_mode=EXCLUSIVE;", "PRAGMA locking_mode"),
        // Pragmas that change how later statements run, or the connection (issue 34).
        ("PRAGMA ignore_check_constraints = ON;", "PRAGMA ignore_check_constraints"),
        ("PRAGMA synchronous = OFF;", "PRAGMA synchronous"),
        ("PRAGMA query_only = 1;", "PRAGMA query_only"),
        ("PRAGMA max_page_count = 1;", "PRAGMA max_page_count"),
        ("PRAGMA foreign_keys = OFF;", "PRAGMA foreign_keys"),
        ("PRAGMA recursive_triggers = OFF;", "PRAGMA recursive_triggers"),
        ("PRAGMA writable_schema = ON;", "PRAGMA writable_schema"),
        ("PRAGMA trusted_schema = ON;", "PRAGMA trusted_schema"),
        ("PRAGMA case_sensitive_like = ON;", "PRAGMA case_sensitive_like"),
        ("PRAGMA cache_size = 1;", "PRAGMA cache_size"),
        ("PRAGMA optimize;", "PRAGMA optimize"),
        ("PRAGMA shrink_memory;", "PRAGMA shrink_memory"),
    ]

    @Test(arguments: 0..<forbidden.count)
    func transactionControlInASQLMigrationIsRefusedBeforeAnythingRuns(case index: Int) throws {
        let (sql, named) = Self.forbidden[index]
        let project = try TemporaryProject.withUserStore()
        // 0001 (YAML) and the SQL's own first statement come before the forbidden one: none may land.
        try project.write(
            "migrations/0002-sneaky.sql",
            "INSERT INTO categories (name) VALUES ('Before');\n-- a comment\n\(sql)\nINSERT INTO categories (name) VALUES ('After');\n"
        )
        let before = try #require(project.sha256("user.sqlite"))
        let listing = project.listing(".")
        for arguments in [["migrate", "user.sqlite"], ["migrate", "user.sqlite", "--dry-run"]] {
            let result = try project.seedkit(arguments)
            expectEqual(result.status, 2, "\(arguments) \(sql): \(result)")
            #expect(result.stderr.contains("migrations/0002-sneaky.sql:3:"), "the statement's line: \(result)")
            #expect(result.stderr.contains(named), "names the statement: \(result)")
            #expect(result.stderr.contains("nothing was written"), "\(result)")
            expectEqual(project.sha256("user.sqlite"), before, "\(arguments) \(sql): the store is byte-identical")
            expectEqual(
                project.listing("."), listing,
                "\(arguments) \(sql): no file created (ATTACH, VACUUM INTO): \(project.listing("."))")
        }
    }

    @Test func theAppRuntimeRefusesTheSameBeforeWriting() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-commit.sql", "INSERT INTO categories (name) VALUES ('Early');\nCOMMIT;\n")
        try FileManager.default.removeItem(at: project.url("migrations/0001-add-fourth-book.yml"))
        try project.write(
            "migrations/0001-add-fourth-book.json",
            #"{"insert":{"books":[{"title":"The fourth book","price":12,"category_id":"Biography"}]}}"#)
        let before = try #require(project.sha256("user.sqlite"))
        let installer = SeedInstaller(
            store: project.url("user.sqlite"), seed: project.url("build/seed.sqlite"),
            migrations: try MigrationDirectory.load(project.url("migrations")))
        #expect {
            _ = try installer.prepareStore()
        } throws: { error in
            guard let error = error as? SeedError else { return false }
            return error.kind == .configuration && error.description.contains("COMMIT")
                && error.description.contains(":2:")
        }
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func triggersQuotedKeywordsAndCommentsAreNotTransactionControl() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-fine.sql",
            """
            -- COMMIT; in a comment is not a statement
            /* nor is BEGIN; in a block comment */
            CREATE TABLE audit (id INTEGER PRIMARY KEY, note TEXT);
            CREATE TRIGGER books_audit AFTER INSERT ON books BEGIN
                INSERT INTO audit (note) VALUES ('END; COMMIT;');
            END;
            INSERT INTO categories (name) VALUES ('COMMIT; ROLLBACK;');
            INSERT INTO books (title, price, category_id) VALUES ('Audited', 1, 1);
            PRAGMA user_version = 7;
            PRAGMA table_info(books);
            PRAGMA foreign_keys;
            PRAGMA defer_foreign_keys = ON;

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let database = try project.database("user.sqlite")
        try expectEqual(
            database.read { db in try String.fetchAll(db, sql: "SELECT note FROM audit") }, ["END; COMMIT;"])
        try expectEqual(
            database.read { db in try String.fetchOne(db, sql: "SELECT name FROM categories WHERE id = 3") },
            "COMMIT; ROLLBACK;")
        try expectEqual(database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }, 7)
        try expectEqual(database.read { db in try MigrationLedger.entries(db).map(\.number) }, [1, 2])
    }
}

@Suite struct SQLMigrationReportTests {
    @Test func sqlMigrationsReportTheRowsTheyChangedByTable() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-discount.sql",
            "UPDATE books SET price = price - 1;\nINSERT INTO categories (name) VALUES ('Poetry');\nDELETE FROM books WHERE title = 'The third book';\n"
        )
        let before = try #require(project.sha256("user.sqlite"))
        let dryRun = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        expectEqual(dryRun.status, 0, "\(dryRun)")
        #expect(
            dryRun.stdout.contains(
                """
                would apply 0002-discount: SQL would change 6 rows
                  sql             books: 4 updated, 1 deleted
                  sql             categories: 1 inserted
                  deleted         books 'The third book'

                """), "\(dryRun)")
        expectEqual(project.sha256("user.sqlite"), before)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(
            result.stdout.contains(
                """
                applied 0002-discount: SQL changed 6 rows
                  sql             books: 4 updated, 1 deleted
                  sql             categories: 1 inserted
                  deleted         books 'The third book'

                """), "\(result)")
        try project.write(
            "user.sqlite", try #require(FileManager.default.contents(atPath: project.path("build/seed.sqlite"))))
        let json = try project.seedkit("migrate", "user.sqlite", "--format", "json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sql = try #require((document["migrations"] as? [[String: Any]])?.last)
        #expect(sql["changedRows"] as? Int == 6)
        // Counts by table, then each row the SQL deleted, by its key (issue 34).
        let events = try #require(sql["events"] as? [[String: Any]])
        expectEqual(
            events.map { "\($0["kind"] ?? "") \($0["table"] ?? "")=\($0["detail"] ?? "")" },
            [
                "sql books=4 updated, 1 deleted", "sql categories=1 inserted", "deleted books=",
            ])
        let key = "\(events.last?["key"] ?? "")"
        #expect(key.contains("The third book"), "\(events)")
    }
}
