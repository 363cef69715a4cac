import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

private func builtProject() throws -> TemporaryProject {
    let project = try TemporaryProject()
    let result = try project.seedkit("build")
    expectEqual(result.status, 0, "\(result)")
    return project
}

@Suite struct InspectCommandTests {
    @Test func summaryOfTheBookStoreSeed() throws {
        let project = try builtProject()
        let result = try project.seedkit("inspect", "build/seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let hash =
            try project.database("build/seed.sqlite").read { db in try SeedCatalog.meta(db)["content_hash"] } ?? "?"
        let checksum =
            try project.database("build/seed.sqlite").read { db in try MigrationLedger.entries(db).first?.checksum }
            ?? "?"
        expectEqual(
            result.stdout,
            """
            build/seed.sqlite
              kind          seedkit seed (format 1)
              size          32.0 KB (8 pages of 4096 bytes)
              journal       rollback journal
              content hash  \(hash)
              integrity     ok (quick_check)

            table       rows
            ----------  ----
            categories  2
            books       3

            migration             origin  applied_at  checksum
            --------------------  ------  ----------  \(String(repeating: "-", count: checksum.count))
            0001-add-fourth-book  seed                \(checksum)

            """)
    }

    @Test func summaryAsJSON() throws {
        let project = try builtProject()
        let result = try project.seedkit("inspect", "build/seed.sqlite", "--format", "json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["kind"] as? String == "seedkit seed")
        #expect((document["tables"] as? [[String: Any]])?.map { $0["rows"] as? Int } == [2, 3])
        #expect((document["integrity"] as? [String: Any])?["ok"] as? Bool == true)
        #expect((document["migrations"] as? [[String: Any]])?.first?["origin"] as? String == "seed")
    }

    @Test func rowsInEveryFormat() throws {
        let project = try builtProject()
        try expectEqual(
            project.seedkit("inspect", "build/seed.sqlite", "books").stdout,
            """
            id  title            price  category_id
            --  ---------------  -----  -----------
            1   The first book   10.0   Fiction
            2   The second book  15.0   Fiction
            3   The third book   10.0   Biography

            """, "refs by the parent's natural key")
        try expectEqual(
            project.seedkit("inspect", "build/seed.sqlite", "books", "--raw", "--format", "csv").stdout,
            "id,title,price,category_id\r\n1,The first book,10.0,1\r\n2,The second book,15.0,1\r\n3,The third book,10.0,2\r\n",
            "--raw: as stored")
        try expectEqual(
            project.seedkit("inspect", "build/seed.sqlite", "books", "--format", "csv", "--columns", "title,price")
                .stdout, "title,price\r\nThe first book,10.0\r\nThe second book,15.0\r\nThe third book,10.0\r\n")
        try expectEqual(
            project.seedkit("inspect", "build/seed.sqlite", "categories", "--format", "markdown").stdout,
            "| id | name |\n|---|---|\n| 1 | Fiction |\n| 2 | Biography |\n")
        let json = try project.seedkit(
            "inspect", "build/seed.sqlite", "books", "--format", "json", "--where", "price > 10")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["rows"] as? [[String: Any]])
        expectEqual(rows.map { $0["title"] as? String }, ["The second book"])
        #expect(rows.first?["price"] as? Double == 15)
    }

    @Test func limitSaysHowManyRowsWereLeftOut() throws {
        let project = try builtProject()
        let result = try project.seedkit("inspect", "build/seed.sqlite", "books", "--limit", "1", "--columns", "title")
        expectEqual(result.stdout, "title\n--------------\nThe first book\n(2 more rows not shown; use --limit)\n")
    }

    @Test func blobsShowSizeAndHexButCSVKeepsEverything() throws {
        let project = try TemporaryProject()
        try project.database("plain.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE t (b BLOB, s TEXT, n TEXT)")
            try db.execute(
                sql: "INSERT INTO t VALUES (?, ?, NULL)",
                arguments: [Data((0..<20).map { UInt8($0) }), String(repeating: "x", count: 60)])
            try db.execute(sql: "INSERT INTO t VALUES (NULL, '', 'a,\"b\"')")
        }
        let table = try project.seedkit("inspect", "plain.sqlite", "t")
        #expect(table.stdout.contains("<20 bytes 0001020304050607…>"))
        #expect(table.stdout.contains(String(repeating: "x", count: 60)), "not a terminal: text is not cut")
        let csv = try project.seedkit("inspect", "plain.sqlite", "t", "--format", "csv")
        expectEqual(
            csv.stdout,
            "b,s,n\r\n\(Data((0..<20).map { UInt8($0) }).base64EncodedString()),\(String(repeating: "x", count: 60)),\r\n,\"\",\"a,\"\"b\"\"\"\r\n"
        )
    }

    @Test func aPlainStoreMadeBySqlite3IsInspected() throws {
        let project = try TemporaryProject()
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "sqlite3", "made.sqlite",
                "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi');",
            ], in: project.root)
        expectEqual(made.status, 0)
        let result = try project.seedkit("inspect", "made.sqlite")
        #expect(result.stdout.contains("kind          plain SQLite"))
        #expect(result.stdout.contains("notes  1"))
    }

    @Test func readCommandsChangeNoByteAndLeaveNoFile() throws {
        let project = try builtProject()
        // A WAL-mode store, checkpointed and closed: only the .sqlite file is there.
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("wal.sqlite"))
        let queue = try project.database("wal.sqlite")
        try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
        for store in ["build/seed.sqlite", "wal.sqlite"] {
            let folder = (store as NSString).deletingLastPathComponent
            let before = project.listing(folder.isEmpty ? "." : folder)
            let bytes = try #require(project.read(store))
            for arguments in [
                ["inspect", store], ["inspect", store, "books"], ["diff", store, "build/seed.sqlite"],
                ["verify", store], ["status", store],
                ["migrate", store, "--dry-run"],
            ] {
                let result = try project.seedkit(arguments)
                #expect([0, 1].contains(result.status), "\(arguments): \(result)")
                expectEqual(project.read(store), bytes, "\(arguments) changed \(store)")
                expectEqual(
                    project.listing(folder.isEmpty ? "." : folder), before, "\(arguments) left files beside \(store)")
            }
        }
    }

    @Test func aMissingStoreIsAnErrorAndIsNotCreated() throws {
        let project = try TemporaryProject()
        for arguments in [
            ["inspect", "nope.sqlite"], ["diff", "nope.sqlite", "nope2.sqlite"], ["verify", "nope.sqlite"],
        ] {
            let result = try project.seedkit(arguments)
            expectEqual(result.status, 2, "\(arguments): \(result)")
            #expect(result.stderr.contains("nope.sqlite: error: no store here"))
        }
        #expect(!project.exists("nope.sqlite"))
    }
}

@Suite struct DiffCommandTests {
    private func pair(_ edit: String) throws -> TemporaryProject {
        let project = try builtProject()
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("a.sqlite"))
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("b.sqlite"))
        try project.database("b.sqlite").writeWithoutTransaction { db in try db.execute(sql: edit) }
        return project
    }

    @Test func reportsAddedRemovedAndChangedRowsByNaturalKey() throws {
        let project = try pair(
            """
            INSERT INTO books (title, price, category_id) VALUES ('The fourth book', 12, 2);
            DELETE FROM books WHERE title = 'The third book';
            UPDATE books SET price = 11 WHERE title = 'The first book';
            """)
        let result = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--exit-code")
        expectEqual(result.status, 1)
        expectEqual(
            result.stdout,
            """
            categories: no differences
            books: 1 added, 1 removed, 1 changed (by title)
              + 'The fourth book': price 12.0, category_id 'Biography'
              - 'The third book': price 10.0, category_id 'Biography'
              ~ 'The first book': price 10.0 → 11.0

            """)
        try expectEqual(project.seedkit("diff", "a.sqlite", "a.sqlite", "--exit-code").status, 0)
    }

    /// A store whose rowids shifted after a removed row (a fresh build of a release that deleted
    /// one) is matched by key: each row with its own, the merge aligned again after the removed
    /// row and after the added one (issue 45: every later row went through a map).
    @Test func rowsWhoseRowidsShiftedAreMatchedByKey() throws {
        let project = try pair(
            """
            DELETE FROM books WHERE title = 'The first book';
            UPDATE books SET id = id - 1;
            UPDATE books SET price = 99 WHERE title = 'The third book';
            INSERT INTO books (id, title, price, category_id) VALUES (1000, 'The fourth book', 12, 2);
            """)
        let result = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--exit-code")
        expectEqual(result.status, 1)
        expectEqual(
            result.stdout,
            """
            categories: no differences
            books: 1 added, 1 removed, 1 changed (by title)
              + 'The fourth book': price 12.0, category_id 'Biography'
              - 'The first book': price 10.0, category_id 'Fiction'
              ~ 'The third book': price 10.0 → 99.0

            """)
    }

    /// An added or removed row shows its values in every format, as `sqldiff` shows an INSERT's;
    /// a cell with nothing to say is empty (MarkdownFormatTests: a NULL value is NULL).
    @Test func addedAndRemovedRowsShowTheirValuesInEveryFormat() throws {
        let project = try pair(
            """
            INSERT INTO books (title, price, category_id) VALUES ('The fourth book', 12.5, 2);
            DELETE FROM books WHERE title = 'The third book';
            """)
        let json = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "json")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let books = try #require((document["tables"] as? [[String: Any]])?.first { $0["table"] as? String == "books" })
        let added = try #require(books["added"] as? [[String: Any]])
        expectEqual(added.count, 1)
        expectEqual(added.first?["key"] as? [String], ["The fourth book"])
        let values = try #require(added.first?["values"] as? [String: Any])
        expectEqual(values["price"] as? Double, 12.5)
        expectEqual(values["category_id"] as? String, "Biography")
        let removed = try #require((books["removed"] as? [[String: Any]])?.first?["values"] as? [String: Any])
        expectEqual(removed["price"] as? Double, 10.0)
        expectEqual(
            try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "csv").stdout,
            """
            table,change,key,column,old,new\r
            books,added,The fourth book,price,,12.5\r
            books,added,The fourth book,category_id,,Biography\r
            books,removed,The third book,price,10.0,\r
            books,removed,The third book,category_id,Biography,\r

            """)
        expectEqual(
            try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "markdown").stdout,
            """
            | table | change | key | column | old | new |
            |---|---|---|---|---|---|
            | books | added | The fourth book | price |  | 12.5 |
            | books | added | The fourth book | category_id |  | Biography |
            | books | removed | The third book | price | 10.0 |  |
            | books | removed | The third book | category_id | Biography |  |

            """)
    }

    /// NULL and '' differ, and so do a number and its text; 10 and 10.0 are one number, as
    /// SQLite's `IS` and sqldiff find them (docs/reference.md, "What `check-upgrade` checks").
    @Test func nullEmptyStringAndIntegerVersusTextDifferButNotIntegerVersusReal() throws {
        let project = try TemporaryProject()
        for (name, values) in [
            ("a.sqlite", "(1, NULL, 10), (2, 'x', 5), (3, 'y', 10)"),
            ("b.sqlite", "(1, '', '10'), (2, 'x', 5), (3, 'y', 10.0)"),
        ] {
            try project.database(name).write { db in
                try db.execute(
                    sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, v); INSERT INTO t VALUES \(values)")
            }
        }
        let result = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--manifest", "none")
        expectEqual(
            result.stdout,
            "t: 0 added, 0 removed, 1 changed (by id)\n  ~ 1: s NULL → '', v 10 (integer) → '10' (text)\n")
    }

    @Test func reportsSchemaDifferencesAndComparesCommonColumns() throws {
        let project = try pair("ALTER TABLE books ADD COLUMN isbn TEXT; CREATE TABLE extra (x);")
        let result = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "csv")
        expectEqual(
            result.stdout,
            "table,change,key,column,old,new\r\nextra,table only in B,,,,\r\nbooks,column only in B,,isbn,,\r\n")
        let json = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "json", "--table", "books")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["identical"] as? Bool == false)
        #expect((document["columnsOnlyInB"] as? [String: [String]])?["books"] == ["isbn"])
        #expect((document["tables"] as? [[String: Any]])?.map { $0["table"] as? String } == ["books"])
    }

    @Test func matchesByTheManifestKeyNotTheRowid() throws {
        // The same books inserted in another order: different ids, same data by title and category name.
        let project = try builtProject()
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("a.sqlite"))
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe third book,10,Biography\nThe second book,15,Fiction\nThe first book,10,Fiction\n"
        )
        try project.seedkit("build", "--output", "b.sqlite")
        let result = try project.seedkit("diff", "a.sqlite", "b.sqlite")
        expectEqual(result.stdout, "categories: no differences\nbooks: no differences\n", "\(result)")
        // A real change still shows, with the ref by the parent's key.
        try project.database("b.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET category_id = 2 WHERE title = 'The first book'")
        }
        try expectEqual(
            project.seedkit("diff", "a.sqlite", "b.sqlite").stdout,
            "categories: no differences\nbooks: 0 added, 0 removed, 1 changed (by title)\n  ~ 'The first book': category_id 'Fiction' → 'Biography'\n"
        )
    }
}

@Suite struct VerifyCommandTests {
    @Test func aSoundStorePasses() throws {
        let project = try builtProject()
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 0)
        expectEqual(
            result.stdout,
            "build/seed.sqlite: ok (integrity_check with CHECK constraints, foreign keys, rules and checks)\n")
    }

    @Test func findsRuleCheckAndForeignKeyViolations() throws {
        let project = try builtProject()
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest + "    checks:\n      - sql: \"price <> 15\"\n        message: nothing costs 15\n")
        try project.database("build/seed.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE books SET price = 5000 WHERE title = 'The first book'")
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('Orphan', 1, 99)")
        }
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 1)
        expectEqual(
            result.stdout,
            """
            build/seed.sqlite: books[Orphan]: references a missing row of categories [2030]
            build/seed.sqlite: books[The first book].price: price 5000 is greater than the maximum 1000 [1610]
            build/seed.sqlite: books[The second book]: nothing costs 15 [1550]
            build/seed.sqlite: 3 problems

            """)
        let csv = try project.seedkit("verify", "build/seed.sqlite", "--format", "csv")
        #expect(csv.stdout.hasPrefix("table,key,column,code,message\r\nbooks,Orphan,,2030,"))
    }
}
