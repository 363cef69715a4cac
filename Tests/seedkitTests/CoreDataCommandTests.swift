import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// The repository's Core Data example.
private let example: URL = {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent("Examples/CoreDataBookStore")
}()

/// Writes the store Core Data wrote before the chapter's update (docs/core-data.md) to `path`.
private func writeReferenceStore(_ project: TemporaryProject, _ path: String) throws -> Data {
    try CoreDataReference.write(into: try project.database(path))
}

@Suite struct CoreDataCommandTests {
    private let manifest = example.appendingPathComponent("seeds/seedkit.yml").path
    private let migrations = example.appendingPathComponent("migrations").path

    @Test func migratesTheExampleStoreAsCoreDataWould() throws {
        let project = try TemporaryProject(bookStore: false)
        let metadata = try writeReferenceStore(project, "BookStore.sqlite")
        let result = try project.seedkit(
            "migrate", "BookStore.sqlite", "--manifest", manifest, "--migrations", migrations)
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-add-fourth-book: 1 inserted"))
        let db = try project.database("BookStore.sqlite")
        let books = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE FROM ZBOOK WHERE Z_PK = 79")
        }
        expectEqual(
            books.map {
                "\($0[0] as Int)|\($0[1] as Int)|\($0[2] as Int)|\($0[3] as Int)|\($0[4] as Double)|\($0[5] as String)"
            }, ["79|1|1|52|12.0|The fourth book"])
        try expectEqual(
            db.read { db in try Int.fetchOne(db, sql: "SELECT Z_OPT FROM ZBOOKCATEGORY WHERE ZNAME = 'Biography'") }, 2)
        try expectEqual(
            db.read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") }, 79)
        try expectEqual(db.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }, metadata)
        let status = try project.seedkit("status", "BookStore.sqlite", "--migrations", migrations)
        #expect(status.stdout.contains("0001-add-fourth-book          applied"))
    }

    @Test func theModelsRulesValidateMigrationData() throws {
        let project = try TemporaryProject(bookStore: false)
        _ = try writeReferenceStore(project, "BookStore.sqlite")
        let bytes = try #require(project.read("BookStore.sqlite"))
        try project.write(
            "migrations/0001-long.yml",
            "insert:\n  Book:\n    - { title: \"\(String(repeating: "x", count: 120))\", price: 2000, category: Fiction }\n"
        )
        let result = try project.seedkit(
            "migrate", "BookStore.sqlite", "--manifest", manifest, "--migrations", "migrations")
        expectEqual(result.status, 1)
        #expect(
            result.stderr.contains(
                "migrations/0001-long.yml:3: error: Book: title 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is 120 characters long, longer than the maximum 100 [1660]"
            ), "\(result)")
        #expect(result.stderr.contains("Book: price 2000 is greater than the maximum 1000 [1610]"))
        expectEqual(project.read("BookStore.sqlite"), bytes)
    }

    @Test func inspectAndVerifySpeakCoreData() throws {
        let project = try TemporaryProject(bookStore: false)
        _ = try writeReferenceStore(project, "BookStore.sqlite")
        #expect(try project.seedkit("inspect", "BookStore.sqlite").stdout.contains("kind          Core Data"))
        try expectEqual(project.seedkit("verify", "BookStore.sqlite", "--manifest", manifest).status, 0)
        try project.database("BookStore.sqlite").write { db in
            try db.execute(sql: "UPDATE ZBOOKCATEGORY SET ZNAME = NULL WHERE Z_PK = 51")
        }
        let result = try project.seedkit("verify", "BookStore.sqlite", "--manifest", manifest)
        expectEqual(result.status, 1)
        #expect(
            result.stdout.contains("BookStore.sqlite: BookCategory[NULL].name: name is required but missing [1570]"),
            "\(result)")
    }

    @Test func manifestNamesAreCheckedAgainstTheModel() throws {
        let project = try TemporaryProject(bookStore: false)
        try FileManager.default.copyItem(
            at: example.appendingPathComponent("seeds/BookStore.xcdatamodeld"),
            to: project.url("seeds/BookStore.xcdatamodeld"))
        try project.write(
            "seeds/seedkit.yml",
            "model: BookStore.xcdatamodeld\ntables:\n  Bok: { file: data/books.csv, key: title }\n  Book: { file: data/books.csv, key: titel }\n"
        )
        let result = try project.seedkit("migrate", "x.sqlite")
        expectEqual(result.status, 2)
        #expect(
            result.stderr.contains(
                "seeds/seedkit.yml:3:3: error: unknown entity 'Bok': the model has Book, BookCategory, Page [2100]"),
            "\(result)")
        #expect(
            result.stderr.contains(
                "seeds/seedkit.yml:4:38: error: entity Book has no attribute, to-one or many-to-many relationship 'titel' [2100]"
            ))
        try project.write(
            "seeds/seedkit.yml",
            "model: BookStore.xcdatamodeld\ntables:\n  Book: { file: data/books.csv, key: title }\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 2)
        #expect(
            build.stderr.contains(
                "seeds/seedkit.yml: error: a Core Data seed is built by filling a template: add template: (a store the app created with this model) [2100]"
            ))
    }
}

@Suite struct CoreDataBuildTests {
    @Test func buildsTheExampleByFillingACopyOfItsTemplate() throws {
        let project = try TemporaryProject(bookStore: false)
        let template = example.appendingPathComponent("seeds/empty.sqlite")
        let templateBytes = try #require(FileManager.default.contents(atPath: template.path))
        let result = try project.seedkit(
            "build", "--manifest", example.appendingPathComponent("seeds/seedkit.yml").path,
            "--migrations", example.appendingPathComponent("migrations").path, "--output", "seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                "  BookCategory         2 rows\n  Book                 4 rows\n  Page                 4 rows\n"),
            "\(result)")
        expectEqual(
            FileManager.default.contents(atPath: template.path), templateBytes, "the template itself is never changed"
        )
        let db = try project.database("seed.sqlite")
        func rows(_ sql: String) throws -> [String] {
            try db.read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    (0..<row.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
                }
            }
        }
        try expectEqual(
            rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZBOOKCATEGORY ORDER BY Z_PK"),
            [
                "1|2|1|\"Fiction\"", "2|2|1|\"Biography\"",
            ])
        try expectEqual(
            rows("SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE FROM ZBOOK ORDER BY Z_PK"),
            [
                "1|1|1|1|10.0|\"The first book\"", "2|1|1|1|15.0|\"The second book\"",
                "3|1|1|2|10.0|\"The third book\"", "4|1|1|2|12.0|\"The fourth book\"",
            ])
        // Book.pages is ordered: each book's pages in fixture order, in Z_FOK_BOOK, from 2048 in steps of 1024 as Core Data numbers them (issue 11).
        try expectEqual(
            rows("SELECT Z_PK, Z_ENT, Z_OPT, ZBOOK, Z_FOK_BOOK FROM ZPAGE ORDER BY Z_PK"),
            [
                "1|3|1|1|2048", "2|3|1|1|3072", "3|3|1|3|2048", "4|3|1|1|4096",
            ])
        try expectEqual(
            rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "\"Book\"|4", "\"BookCategory\"|2", "\"Page\"|4",
            ])
        let templateMetadata = try DatabaseQueue(path: template.path).read { db in
            try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA")
        }
        try expectEqual(
            db.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }, templateMetadata)
        // The seed migrates as a Core Data store: the next book continues from Z_MAX.
        try project.write(
            "migrations/0001-add-fourth-book.yml",
            String(
                decoding: try Data(contentsOf: example.appendingPathComponent("migrations/0001-add-fourth-book.yml")),
                as: UTF8.self))
        try project.write(
            "migrations/0002-verses.yml",
            """
            insert:
              Book:
                - { title: Verses, price: 7, category: Biography }
              Page:
                - { book: The first book, text: A fourth page. }
                - { book: Verses, text: A first verse. }
            update:
              Page:
                - { key: { book: The third book, text: A life in one page. }, from: { book: The third book }, to: { book: The first book } }
            """)
        let migrate = try project.seedkit(
            "migrate", "seed.sqlite", "--manifest", example.appendingPathComponent("seeds/seedkit.yml").path)
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            rows("SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY FROM ZBOOK WHERE ZTITLE = 'Verses'"), ["5|1|1|2"],
            "inserted and given a page in one run: Core Data saves it once, at Z_OPT 1")
        try expectEqual(rows("SELECT Z_OPT FROM ZBOOKCATEGORY WHERE ZNAME = 'Biography'"), ["2"])
        // New pages go last in their book's order; a page that moves goes last in its new book.
        try expectEqual(
            rows("SELECT Z_PK, Z_OPT, ZBOOK, Z_FOK_BOOK FROM ZPAGE ORDER BY Z_PK"),
            [
                "1|1|1|2048", "2|1|1|3072", "3|2|1|6144", "4|1|1|4096", "5|1|1|5120", "6|1|5|2048",
            ])
        try expectEqual(
            rows("SELECT ZTITLE, Z_OPT FROM ZBOOK ORDER BY Z_PK"),
            [
                "\"The first book\"|2", "\"The second book\"|1", "\"The third book\"|2", "\"The fourth book\"|1",
                "\"Verses\"|1",
            ], "both sides of a changed relationship are bumped, once a run: the first book gains two pages in one save"
        )
    }

    /// A to-one relationship holds the parent's Z_PK; a fixture that names parents without a ref
    /// is told so, with the ref that fixes it, and that ref does.
    ///
    /// Authors and books: Book.author is a to-one relationship, stored as ZBOOK.ZAUTHOR.
    private func authorsAndBooks() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Lib.xcdatamodel",
            entities: """
                <entity name="Author" representedClassName="Author" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                </entity>
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZAUTHOR (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR INTEGER, ZTITLE VARCHAR);
                """, entityNames: ["Author", "Book"])
        try project.write("seeds/data/authors.csv", "name\nAnn\nBob\n")
        try project.write("seeds/data/books.csv", "title,author\nOne,Ann\nTwo,Bob\n")
        return project
    }

    @Test func aRelationshipNamedByKeyWithoutARefSaysWhichRefToAdd() throws {
        let project = try authorsAndBooks()
        let tables =
            "tables:\n  Author: { file: data/authors.csv, key: name }\n  Book: { file: data/books.csv, key: title"
        try project.write(
            "seeds/seedkit.yml", "model: Lib.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\n\(tables) }\n"
        )
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/books.csv:2:2: error: author: 'Ann' is not an integer (author is a to-one relationship to Author, stored as its row's Z_PK; to name Author rows by a key, add refs: { author: Author.name } to Book in the manifest) [2010]
            seeds/data/books.csv:3:2: error: author: 'Bob' is not an integer (author is a to-one relationship to Author, stored as its row's Z_PK; to name Author rows by a key, add refs: { author: Author.name } to Book in the manifest) [2010]

            """, "\(result)")
        try project.write(
            "seeds/seedkit.yml",
            "model: Lib.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\n\(tables), refs: { author: Author.name } }\n"
        )
        let fixed = try project.seedkit("build", "--migrations", "none")
        expectEqual(fixed.status, 0, "\(fixed)")
        try expectEqual(
            project.rows(
                "seed.sqlite",
                "SELECT b.ZTITLE, a.ZNAME FROM ZBOOK b JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR ORDER BY b.ZTITLE"),
            [
                "'One'|'Ann'", "'Two'|'Bob'",
            ])
    }

    /// A ref to an entity or attribute the model lacks is reported where the ref is written,
    /// with what the model has.
    @Test func aRefTheModelLacksIsReportedWhereItIsWritten() throws {
        let project = try authorsAndBooks()
        for (target, message) in [
            ("Nope.name", "no entity 'Nope'; the model has Author, Book"),
            ("author.name", "no entity 'author' (names are case-sensitive: Author?); the model has Author, Book"),
            ("Author.nope", "Author has no attribute 'nope'; it has name"),
        ] {
            try project.write(
                "seeds/seedkit.yml",
                "model: Lib.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Author: { file: data/authors.csv, key: name }\n  Book:\n    file: data/books.csv\n    key: title\n    refs: { author: \(target) }\n"
            )
            let result = try project.seedkit("build", "--migrations", "none")
            expectEqual(result.status, 2, "\(result)")
            expectEqual(
                result.stderr, "seeds/seedkit.yml:9:21: error: ref Book.author → \(target): \(message) [2100]\n",
                "\(result)")
        }
    }

    @Test func templateBuildsConvertEveryAttributeType() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Things.xcdatamodel",
            entities: """
                <entity name="Thing" representedClassName="Thing" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="small" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                    <attribute name="medium" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                    <attribute name="large" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <attribute name="ratio" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                    <attribute name="weight" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
                    <attribute name="amount" optional="YES" attributeType="Decimal"/>
                    <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                    <attribute name="bytes" optional="YES" attributeType="Binary"/>
                    <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                    <attribute name="link" optional="YES" attributeType="URI"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZTHING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSMALL INTEGER, ZMEDIUM INTEGER, ZLARGE INTEGER,
                        ZFLAG INTEGER, ZRATIO FLOAT, ZWEIGHT FLOAT, ZAMOUNT DECIMAL, ZBORN TIMESTAMP, ZNAME VARCHAR, ZLINK VARCHAR, ZBYTES BLOB, ZIDENTIFIER BLOB);
                """, entityNames: ["Thing"])
        try project.write(
            "seeds/seedkit.yml",
            "model: Things.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Thing: { file: data/things.jsonl, key: name }\n"
        )
        try project.write(
            "seeds/data/things.jsonl",
            """
            {"name": "a", "small": 7, "medium": 70000, "large": 9000000000, "ratio": 0.25, "weight": 1.5, "amount": "12.50", "flag": true, "born": "2001-01-02", "bytes": "AAEC", "identifier": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "link": "https://example.com/a"}
            {"name": "b", "flag": "no", "born": "2000-12-31T23:00:00Z"}

            """)
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 0, "\(result)")
        let row = try #require(
            try project.database("seed.sqlite").read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM ZTHING WHERE ZNAME = 'a'")
            })
        #expect(row["Z_PK"] as Int64? == 1 && row["Z_ENT"] as Int64? == 1 && row["Z_OPT"] as Int64? == 1)
        #expect(
            row["ZSMALL"] as Int64? == 7 && row["ZMEDIUM"] as Int64? == 70000
                && row["ZLARGE"] as Int64? == 9_000_000_000)
        #expect(
            row["ZRATIO"] as Double? == 0.25 && row["ZWEIGHT"] as Double? == 1.5 && row["ZAMOUNT"] as Double? == 12.5)
        #expect(row["ZFLAG"] as Int64? == 1)
        #expect(row["ZBORN"] as Double? == 86_400, "dates are seconds since 2001-01-01 UTC")
        #expect(row["ZBYTES"] as Data? == Data([0, 1, 2]))
        expectEqual(
            (row["ZIDENTIFIER"] as Data?).map { Array($0) },
            [
                0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
            ])
        #expect(row["ZLINK"] as String? == "https://example.com/a")
        let other = try #require(
            try project.database("seed.sqlite").read { db in
                try Row.fetchOne(db, sql: "SELECT ZFLAG, ZBORN, ZSMALL FROM ZTHING WHERE ZNAME = 'b'")
            })
        #expect(other[0] as Int64? == 0 && other[1] as Double? == -3_600 && other[2] as Int64? == nil)
        try expectEqual(
            project.database("seed.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY")
            }, 2)

        // A value the model's type refuses is an error at its line, and nothing is written.
        try project.write(
            "seeds/data/things.jsonl", "{\"name\": \"c\", \"born\": \"yesterday\", \"identifier\": \"nope\"}\n")
        try project.remove("seed.sqlite")
        let bad = try project.seedkit("build", "--migrations", "none")
        expectEqual(bad.status, 1)
        #expect(
            bad.stderr.contains(
                "seeds/data/things.jsonl:1:2: error: born: 'yesterday' is not a date (YYYY-MM-DD or an ISO 8601 date-time)"
            ), "\(bad)")
        #expect(bad.stderr.contains("seeds/data/things.jsonl:1:3: error: identifier: 'nope' is not a UUID"))
        #expect(!project.exists("seed.sqlite"))
    }
}

@Suite struct CoreDataDefaultsTests {
    /// A one-entity project whose attributes have defaults, with an empty template.
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Shop.xcdatamodel",
            entities: """
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="stock" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
                    <attribute name="listed" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                    <attribute name="since" optional="YES" attributeType="Date" minValueString="0" maxValueString="31536000" defaultDateTimeInterval="86400" usesScalarValueType="NO"/>
                    <attribute name="note" optional="YES" attributeType="String" defaultValueString="it's new"/>
                    <attribute name="colour" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSTOCK INTEGER, ZLISTED INTEGER, ZSINCE TIMESTAMP, ZNAME VARCHAR, ZNOTE VARCHAR, ZCOLOUR BLOB);
                """, entityNames: ["Item"])
        return project
    }

    private func rows(_ project: TemporaryProject, _ path: String) throws -> [String] {
        try project.rows(path, "SELECT ZNAME, ZSTOCK, ZLISTED, ZSINCE, ZNOTE FROM ZITEM ORDER BY Z_PK")
    }

    @Test func buildsFillTheModelsDefaultsForFieldsAFixtureLeavesOut() throws {
        let project = try project()
        try project.write(
            "seeds/seedkit.yml",
            "model: Shop.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Item: { file: data/items.csv, key: name }\n"
        )
        try project.write("seeds/data/items.csv", "name,stock\nPen,10\nInk,\n")
        let csv = try project.seedkit("build", "--migrations", "none")
        // A CSV without the column gets the default; an empty field is a given NULL, and stock is not optional.
        expectEqual(csv.status, 1)
        #expect(csv.stderr.contains("seeds/data/items.csv:3:2: error: stock is required but missing [1570]"), "\(csv)")
        try project.write("seeds/data/items.csv", "name,stock\nPen,10\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        let seedRows = try rows(project, "seed.sqlite")
        expectEqual(seedRows, ["'Pen'|10|1|86400|'it''s new'"])
        // JSON: a key left out gets the default; a key given keeps its value.
        try project.write(
            "seeds/seedkit.yml",
            "model: Shop.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Item: { file: data/items.jsonl, key: name }\n"
        )
        try project.write(
            "seeds/data/items.jsonl",
            "{\"name\": \"Pen\", \"listed\": false}\n{\"name\": \"Ink\", \"stock\": 0, \"note\": null}\n")
        let json = try project.seedkit("build", "--migrations", "none")
        expectEqual(json.status, 0, "\(json)")
        let jsonRows = try rows(project, "seed.sqlite")
        expectEqual(jsonRows, ["'Pen'|3|0|86400|'it''s new'", "'Ink'|0|1|86400|NULL"])
    }

    @Test func migrationsFillDefaultsWithTheManifestAndFromTheSeedAlone() throws {
        let project = try project()
        try project.write(
            "seeds/seedkit.yml",
            "model: Shop.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Item: { file: data/items.csv, key: name }\n"
        )
        try project.write("seeds/data/items.csv", "name\nPen\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        try project.write("migrations/0001-ink.yml", "insert:\n  Item:\n    - { name: Ink, stock: 5 }\n")
        let withManifest = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(withManifest.status, 0, "\(withManifest)")
        let seedRows = try rows(project, "seed.sqlite")
        expectEqual(seedRows, ["'Pen'|3|1|86400|'it''s new'", "'Ink'|5|1|86400|'it''s new'"])
        // An app has no manifest: the seed recorded the defaults.
        let alone = try project.seedkit("migrate", "app.sqlite", "--manifest", "none")
        expectEqual(alone.status, 0, "\(alone)")
        let appRows = try rows(project, "app.sqlite")
        expectEqual(appRows, ["'Pen'|3|1|86400|'it''s new'", "'Ink'|5|1|86400|'it''s new'"])
    }

    @Test func aDateAttributesRangeHasTheDateCodes() throws {
        let project = try project()
        try project.write(
            "seeds/seedkit.yml",
            "model: Shop.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Item: { file: data/items.csv, key: name }\n"
        )
        try project.write(
            "seeds/data/items.csv", "name,since\nPen,2000-06-01\nInk,2002-01-02T00:00:00Z\nCap,2001-12-31\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 1)
        expectEqual(
            build.stderr,
            """
            seeds/data/items.csv:2:2: error: since 2000-06-01T00:00:00Z is before the earliest allowed 2001-01-01T00:00:00Z [1640]
            seeds/data/items.csv:3:2: error: since 2002-01-02T00:00:00Z is after the latest allowed 2002-01-01T00:00:00Z [1630]

            """, "\(build)")
    }

    /// A Transformable attribute's value is the bytes of an archive, as a store holds them (base64
    /// in fixtures and migrations; docs/core-data.md, "Transformable attributes").
    ///
    /// Anything else is refused wherever it is written, said once, and nothing is written.
    @Test func transformableAttributesTakeAnArchivesBytesAndNothingElse() throws {
        let project = try project()
        try project.write(
            "seeds/seedkit.yml",
            "model: Shop.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Item: { file: data/items.csv, key: name }\n"
        )
        try project.write("seeds/data/items.csv", "name,colour\nPen,red\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 1)
        expectEqual(
            build.stderr,
            "seeds/data/items.csv:2:2: error: colour: 'red' is not base64-encoded bytes (the column is BLOB) [2010]\n",
            "\(build)")
        #expect(!project.exists("seed.sqlite"))
        let hello = Data("hello".utf8).base64EncodedString()
        try project.write("seeds/data/items.csv", "name,colour\nPen,\(hello)\n")
        let notArchive = try project.seedkit("build", "--migrations", "none")
        expectEqual(notArchive.status, 1)
        expectEqual(
            notArchive.stderr,
            "seeds/data/items.csv:2:2: error: colour is a Transformable attribute and its value is not an archive: its bytes are not a binary property list (an archive starts with bplist00); give the bytes a store holds, in base64, as init --coredata writes them [1550]\n",
            "\(notArchive)")
        try project.write("seeds/data/items.csv", "name\nPen\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        let before = try #require(project.read("seed.sqlite"))
        let refusal =
            "migrations/0001-ink.yml:3: error: Item: colour is a Transformable attribute and its value is not an archive: its bytes are not a binary property list (an archive starts with bplist00); give the bytes a store holds, in base64, as init --coredata writes them [1550]"
        try project.write("migrations/0001-ink.yml", "insert:\n  Item:\n    - { name: Ink, colour: \(hello) }\n")
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 1)
        #expect(migrate.stderr.contains(refusal), "\(migrate)")
        // Said once: the Core Data dialect refuses it, not the manifest's validator as well.
        expectEqual(migrate.stderr.components(separatedBy: "is a Transformable attribute").count, 2, "\(migrate)")
        expectEqual(project.read("seed.sqlite"), before)
        // With no manifest (as an app's runtime migrates): the model the seed records refuses it too.
        let alone = try project.seedkit("migrate", "seed.sqlite", "--manifest", "none")
        expectEqual(alone.status, 1)
        #expect(alone.stderr.contains(refusal), "\(alone)")
        expectEqual(project.read("seed.sqlite"), before)
        // An update that sets it: refused too.
        try project.write(
            "migrations/0001-ink.yml",
            "update:\n  Item:\n    - { key: Pen, from: { colour: null }, to: { colour: \(hello) } }\n")
        let update = try project.seedkit("migrate", "seed.sqlite", "--manifest", "none")
        expectEqual(update.status, 1)
        #expect(update.stderr.contains(refusal), "\(update)")
        expectEqual(project.read("seed.sqlite"), before)
    }
}

@Suite struct CoreDataVerifyTests {
    @Test func relationshipCountsAndRequiredToOnesHaveTheirCodes() throws {
        let project = try TemporaryProject(bookStore: false)
        let contents = String(
            decoding: try Data(
                contentsOf: example.appendingPathComponent(
                    "seeds/BookStore.xcdatamodeld/BookStore.xcdatamodel/contents")), as: UTF8.self)
        try project.write(
            "seeds/BookStore.xcdatamodel/contents",
            contents
                .replacingOccurrences(
                    of: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\"",
                    with: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\" minCount=\"1\" maxCount=\"2\""
                )
                .replacingOccurrences(
                    of: "<relationship name=\"category\" optional=\"YES\" maxCount=\"1\"",
                    with: "<relationship name=\"category\" optional=\"NO\" maxCount=\"1\""))
        try project.write(
            "seeds/seedkit.yml",
            "model: BookStore.xcdatamodel\ntables:\n  BookCategory: { file: data/c.csv, key: name }\n  Book: { file: data/b.csv, key: title, refs: { category: BookCategory.name } }\n"
        )
        try CoreDataReference.write(into: try project.database("store.sqlite"))
        try project.database("store.sqlite").write { db in
            try db.execute(sql: "INSERT INTO ZBOOKCATEGORY VALUES (53, 2, 1, 'Poetry')")
            try db.execute(
                sql:
                    "INSERT INTO ZBOOK VALUES (79, 1, 1, 51, 1.0, 'A third Fiction book'), (80, 1, 1, NULL, 2.0, 'Uncategorised')"
            )
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 53 WHERE Z_NAME = 'BookCategory'")
        }
        let result = try project.seedkit("verify", "store.sqlite")
        expectEqual(result.status, 3, "a store migrate would refuse (2200) is refused, after every finding is shown")
        expectEqual(
            result.stdout,
            """
            store.sqlite: Z_PRIMARYKEY: Z_PRIMARYKEY says the highest Book Z_PK is 78, but ZBOOK has 80: the store is inconsistent, and a new row would reuse a key [2200]
            store.sqlite: BookCategory[Fiction].books: books has 3 related rows, more than the maximum 2 [1590]
            store.sqlite: BookCategory[Poetry].books: books has 0 related rows, fewer than the minimum 1 [1580]
            store.sqlite: Book[Uncategorised].category: category is required but missing [1570]
            store.sqlite: 4 problems

            """, "\(result)")
    }
}

@Test func theReleaseWorkflowWorksForCoreDataProjectsInTheModelsNames() throws {
    let project = try TemporaryProject(bookStore: false)
    for item in ["BookStore.xcdatamodeld", "empty.sqlite", "seedkit.yml", "data/categories.csv", "data/pages.csv"] {
        try FileManager.default.copyItem(
            at: example.appendingPathComponent("seeds/\(item)"), to: project.url("seeds/\(item)"))
    }
    // Release 1.0: three books, no migrations yet.
    try project.write(
        "seeds/data/books.csv",
        "title,price,category\nThe first book,10,Fiction\nThe second book,15,Fiction\nThe third book,10,Biography\n")
    try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
    // Release 1.1 adds the fourth book.
    try project.write(
        "seeds/data/books.csv",
        "title,price,category\nThe first book,10,Fiction\nThe second book,15,Fiction\nThe third book,10,Biography\nThe fourth book,12,Biography\n"
    )
    let generated = try project.seedkit("new-migration", "add fourth book", "--from", "seeds/releases/1.0.sqlite")
    expectEqual(
        generated.stdout, "wrote migrations/0001-add-fourth-book.yml: 1 insert, 0 updates, 0 deletes\n",
        "\(generated)")
    let yaml = String(decoding: try #require(project.read("migrations/0001-add-fourth-book.yml")), as: UTF8.self)
    #expect(
        yaml.hasSuffix(
            "insert:\n  Book:\n    - { title: \"The fourth book\", category: \"Biography\", price: 12.0 }\n"), "\(yaml)"
    )
    let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
    expectEqual(check.status, 0, "\(check)")
    #expect(
        check.stdout.contains("seeds/releases/1.0.sqlite: applied 0001-add-fourth-book; converges with a fresh build"))
    #expect(check.stdout.contains("ok: user row Book 'The fourth book'.price = 13.0 kept"))
    // A wrong migration is caught, named in the model's terms.
    try project.write(
        "migrations/0001-add-fourth-book.yml", yaml.replacingOccurrences(of: "price: 12.0", with: "price: 14.0"))
    let broken = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
    expectEqual(broken.status, 1)
    #expect(broken.stdout.contains("  Book 'The fourth book'.price: got 14.0, expected 12.0\n"), "\(broken)")
}

@Suite struct CoreDataInspectTests {
    @Test func entitiesAndTheirRowsInTheAppsTerms() throws {
        let project = try TemporaryProject(bookStore: false)
        try CoreDataReference.write(into: try project.database("store.sqlite"))
        try project.database("store.sqlite").write { db in
            try db.execute(sql: "ALTER TABLE ZBOOK ADD COLUMN ZPUBLISHED TIMESTAMP")
            try db.execute(sql: "UPDATE ZBOOK SET ZPUBLISHED = 86400 WHERE Z_PK = 76")
        }
        let manifest = example.appendingPathComponent("seeds/seedkit.yml").path
        let summary = try project.seedkit("inspect", "store.sqlite")
        #expect(
            summary.stdout.contains(
                "entity        rows\n------------  ----\nBook          3\nBookCategory  2\nPage          0\n"),
            "\(summary)")
        let rows = try project.seedkit("inspect", "store.sqlite", "Book", "--manifest", manifest)
        expectEqual(
            rows.stdout,
            """
            id  category   price  title            published
            --  ---------  -----  ---------------  --------------------
            76  Fiction    10.0   The first book   2001-01-02T00:00:00Z
            77  Fiction    15.0   The second book  NULL
            78  Biography  10.0   The third book   NULL

            """, "\(rows)")
        // diff matches Core Data rows by the manifest's key, leaving Core Data's bookkeeping out.
        try FileManager.default.copyItem(atPath: project.path("store.sqlite"), toPath: project.path("other.sqlite"))
        try project.database("other.sqlite").write { db in
            try db.execute(sql: "UPDATE ZBOOK SET ZPRICE = 11, Z_OPT = Z_OPT + 1 WHERE ZTITLE = 'The first book'")
            try db.execute(sql: "UPDATE ZBOOKCATEGORY SET Z_OPT = 7")
        }
        let diff = try project.seedkit(
            "diff", "store.sqlite", "other.sqlite", "--manifest", manifest, "--table", "Book")
        expectEqual(
            diff.stdout, "Book: 0 added, 0 removed, 1 changed (by title)\n  ~ 'The first book': price 10.0 → 11.0\n",
            "\(diff)")
        // The whole store, in the app's terms; a table named as SQL names it still works.
        try project.database("other.sqlite").write { db in
            try db.execute(sql: "INSERT INTO ZBOOKCATEGORY VALUES (53, 2, 1, 'Poetry')")
        }
        let whole = try project.seedkit("diff", "store.sqlite", "other.sqlite", "--manifest", manifest)
        expectEqual(
            whole.stdout,
            """
            Book: 0 added, 0 removed, 1 changed (by title)
              ~ 'The first book': price 10.0 → 11.0
            BookCategory: 1 added, 0 removed, 0 changed (by name)
              + 'Poetry'
            Page: no differences
            Z_PRIMARYKEY: no differences
            Z_METADATA: no differences

            """, "\(whole)")
        #expect(
            try project.seedkit("diff", "store.sqlite", "other.sqlite", "--manifest", manifest, "--table", "ZBOOK")
                .stdout.hasPrefix("Book: 0 added"))
        // Without a manifest: column names without Z, relationships as the target's Z_PK.
        let bare = try project.seedkit(
            "inspect", "store.sqlite", "Book", "--manifest", "none", "--where", "ZPRICE > 10", "--format", "csv")
        expectEqual(bare.stdout, "id,category,price,title,published\r\n77,51,15.0,The second book,\r\n")
    }
}

@Suite struct CoreDataManyToManyTests {
    /// Book.tags (ordered) ↔ Tag.books, stored as Core Data stores it: Z_1TAGS(Z_1BOOKS, Z_2TAGS, Z_FOK_2TAGS).
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Library.xcdatamodel",
            entities: """
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                    CREATE TABLE ZTAG (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE Z_1TAGS (Z_1BOOKS INTEGER, Z_2TAGS INTEGER, Z_FOK_2TAGS INTEGER, PRIMARY KEY (Z_1BOOKS, Z_2TAGS));
                """, entityNames: ["Book", "Tag"])
        // Books first: a many-to-many side may be listed before the other is loaded.
        try project.write(
            "seeds/seedkit.yml",
            "model: Library.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Book: { file: data/books.csv, key: title, refs: { tags: Tag.name } }\n  Tag: { file: data/tags.csv, key: name }\n"
        )
        try project.write("seeds/data/tags.csv", "name\nClassics\nFavourites\n")
        return project
    }

    @Test func buildsWriteJoinRowsInListedOrder() throws {
        let project = try project()
        try project.write("seeds/data/books.csv", "title,tags\nEmma,\"Favourites, Classics\"\nDune,Classics\nNotes,\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        let joins = try project.rows(
            "seed.sqlite", "SELECT Z_1BOOKS, Z_2TAGS, Z_FOK_2TAGS FROM Z_1TAGS ORDER BY Z_1BOOKS, Z_FOK_2TAGS")
        expectEqual(
            joins, ["1|2|2048", "1|1|3072", "2|1|2048"],
            "Emma: Favourites then Classics; Dune: Classics (order keys from 2048, step 1024)")
        // The same from JSON, with arrays.
        try project.write(
            "seeds/seedkit.yml",
            "model: Library.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Book: { file: data/books.jsonl, key: title, refs: { tags: Tag.name } }\n  Tag: { file: data/tags.csv, key: name }\n"
        )
        try project.write(
            "seeds/data/books.jsonl",
            "{\"title\": \"Emma\", \"tags\": [\"Favourites\", \"Classics\"]}\n{\"title\": \"Dune\", \"tags\": \"Classics\"}\n{\"title\": \"Notes\"}\n"
        )
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try expectEqual(
            project.rows(
                "seed.sqlite", "SELECT Z_1BOOKS, Z_2TAGS, Z_FOK_2TAGS FROM Z_1TAGS ORDER BY Z_1BOOKS, Z_FOK_2TAGS"),
            joins)
        // verify counts many-to-many members through the join table.
        let model = try #require(project.read("seeds/Library.xcdatamodel/contents"))
        try project.write(
            "seeds/Library.xcdatamodel/contents",
            String(decoding: model, as: UTF8.self)
                .replacingOccurrences(
                    of: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\"",
                    with: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" minCount=\"1\" maxCount=\"1\""))
        let verify = try project.seedkit("verify", "seed.sqlite")
        expectEqual(verify.status, 1)
        expectEqual(
            verify.stdout,
            """
            seed.sqlite: Book[Emma].tags: tags has 2 related rows, more than the maximum 1 [1590]
            seed.sqlite: Book[Notes].tags: tags has 0 related rows, fewer than the minimum 1 [1580]
            seed.sqlite: 2 problems

            """, "\(verify)")
    }

    @Test func anUnknownOrRepeatedMemberIsAnErrorAtItsField() throws {
        let project = try project()
        try project.write(
            "seeds/data/books.csv", "title,tags\nEmma,\"Favourites, Classix\"\nDune,\"Classics, Classics\"\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 1)
        #expect(
            build.stderr.contains("seeds/data/books.csv:2:2: error: tags 'Classix' matches no Tag.name [2030]"),
            "\(build)")
        #expect(
            build.stderr.contains("seeds/data/books.csv:3:2: error: tags lists 'Classics' twice [2040]"), "\(build)")
        #expect(!project.exists("seed.sqlite"))
    }

    @Test func aTemplateWithoutTheJoinTableIsRefusedNotGuessedAt() throws {
        let project = try project()
        try project.database("seeds/empty.sqlite").write { db in try db.execute(sql: "DROP TABLE Z_1TAGS") }
        try project.write("seeds/data/books.csv", "title,tags\nEmma,Classics\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 2)
        #expect(
            build.stderr.contains(
                "seeds/data/books.csv:1:2: error: the template has no join table for Book.tags (a table Z_<n>… with columns Z_<Tag's Z_ENT>TAGS and one for Book); was it created with this model?"
            ), "\(build)")
        #expect(!project.exists("seed.sqlite"))
    }

    @Test func migrationsLinkInsertedRowsAndDeleteByTheDeletionRule() throws {
        let project = try project()
        try project.write("seeds/data/books.csv", "title,tags\nEmma,\"Favourites, Classics\"\nDune,Classics\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        try project.write(
            "migrations/0001-odes.yml",
            "insert:\n  Tag:\n    - { name: Poetry }\n  Book:\n    - { title: Odes, tags: [Poetry, Classics] }\ndelete:\n  Tag:\n    - { key: Favourites, from: {} }\n"
        )
        for (store, manifest) in [("seed.sqlite", []), ("app.sqlite", ["--manifest", "none"])] {
            let migrate = try project.seedkit(["migrate", store] + manifest)
            expectEqual(migrate.status, 0, "\(migrate)")
            #expect(migrate.stdout.contains("applied 0001-odes: 2 inserted, 1 deleted"), "\(migrate)")
            try expectEqual(
                project.rows(
                    store, "SELECT Z_1BOOKS, Z_2TAGS, Z_FOK_2TAGS FROM Z_1TAGS ORDER BY Z_1BOOKS, Z_FOK_2TAGS"),
                [
                    "1|1|3072", "2|1|2048", "3|3|2048", "3|1|3072",
                ],
                "Odes: Poetry then Classics; Favourites (Tag.books: Nullify) left with its join row")
            // Classics' inverse (books) changed: Z_OPT + 1; Poetry was inserted by this run: 1.
            try expectEqual(
                project.rows(store, "SELECT ZNAME, Z_OPT FROM ZTAG ORDER BY Z_PK"),
                [
                    "'Classics'|2", "'Poetry'|1",
                ])
            try expectEqual(
                project.rows(store, "SELECT ZTITLE, Z_OPT FROM ZBOOK ORDER BY Z_PK"),
                [
                    "'Emma'|2", "'Dune'|1", "'Odes'|1",
                ], "Emma lost a tag")
        }
        // Changing a many-to-many relationship in an update is refused, and nothing is written.
        let before = try #require(project.read("seed.sqlite"))
        try project.write(
            "migrations/0002-retag.yml",
            "update:\n  Book:\n    - { key: Dune, from: { tags: [Classics] }, to: { tags: [Poetry] } }\n")
        let update = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(update.status, 2)
        #expect(
            update.stderr.contains(
                "migrations/0002-retag.yml:3: error: update of Book 'Dune' changes the many-to-many relationship 'tags', which seedkit does not change in updates yet; nothing was written [2100]"
            ), "\(update)")
        expectEqual(project.read("seed.sqlite"), before)
    }
}
