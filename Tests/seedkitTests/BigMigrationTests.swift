import Foundation
import GRDB
import SeedTestSupport
import Testing

/// What `migrate` does differently when a data update is big (issue 13): the report lists a
/// sample of each kind and counts the rest; refs found once are reused only while their parent
/// table is unchanged; a large store's page check runs beside the run.
@Suite struct BigMigrationTests {
    /// A BookStore user store without migrations, and `migrations/` empty.
    private func userStore() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        return project
    }

    @Test func theReportListsTheFirstRowsOfEachKindAndCountsTheRest() throws {
        let project = try userStore()
        let present = (1...3).map { "    - { title: The \(["first", "second", "third"][$0 - 1]) book, price: 1, category_id: Fiction }\n" }
        let new = (1...45).map { "    - { title: New book \($0), price: \($0), category_id: Biography }\n" }
        try project.write("migrations/0001-many-books.yml", "insert:\n  books:\n" + present.joined() + new.joined())
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("verbose.sqlite"))

        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        let listed = (1...20).map { "  inserted        books 'New book \($0)'\n" }.joined()
        let expected = "applied 0001-many-books: 45 inserted, 3 already-present\n"
            + "  already-present books 'The first book': already present; left as it is\n"
            + "  already-present books 'The second book': already present; left as it is\n"
            + "  already-present books 'The third book': already present; left as it is\n"
            + listed
            + "  … 25 more inserted (--verbose lists every row)\n"
            + "user.sqlite: 1 migration applied\n"
        #expect(result.stdout == expected)
        let count = try project.database("user.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books WHERE title LIKE 'New book %'") }
        #expect(count == 45, "every row arrives, listed or not")

        let verbose = try project.seedkit("migrate", "verbose.sqlite", "--verbose")
        #expect(verbose.status == 0, "\(verbose)")
        #expect(verbose.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  inserted ") }.count == 45)
        #expect(!verbose.stdout.contains("more inserted"))
    }

    @Test func everyConflictIsListedHoweverMany() throws {
        let project = try userStore()
        try project.database("user.sqlite").write { db in
            for n in 1...30 { try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES (?, 99, 1)", arguments: ["Mine \(n)"]) }
        }
        let updates = (1...30).map { "    - { key: Mine \($0), from: { price: 5 }, to: { price: 6 } }\n" }
        try project.write("migrations/0001-reprice.yml", "update:\n  books:\n" + updates.joined())
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines.filter { $0.hasPrefix("  conflict        books 'Mine ") }.count == 30, "\(result)")
        #expect(!result.stdout.contains("more conflict"))
    }

    /// A ref's parent id is remembered within a run (a big update names a few parents 100,000
    /// times) only while nothing else writes the parent's table: after a rename, the old key finds nothing.
    @Test func aRefToAParentRenamedEarlierInTheRunDoesNotFindItUnderItsOldKey() throws {
        let project = try userStore()
        try project.write("migrations/0001-rename-fiction.yml", """
            insert:
              books:
                - { title: Book A, price: 1, category_id: Fiction }
            update:
              categories:
                - { key: Fiction, from: { name: Fiction }, to: { name: Novels } }

            """)
        try project.write("migrations/0002-more-books.yml", """
            insert:
              books:
                - { title: Book B, price: 1, category_id: Fiction }
                - { title: Book C, price: 1, category_id: Novels }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("  conflict        books 'Book B': "), "\(result)")
        let rows = try project.database("user.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT b.title, c.name FROM books b JOIN categories c ON c.id = b.category_id WHERE b.title LIKE 'Book %' ORDER BY b.title")
        }
        #expect(rows.map { [$0[0] as String, $0[1] as String] } == [["Book A", "Novels"], ["Book C", "Novels"]])
    }

    /// A user store past 16 MB: seedkit checks its pages on a second connection while the
    /// migration runs, and still refuses a damaged one with nothing written.
    private func largeUserStore(damaged: Bool) throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        #expect(try project.seedkit("build").status == 0)
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        let store = try project.database("build/seed.sqlite")
        let note = String(repeating: "a user's long note. ", count: 500)  // 10 KB: overflow pages
        try store.write { db in
            try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
            for n in 1...1800 { try db.execute(sql: "INSERT INTO user_notes (text) VALUES (?)", arguments: ["\(n) \(note)"]) }
        }
        let root = try store.read { db in try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'user_notes'") }
        try store.close()
        var bytes = try #require(project.read("build/seed.sqlite"))
        #expect(bytes.count > 17 << 20)
        if damaged {
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let page = try #require(root)
            bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0xA5, count: pageSize))
        }
        try project.write("user.sqlite", bytes)
        return project
    }

    @Test func aLargeDamagedStoreIsRefusedAndLeftAsItWas() throws {
        let project = try largeUserStore(damaged: true)
        let before = try #require(project.read("user.sqlite"))  // bytes, not a debug build's SHA-256 of 18 MB
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("the store is damaged (PRAGMA quick_check: "), "\(result)")
        #expect(result.stderr.contains("nothing was written"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(project.read("user.sqlite") == before)
    }

    @Test func aLargeSoundStoreMigrates() throws {
        let project = try largeUserStore(damaged: false)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-add-fourth-book: 1 inserted"), "\(result)")
        let price = try project.database("user.sqlite").read { db in try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The fourth book'") }
        #expect(price == 12)
        let integrity = try project.database("user.sqlite").read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
    }
}
