import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

private func titles(_ project: TemporaryProject, _ store: String = "user.sqlite") throws -> [String] {
    try project.database(store).read { db in try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY id") }
}

@Suite struct MigrateCommandTests {
    @Test func bookStoreStoryAddsTheFourthBookOnceAndKeepsUserData() throws {
        let project = try TemporaryProject.withUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('My own book', 5, 1)")
            try db.execute(sql: "UPDATE books SET price = 9 WHERE title = 'The second book'")
        }
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-add-fourth-book: 1 inserted"))
        try expectEqual(
            titles(project),
            [
                "The first book", "The second book", "The third book", "My own book", "The fourth book",
            ])
        let fourth = try project.database("user.sqlite").read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT b.price, c.name FROM books b JOIN categories c ON c.id = b.category_id WHERE title = 'The fourth book'"
            )
        }
        #expect(fourth?[0] as Double? == 12)
        #expect(fourth?[1] as String? == "Biography")
        try expectEqual(
            project.database("user.sqlite").read { db in
                try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The second book'")
            }, 9)
        let ledger = try project.database("user.sqlite").read { db in try MigrationLedger.entries(db) }
        expectEqual(ledger.map(\.origin), [.applied])
        #expect(ledger.first?.appliedAt != nil)

        let bytes = try #require(project.read("user.sqlite"))
        let again = try project.seedkit("migrate", "user.sqlite")
        expectEqual(again.status, 0)
        #expect(again.stdout.contains("up to date"))
        expectEqual(project.read("user.sqlite"), bytes, "a second run changes nothing")
    }

    @Test func aSeedThatContainsTheMigrationHasNothingToDo() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let bytes = try #require(project.read("build/seed.sqlite"))
        let result = try project.seedkit("migrate", "build/seed.sqlite")
        expectEqual(result.status, 0)
        #expect(result.stdout.contains("up to date"))
        expectEqual(project.read("build/seed.sqlite"), bytes)
        #expect(try project.seedkit("status", "build/seed.sqlite").stdout.contains("from-seed"))
    }

    @Test func aKeyTheUserAlreadyAddedIsLeftAlone() throws {
        let project = try TemporaryProject.withUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('The fourth book', 99, 1)")
        }
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0)
        #expect(result.stdout.contains("1 already-present"))
        let rows = try project.database("user.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT price FROM books WHERE title = 'The fourth book'")
        }
        expectEqual(rows.count, 1)
        #expect(rows.first?[0] as Double? == 99)
    }

    @Test func aSeedRowTheUserDeletedDoesNotComeBack() throws {
        let project = try TemporaryProject.withUserStore()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "DELETE FROM books WHERE title = 'The fourth book'")
        }
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        #expect(try !titles(project).contains("The fourth book"))
    }

    @Test func updatesAndDeletesRespectUserEditsAndReferences() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-reprice.yml",
            """
            update:
              books:
                - key: The first book
                  from: { price: 10 }
                  to: { price: 11 }
                - key: The second book
                  from: { price: 15 }
                  to: { price: 16 }
            delete:
              books:
                - key: The third book
                  from: { price: 10 }
              categories:
                - { key: Fiction, from: {} }

            """)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 13 WHERE title = 'The first book'")
        }
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stderr.contains(
                "migrations/0002-reprice.yml:3: warning: conflict on books 'The first book': changed in the store (price is 13, expected 10); the store's values are kept [2050]"
            ), "\(result)")
        #expect(
            result.stderr.contains(
                "warning: delete denied on categories 'Fiction': still referenced by books.category_id; not deleted [1600]"
            ))
        let prices = try project.database("user.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT title, price FROM books ORDER BY id").map {
                "\($0[0] as String)=\($0[1] as Double)"
            }
        }
        expectEqual(prices, ["The first book=13.0", "The second book=16.0", "The fourth book=12.0"])
    }

    /// A delete without `from` could not tell a row the user edited from the seed's: it is a
    /// configuration error at its line, and nothing is written (it used to delete the edited row).
    @Test func aDeleteWithoutFromIsRefusedAndTheUsersRowStays() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-cleanup.yml", "delete:\n  books:\n    - key: The third book\n")
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 99 WHERE title = 'The third book'")
        }
        let before = project.read("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            "migrations/0002-cleanup.yml:3:7: error: this delete has no 'from': give the values the previous seed shipped (`from: {}` for a row with nothing but its key), so that a row the user changed is kept [2100]\n",
            "\(result)")
        expectEqual(project.read("user.sqlite"), before)
        // With `from`, the user's edit keeps the row (a conflict).
        try project.write(
            "migrations/0002-cleanup.yml", "delete:\n  books:\n    - { key: The third book, from: { price: 10 } }\n")
        let kept = try project.seedkit("migrate", "user.sqlite")
        expectEqual(kept.status, 0, "\(kept)")
        try expectEqual(project.rows("user.sqlite", "SELECT price FROM books WHERE title = 'The third book'"), ["99.0"])
    }

    /// A migration may list a parent before the children it also deletes: the parent's delete
    /// waits for the rest of the migration; only a row still referenced after it is denied.
    @Test func aParentListedBeforeTheChildrenTheMigrationAlsoDeletesIsDeleted() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-drop-biography.yml",
            """
            delete:
              categories:
                - { key: Biography, from: {} }
              books:
                - key: The third book
                  from: { price: 10 }
                - key: The fourth book
                  from: { price: 12 }

            """)
        let clean = try project.seedkit("migrate", "user.sqlite")
        expectEqual(clean.status, 0, "\(clean)")
        expectEqual(clean.stderr, "", "\(clean)")
        #expect(clean.stdout.contains("applied 0002-drop-biography: 3 deleted"), "\(clean)")
        try expectEqual(project.rows("user.sqlite", "SELECT name FROM categories ORDER BY id"), ["'Fiction'"])

        // A book the user added keeps its category, however the migration is ordered.
        let other = try TemporaryProject.withUserStore()
        try other.write(
            "migrations/0002-drop-biography.yml",
            project.read("migrations/0002-drop-biography.yml").map { String(decoding: $0, as: UTF8.self) } ?? "")
        try other.database("user.sqlite").write { db in
            try db.execute(
                sql:
                    "INSERT INTO books (title, price, category_id) SELECT 'My memoir', 20, id FROM categories WHERE name = 'Biography'"
            )
        }
        let kept = try other.seedkit("migrate", "user.sqlite")
        expectEqual(kept.status, 0, "\(kept)")
        expectEqual(
            kept.stderr,
            "migrations/0002-drop-biography.yml:3: warning: delete denied on categories 'Biography': still referenced by books.category_id; not deleted [1600]\n",
            "\(kept)")
        try expectEqual(
            other.rows(
                "user.sqlite",
                "SELECT b.title FROM books b JOIN categories c ON c.id = b.category_id WHERE c.name = 'Biography'"),
            [
                "'My memoir'"
            ])
        let strict = try TemporaryProject.withUserStore()
        try strict.write(
            "migrations/0002-drop-biography.yml",
            project.read("migrations/0002-drop-biography.yml").map { String(decoding: $0, as: UTF8.self) } ?? "")
        try strict.database("user.sqlite").write { db in
            try db.execute(
                sql:
                    "INSERT INTO books (title, price, category_id) SELECT 'My memoir', 20, id FROM categories WHERE name = 'Biography'"
            )
        }
        let before = strict.read("user.sqlite")
        let failed = try strict.seedkit("migrate", "user.sqlite", "--on-conflict", "fail")
        expectEqual(failed.status, 1, "\(failed)")
        #expect(
            failed.stderr.contains(
                "migrations/0002-drop-biography.yml:3: error: cannot delete categories 'Biography': still referenced by books.category_id"
            ), "\(failed)")
        expectEqual(strict.read("user.sqlite"), before)
    }

    @Test func jsonReportGivesEachEventsKeyValuesAndColumnChanges() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-reprice.yml",
            """
            update:
              books:
                - key: The first book
                  from: { price: 10 }
                  to: { price: 11 }

            """)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 13 WHERE title = 'The first book'")
        }
        let result = try project.seedkit("migrate", "user.sqlite", "--format", "json")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                """
                      "number": 2,
                      "name": "reprice",
                      "file": "migrations/0002-reprice.yml",
                      "id": "0002-reprice",
                """), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                """
                        {
                          "kind": "conflict",
                          "table": "books",
                          "key": {
                            "title": "The first book"
                          },
                          "keyParents": {},
                          "changes": [
                            {
                              "column": "price",
                              "old": 10.0,
                              "new": 11.0,
                              "kept": 13.0
                            }
                          ],
                          "detail": "changed in the store (price is 13, expected 10); the store's values are kept",
                          "line": 3
                        }
                """), "\(result.stdout)")
    }

    @Test func aDeleteIsDeniedForARowAManifestRefPointsAtWithoutAForeignKey() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql",
            BookStore.schema.replacingOccurrences(
                of: "INTEGER NOT NULL REFERENCES categories(id)", with: "INTEGER NOT NULL"))
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0002-retire.yml",
            "delete:\n  categories:\n    - { key: Biography, from: {} }\n    - { key: Poetry, from: {} }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stderr.contains(
                "warning: delete denied on categories 'Biography': still referenced by books.category_id; not deleted [1600]"
            ), "\(result)")
        #expect(result.stdout.contains("missing         categories 'Poetry'"))
        try expectEqual(
            project.database("user.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM categories")
            }, 2)
    }

    @Test func onConflictFailWritesNothing() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-reprice.yml",
            "update:\n  books:\n    - { key: The first book, from: { price: 10 }, to: { price: 11 } }\n")
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 13 WHERE title = 'The first book'")
        }
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite", "--on-conflict", "fail")
        expectEqual(result.status, 1)
        #expect(
            result.stderr.contains(
                "migrations/0002-reprice.yml:3: error: conflict on books 'The first book': changed in the store (price is 13, expected 10); --on-conflict fail: nothing was written [2050]"
            ), "\(result)")
        expectEqual(project.read("user.sqlite"), bytes, "not even 0001 was applied")
    }

    @Test func migrationDataIsValidatedWithTheManifestRulesFirst() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-expensive.yml",
            "insert:\n  books:\n    - { title: Gold, price: 5000, category_id: Fiction }\n")
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1)
        #expect(
            result.stderr.contains(
                "migrations/0002-expensive.yml:3: error: books: price 5000 is greater than the maximum 1000 [1610]"),
            "\(result)")
        expectEqual(project.read("user.sqlite"), bytes)
    }

    @Test func refusesAStoreWhoseAppliedMigrationChanged() throws {
        let project = try TemporaryProject.withUserStore()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try project.write(
            "migrations/0001-add-fourth-book.yml", BookStore.fourthBook.replacingOccurrences(of: "12", with: "13"))
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 3)
        #expect(
            result.stderr.contains(
                "user.sqlite: error: migration 0001-add-fourth-book (migrations/0001-add-fourth-book.yml) changed after it was applied to this store"
            ), "\(result)")
        #expect(result.stderr.contains("restore the file and put the change in a new migration"))
        expectEqual(project.read("user.sqlite"), bytes)
        #expect(try project.seedkit("status", "user.sqlite").stdout.contains("changed"))
    }

    @Test func refusesAStoreNewerThanTheseMigrations() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-later.yml", "insert:\n  categories:\n    - { name: Poetry }\n")
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try project.remove("migrations/0002-later.yml")
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 3)
        #expect(
            result.stderr.contains(
                "user.sqlite: error: the store is newer than these migrations: it has 0002-later applied, the latest here is 0001-add-fourth-book"
            ), "\(result)")
        expectEqual(project.read("user.sqlite"), bytes)
        #expect(try project.seedkit("status", "user.sqlite").stdout.contains("missing"))
    }

    @Test func refusesAFileThatIsNotADatabaseWithoutChangingIt() throws {
        let project = try TemporaryProject()
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try project.write("junk.sqlite", junk)
        let result = try project.seedkit("migrate", "junk.sqlite")
        expectEqual(result.status, 3, "\(result)")
        #expect(result.stderr.contains("not a SQLite database"))
        expectEqual(project.read("junk.sqlite"), junk)
        expectEqual(project.listing(".").filter { $0.hasPrefix("junk") }, ["junk.sqlite"])
    }

    @Test func aMissingStoreIsAUsageErrorAndIsNotCreated() throws {
        let project = try TemporaryProject()
        let result = try project.seedkit("migrate", "nope.sqlite")
        expectEqual(result.status, 2)
        #expect(!project.exists("nope.sqlite"))
        try expectEqual(project.seedkit("status", "nope.sqlite").status, 2)
        #expect(!project.exists("nope.sqlite"))
    }

    @Test func malformedMigrationsAreConfigurationErrorsNamingFileAndLine() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-bad.yml",
            "insert:\n  books:\n    - { title: X, price: 1, category_id: Fiction }\nupsert:\n  books: []\n")
        var result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2)
        #expect(
            result.stderr.contains(
                "migrations/0002-bad.yml:4:1: error: unknown operation 'upsert' (expected insert, update or delete) [2100]"
            ), "\(result)")
        try project.write("migrations/0002-bad.yml", "insert:\n  bookz:\n    - { title: X }\n")
        result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2)
        #expect(result.stderr.contains("unknown table 'bookz'"))
        try project.write(
            "migrations/0002-bad.yml", "insert:\n  books:\n    - { title: X, prize: 1, category_id: Fiction }\n")
        result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2)
        #expect(result.stderr.contains("migrations/0002-bad.yml:3: error: books has no column 'prize'"), "\(result)")
        try project.write("migrations/0002-bad.yml", "insert: {}\n")
        try project.write("migrations/0002-twice.sql", "SELECT 1;")
        result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2)
        #expect(result.stderr.contains("migration number 2 is used twice"))
    }

    @Test func dryRunPrintsThePlanAndWritesNothing() throws {
        let project = try TemporaryProject.withUserStore()
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        expectEqual(result.status, 0)
        expectEqual(
            result.stdout,
            "would apply 0001-add-fourth-book: 1 inserted\n  inserted        books 'The fourth book'\ndry run: nothing was written to user.sqlite\n"
        )
        expectEqual(project.read("user.sqlite"), bytes)
        expectEqual(
            project.listing(".").filter { $0.hasPrefix("user") }, ["user.sqlite"],
            "no -journal, -wal or -shm left behind")
    }

    @Test func backupWritesAConsistentCopyFirst() throws {
        let project = try TemporaryProject.withUserStore()
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", "before.sqlite")
        expectEqual(result.status, 0)
        try expectEqual(titles(project, "before.sqlite"), ["The first book", "The second book", "The third book"])
        try expectEqual(titles(project).count, 4)
    }

    @Test func sqlMigrationsRunOnceAndAreTracked() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-discount.sql", "UPDATE books SET price = price - 1;")
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        let prices = try project.database("user.sqlite").read { db in
            try Double.fetchAll(db, sql: "SELECT price FROM books ORDER BY id")
        }
        expectEqual(prices, [9, 14, 9, 11], "the SQL ran once, after 0001")
    }

    @Test func statusExitCodeSaysWhetherMigrationsArePending() throws {
        let project = try TemporaryProject.withUserStore()
        let pending = try project.seedkit("status", "user.sqlite", "--exit-code")
        expectEqual(pending.status, 1)
        #expect(pending.stdout.hasPrefix("0001-add-fourth-book"))
        #expect(pending.stdout.contains("pending"))
        try expectEqual(project.seedkit("status", "user.sqlite").status, 0)
        try project.seedkit("migrate", "user.sqlite")
        let json = try project.seedkit("status", "user.sqlite", "--exit-code", "--format", "json")
        expectEqual(json.status, 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let states = try #require(document["migrations"] as? [[String: Any]])
        expectEqual(states.map { $0["state"] as? String }, ["applied"])
    }
}

@Suite struct ExportMigrationsTests {
    @Test func exportedJSONHasTheSameChecksumAndTheRuntimeAppliesIt() throws {
        let project = try TemporaryProject()
        try project.write("migrations/0002-discount.sql", "UPDATE books SET price = price - 1;")
        let result = try project.seedkit("export-migrations", "app/migrations")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(project.listing("app/migrations"), ["0001-add-fourth-book.json", "0002-discount.sql"])
        let fromYAML = try MigrationDirectory.load(project.url("migrations"), yamlParser: YAMLDocument.parser)
        let exported = try MigrationDirectory.load(project.url("app/migrations"))
        expectEqual(exported.map(\.number), [1, 2])
        expectEqual(
            exported.map(\.checksum), fromYAML.map(\.checksum),
            "the same content has the same checksum in YAML and JSON")
        #expect(result.stdout.contains("wrote app/migrations/0001-add-fourth-book.json  \(exported[0].checksum)"))
        // A store the CLI migrated with the YAML file is up to date for the exported JSON.
        try project.seedkit("build", "--migrations", "none")
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        let status = try project.seedkit("status", "user.sqlite", "--migrations", "app/migrations")
        let states: [String] = status.stdout.split(separator: "\n").map { line in
            line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        }
        expectEqual(states, ["applied", "applied"], "\(status)")
    }
}
