import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@Suite struct BuildCommandTests {
    @Test func buildsTheBookStoreSeedWithRowsRefsAndLedger() throws {
        let project = try TemporaryProject()
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("built build/seed.sqlite: 2 tables, 5 rows"))
        let db = try project.database("build/seed.sqlite")
        try db.read { db in
            let books = try Row.fetchAll(
                db,
                sql:
                    "SELECT b.title, b.price, c.name FROM books b JOIN categories c ON c.id = b.category_id ORDER BY b.id"
            )
            expectEqual(
                books.map { [$0[0] as String, String($0[1] as Double), $0[2] as String] },
                [
                    ["The first book", "10.0", "Fiction"], ["The second book", "15.0", "Fiction"],
                    ["The third book", "10.0", "Biography"],
                ])
            let ledger = try MigrationLedger.entries(db)
            expectEqual(ledger.map(\.number), [1])
            #expect(ledger.first?.origin == .seed)
            #expect(ledger.first?.appliedAt == nil)
            #expect(ledger.first?.checksum.hasPrefix("sha256:") == true)
            let meta = try SeedCatalog.meta(db)
            expectEqual(meta["format_version"], "1")
            #expect(meta["content_hash"]?.count == 71)
            let expected: [TableSpec] = [
                TableSpec(name: "categories", key: ["name"]),
                TableSpec(
                    name: "books", key: ["title"],
                    refs: ["category_id": TableSpec.Reference(table: "categories", column: "name")]),
            ]
            try expectEqual(SeedCatalog.tableSpecs(db), expected)
        }
    }

    @Test func theSeedIsOneFileInRollbackJournalMode() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        expectEqual(project.listing("build"), ["seed.sqlite"])
        let header = try #require(project.read("build/seed.sqlite")).prefix(20)
        expectEqual(Array(header.prefix(16)), Array("SQLite format 3\0".utf8))
        #expect(
            header[header.startIndex + 18] == 1 && header[header.startIndex + 19] == 1,
            "1/1 is rollback journal; 2/2 would be WAL")
    }

    @Test func identicalInputsGiveByteIdenticalSeeds() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let first = try #require(project.read("build/seed.sqlite"))
        try project.seedkit("build", "--output", "build/again.sqlite")
        expectEqual(project.read("build/again.sqlite"), first)
    }

    @Test func checkPassesWhenFreshAndFailsWhenStaleWithoutWriting() throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build", "--check").status, 1, "no output yet")
        #expect(!project.exists("build/seed.sqlite"))
        try project.seedkit("build")
        let built = try #require(project.read("build/seed.sqlite"))
        try expectEqual(project.seedkit("build", "--check").status, 0)
        try project.write("seeds/data/books.csv", BookStore.books + "The fourth book,12,Biography\n")
        let stale = try project.seedkit("build", "--check")
        expectEqual(stale.status, 1)
        #expect(stale.stdout.contains("stale"))
        expectEqual(project.read("build/seed.sqlite"), built)
    }

    @Test func reportsEveryErrorAtOnceGccStyleAndWritesNothing() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let before = try #require(project.read("build/seed.sqlite"))
        try project.write(
            "seeds/data/books.csv",
            """
            title,price,category_id
            The first book,10,Fiction
            The second book,-15,Fiction
            The third book,abc,Biography
            The first book,11,Fiction
            Fourth,3,Biographie

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/books.csv:3:2: error: price -15 is less than the minimum 0 [1620]
            seeds/data/books.csv:4:2: error: price: 'abc' is not a number (the column is REAL) [2010]
            seeds/data/books.csv:5:1: error: duplicate key title 'The first book': line 2 has the same [2040]
            seeds/data/books.csv:6:3: error: category_id 'Biographie' matches no categories.name [2030]

            """)
        expectEqual(project.read("build/seed.sqlite"), before, "an earlier output is left untouched")
        expectEqual(project.listing("build"), ["seed.sqlite"], "no temporary file is left behind")
    }

    @Test func jsonAndGithubFormatsCarryTheSameDiagnostics() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\nA,2000,Fiction\nB,-1,Fiction\n")
        let json = try project.seedkit("build", "--format", "json")
        expectEqual(json.status, 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["code"] as? Int == 1560)
        let errors = try #require(document["errors"] as? [[String: Any]])
        expectEqual(errors.map { $0["code"] as? Int }, [1610, 1620])
        expectEqual(errors.map { $0["line"] as? Int }, [2, 3])
        #expect(errors.first?["file"] as? String == "seeds/data/books.csv")
        #expect(errors.first?["message"] as? String == "price 2000 is greater than the maximum 1000")
        let github = try project.seedkit("build", "--format", "github")
        expectEqual(
            github.stdout.split(separator: "\n").first,
            "::error file=seeds/data/books.csv,line=2,col=2,title=seedkit 1610::price 2000 is greater than the maximum 1000 [1610]"
        )
    }

    @Test func allRulesReportTheirCoreDataCodes() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, isbn TEXT, format TEXT, published DATE, price REAL);")
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              t:
                file: data/t.csv
                key: name
                rules:
                  name: { required: true, min_length: 2, max_length: 5 }
                  isbn: { pattern: "[0-9]{13}" }
                  format: { one_of: [hardcover, paperback, ebook] }
                  published: { after: 1450-01-01, before: 2100-01-01 }
                checks:
                  - sql: "NOT (format = 'ebook' AND price > 50)"
                    message: an ebook can't cost more than 50

            """)
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/data/t.csv",
            """
            name,isbn,format,published,price
            ,9780000000001,ebook,2000-01-01,1
            a,9780000000001,ebook,2000-01-01,1
            abcdef,97800,audiobook,1400-01-01,1
            ok,9780000000001,ebook,2000-01-01,60
            late,9780000000001,paperback,2200-01-01,1

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        let codes = result.stderr.split(separator: "\n").map { line in
            line.split(separator: "[").last.map { String($0.dropLast()) } ?? ""
        }
        expectEqual(codes, ["1570", "1670", "1660", "1680", "1550", "1640", "1550", "1630"], "\(result)")
        #expect(result.stderr.contains("seeds/data/t.csv:5: error: an ebook can't cost more than 50 [1550]"))
        #expect(
            result.stderr.contains(
                "seeds/data/t.csv:4:4: error: published 1400-01-01 is not after 1450-01-01, the earliest allowed [1640]"
            ))
    }

    @Test func csvQuotingRulesHoldEndToEnd() throws {
        let project = try TemporaryProject()
        // No Biography category here: the example's migration (a book in Biography) would be a ref to a missing key.
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/data/categories.csv",
            Data("\u{FEFF}name\r\n\"Fiction, of course\"\r\n\"Say \"\"hi\"\"\"\r\n\"Multi\nline\"\r\n\"\"\r\n".utf8))
        try project.write(
            "seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: "min_length: 1", with: "min_length: 0"))
        try project.write("seeds/data/books.csv", "title,price,category_id\nX,1,\"Multi\nline\"\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        let names = try project.database("build/seed.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name FROM categories ORDER BY id")
        }
        expectEqual(names, ["Fiction, of course", "Say \"hi\"", "Multi\nline", ""])
    }

    @Test func emptyUnquotedFieldIsNullAndQuotedEmptyIsEmptyString() throws {
        let project = try TemporaryProject()
        try project.write("seeds/schema.sql", "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT);")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.csv }\n")
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("seeds/data/t.csv", "k,v\na,\nb,\"\"\n")
        try expectEqual(project.seedkit("build").status, 0)
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT k, v IS NULL, v FROM t ORDER BY k")
        }
        expectEqual(rows.map { $0[1] as Bool }, [true, false])
        #expect(rows[1][2] as String? == "")
    }

    @Test func jsonAndJsonLinesFixturesLoadWithTypesAndNestedValues() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, r REAL, b BOOLEAN, extra TEXT, d TEXT DEFAULT 'dflt');")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.json }\n")
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/data/t.json",
            """
            [
              {"k": "a", "n": 1, "r": 1.5, "b": true, "extra": {"tags": ["x", "y"]}},
              {"k": "b", "n": null, "r": 2, "b": false, "d": "given"}
            ]
            """)
        try expectEqual(project.seedkit("build").status, 0)
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT k, n, r, b, extra, d FROM t ORDER BY k")
        }
        #expect(rows[0][1] as Int64? == 1)
        // Nested values are stored canonical (minified, as SQLite's json() renders them; issue 33).
        #expect(rows[0][4] as String? == "{\"tags\":[\"x\",\"y\"]}")
        #expect(rows[0][5] as String? == "dflt", "a key left out takes the column's DEFAULT")
        #expect(rows[1][1] as Int64? == nil)
        #expect(rows[1][3] as Int64? == 0)
        #expect(rows[1][5] as String? == "given")

        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.jsonl }\n")
        try project.write(
            "seeds/data/t.jsonl", "{\"k\": \"a\", \"n\": 1}\n{\"k\": \"b\", \"n\": \"x\"}\n{\"k\": \"c\", \"n\": 2,}\n")
        let bad = try project.seedkit("build")
        expectEqual(bad.status, 1)
        #expect(
            bad.stderr.contains(
                "seeds/data/t.jsonl:2:2: error: n: 'x' is not an integer (the column is INTEGER) [2010]"), "\(bad)")
        #expect(bad.stderr.contains("seeds/data/t.jsonl:3:"), "the JSON syntax error names its line")
    }
}

/// The iso-codes shapes: subdivisions refer to countries and to a parent subdivision by code.
func isoProject(subdivisions: String, notNullParent: Bool = false, countriesFirst: Bool = true) throws
    -> TemporaryProject
{
    let project = try TemporaryProject()
    try project.remove("migrations/0001-add-fourth-book.yml")
    try project.write(
        "seeds/schema.sql",
        """
        CREATE TABLE countries (id INTEGER PRIMARY KEY, alpha_2 TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
        CREATE TABLE subdivisions (
            id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
            country_id INTEGER NOT NULL REFERENCES countries(id),
            parent_id INTEGER \(notNullParent ? "NOT NULL " : "")REFERENCES subdivisions(id));
        """)
    let countries = "  countries: { file: data/countries.csv, key: alpha_2 }\n"
    let subdivisionsTable = """
          subdivisions:
            file: data/subdivisions.csv
            key: code
            refs: { country_id: countries.alpha_2, parent_id: subdivisions.code }
            rules:
              name: { max_length: 20 }

        """
    try project.write(
        "seeds/seedkit.yml",
        "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n"
            + (countriesFirst ? countries + subdivisionsTable : subdivisionsTable + countries))
    try project.write("seeds/data/countries.csv", "alpha_2,name\nAZ,Azerbaijan\nNO,Norway\n")
    try project.write("seeds/data/subdivisions.csv", subdivisions)
    return project
}

@Suite struct BuildReferenceOrderTests {
    @Test func aLongChainListedChildrenFirstIsInsertedInOnePassNotOnePerLevel() throws {
        // 5,000 levels, each row before its parent: one pass per level took 3 min 45 s (debug); now about a second.
        let project = try isoProject(
            subdivisions: "code,name,country_id,parent_id\n"
                + (0..<5_000).reversed().map { level in
                    "NO-\(level),Level \(level),NO,\(level == 0 ? "" : "NO-\(level - 1)")\n"
                }.joined())
        let started = Date()
        let result = try project.seedkit("build")
        let elapsed = Date().timeIntervalSince(started)
        expectEqual(result.status, 0, "\(result)")
        #expect(elapsed < 30, "took \(elapsed) s")
        let links = try project.database("build/seed.sqlite").read { db in
            try Int.fetchOne(
                db,
                sql:
                    "SELECT count(*) FROM subdivisions s JOIN subdivisions p ON p.id = s.parent_id WHERE p.code = 'NO-' || (CAST(substr(s.code, 4) AS INTEGER) - 1)"
            )
        }
        expectEqual(links, 4_999, "every row points at its parent")
    }

    @Test func aSelfReferenceMayNameAParentListedLaterInTheFile() throws {
        let project = try isoProject(
            subdivisions: """
                code,name,country_id,parent_id
                AZ-ABS,Abşeron,AZ,AZ-NX
                NO-10,Agder,NO,NO-99
                AZ-NX,Naxçıvan,AZ,
                AZ-SAD,Sədərək,AZ,AZ-ABS
                NO-99,Region,NO,

                """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(result.stderr, "")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT s.code, p.code, c.alpha_2 FROM subdivisions s LEFT JOIN subdivisions p ON p.id = s.parent_id JOIN countries c ON c.id = s.country_id ORDER BY s.code"
            )
            .map { "\($0[0] as String)<\(($0[1] as String?) ?? "-")@\($0[2] as String)" }
        }
        expectEqual(rows, ["AZ-ABS<AZ-NX@AZ", "AZ-NX<-@AZ", "AZ-SAD<AZ-ABS@AZ", "NO-10<NO-99@NO", "NO-99<-@NO"])
        // The same data gives the same bytes, build after build.
        let first = try #require(project.read("build/seed.sqlite"))
        try expectEqual(project.seedkit("build", "--output", "build/again.sqlite").status, 0)
        expectEqual(project.read("build/again.sqlite"), first)
    }

    @Test func aTableMayReferToATableLoadedAfterIt() throws {
        let project = try isoProject(
            subdivisions: "code,name,country_id,parent_id\nNO-10,Agder,NO,NO-99\nNO-99,Region,NO,\n",
            countriesFirst: false)
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("built build/seed.sqlite: 2 tables, 4 rows"))
        let parents = try project.database("build/seed.sqlite").read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT c.alpha_2 || ' ' || s.code FROM subdivisions s JOIN countries c ON c.id = s.country_id ORDER BY s.code"
            )
        }
        expectEqual(parents, ["NO NO-10", "NO NO-99"])
    }

    @Test func rowsReferringToEachOtherThroughNullableRefsAreLinked() throws {
        let project = try isoProject(subdivisions: "code,name,country_id,parent_id\nAZ-A,A,AZ,AZ-B\nAZ-B,B,AZ,AZ-A\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT s.code || '<' || p.code FROM subdivisions s JOIN subdivisions p ON p.id = s.parent_id ORDER BY s.code"
            )
        }
        expectEqual(rows, ["AZ-A<AZ-B", "AZ-B<AZ-A"])
        try expectEqual(project.seedkit("verify", "build/seed.sqlite").status, 0)
    }

    @Test func aCycleOfNotNullRefsIsAnErrorNamingItsRows() throws {
        let project = try isoProject(
            subdivisions: """
                code,name,country_id,parent_id
                AZ-A,A,AZ,AZ-B
                AZ-ROOT,Root,AZ,AZ-ROOT
                AZ-B,B,AZ,AZ-C
                AZ-C,C,AZ,AZ-A
                AZ-D,D,AZ,AZ-C
                AZ-E,E,AZ,AZ-TYPO

                """, notNullParent: true)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/subdivisions.csv:2:4: error: parent_id 'AZ-B' is part of a cycle of references that no order of inserts satisfies: this row → subdivisions 'AZ-B' (line 4) → subdivisions 'AZ-C' (line 5) → this row; break the cycle [2030]
            seeds/data/subdivisions.csv:3:4: error: parent_id 'AZ-ROOT' names this row itself, which a NOT NULL ref cannot do (the row would have to exist before it is inserted); leave it empty for a root, with a nullable column [2030]
            seeds/data/subdivisions.csv:4:4: error: parent_id 'AZ-C' is part of a cycle of references that no order of inserts satisfies: this row → subdivisions 'AZ-C' (line 5) → subdivisions 'AZ-A' (line 2) → this row; break the cycle [2030]
            seeds/data/subdivisions.csv:5:4: error: parent_id 'AZ-A' is part of a cycle of references that no order of inserts satisfies: this row → subdivisions 'AZ-A' (line 2) → subdivisions 'AZ-B' (line 4) → this row; break the cycle [2030]
            seeds/data/subdivisions.csv:6:4: error: parent_id 'AZ-C' waits for rows in a cycle of references: subdivisions 'AZ-C' (line 5) → subdivisions 'AZ-A' (line 2) → subdivisions 'AZ-B' (line 4) → subdivisions 'AZ-C' (line 5) [2030]
            seeds/data/subdivisions.csv:7:4: error: parent_id 'AZ-TYPO' matches no subdivisions.code [2030]

            """, "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }
}

@Suite struct BuildCompleteErrorTests {
    @Test func rowsThatBreakARuleStillTakePartInKeyAndRefChecks() throws {
        let project = try isoProject(
            subdivisions: """
                code,name,country_id,parent_id
                NO-10,A name that is far too long,NO,
                NO-10,Agder,NO,
                NO-11,Child of a bad row,NO,NO-10
                NO-12,Typo,NX,
                NO-12,Twice,NO,

                """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/subdivisions.csv:2:2: error: name 'A name that is far too long' is 27 characters long, longer than the maximum 20 [1660]
            seeds/data/subdivisions.csv:3:1: error: duplicate key code 'NO-10': line 2 has the same [2040]
            seeds/data/subdivisions.csv:5:3: error: country_id 'NX' matches no countries.alpha_2 [2030]
            seeds/data/subdivisions.csv:6:1: error: duplicate key code 'NO-12': line 5 has the same [2040]

            """, "\(result)")
    }

    @Test func aRowMissingANotNullValueStillHoldsItsKeyForDuplicatesAndRefs() throws {
        // NO-10 and NO-20 have no name (NOT NULL): each is reported once, and still counts: the
        // second NO-10 is a duplicate, and NO-21's parent NO-20 exists.
        let project = try isoProject(
            subdivisions: """
                code,name,country_id,parent_id
                NO-10,,NO,
                NO-10,Agder,NO,
                NO-20,,NO,
                NO-21,Child,NO,NO-20

                """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/subdivisions.csv:2:2: error: NOT NULL constraint failed: subdivisions.name (the schema requires a value) [1570]
            seeds/data/subdivisions.csv:3:1: error: duplicate key code 'NO-10': line 2 has the same [2040]
            seeds/data/subdivisions.csv:4:2: error: NOT NULL constraint failed: subdivisions.name (the schema requires a value) [1570]

            """, "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    /// Plain rows go in 32 at a time (one multi-row INSERT); a statement with a broken row
    /// inserts none of them and its rows go one by one, so each problem is reported once, at its
    /// line, and no row is lost or counted twice.
    @Test func rowsInsertedManyAtATimeReportEachProblemOnceAtItsLine() throws {
        func countries(_ broken: Bool) -> String {
            var lines = ["alpha_2,name,official_name"]
            for n in 1...150 {
                var code = "C\(n)"
                var name = "Country \(n)"
                if broken && n == 40 { code = "C5" }  // UNIQUE alpha_2 of row 5, not the key
                if broken && n == 70 { name = "" }  // the key is required: the reader reports it
                if broken && n == 90 { name = "Country 20" }  // a duplicate key
                lines.append("\(code),\(name),")
            }
            return lines.joined(separator: "\n") + "\n"
        }
        let project = try IsoCodes.project()
        try project.write("seeds/data/subdivisions.csv", "code,name,type,country_id,parent_id\n")
        try project.write("seeds/data/countries.csv", countries(true))
        let failed = try project.seedkit("build")
        expectEqual(failed.status, 1)
        let positions: [String] = failed.stderrLines.map { line in String(line.prefix { $0 != " " }) }
        expectEqual(
            positions,
            [
                "seeds/data/countries.csv:41:1:", "seeds/data/countries.csv:71:2:", "seeds/data/countries.csv:91:2:",
            ], "\(failed)")
        #expect(
            failed.stderr.contains("countries.csv:41:1: error: duplicate key alpha_2 'C5': line 6 has the same [2040]"),
            "\(failed)")
        #expect(
            failed.stderr.contains(
                "countries.csv:91:2: error: duplicate key name 'Country 20': line 21 has the same [2040]"), "\(failed)")
        #expect(!project.exists("build/seed.sqlite"))

        try project.write("seeds/data/countries.csv", countries(false))
        let built = try project.seedkit("build")
        expectEqual(built.status, 0, "\(built)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT id, alpha_2, name FROM countries ORDER BY id")
        }
        expectEqual(rows.count, 150)
        let stored: [String] = rows.map { row in "\(row[0] as Int64),\(row[1] as String),\(row[2] as String)" }
        let expected: [String] = (1...150).map { (id: Int) in "\(id),C\(id),Country \(id)" }
        expectEqual(stored, expected)
    }

    @Test func aRowRepeatingAUniqueValueOtherThanItsKeyStillHoldsItsKey() throws {
        // Countries are keyed by name; alpha_2 is UNIQUE too. The second row repeats 'NO' and is
        // reported; its name still counts, so the third row's 'Turkey' is a duplicate key.
        let project = try IsoCodes.project()
        try project.write(
            "seeds/data/countries.csv", "alpha_2,name,official_name\nNO,Norway,\nNO,Turkey,\nTR,Turkey,\n")
        try project.write("seeds/data/subdivisions.csv", "code,name,type,country_id,parent_id\nNO-03,Oslo,County,NO,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/countries.csv:3:1: error: duplicate key alpha_2 'NO': line 2 has the same [2040]
            seeds/data/countries.csv:4:2: error: duplicate key name 'Turkey': line 3 has the same [2040]

            """, "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aValueOfTheWrongTypeIsReportedOnceAndItsRowStillHoldsItsKey() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/data/books.csv",
            """
            title,price,category_id
            The first book,abc,Fiction
            The first book,12,Biographie
            Another,,Fiction

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/books.csv:2:2: error: price: 'abc' is not a number (the column is REAL) [2010]
            seeds/data/books.csv:3:1: error: duplicate key title 'The first book': line 2 has the same [2040]
            seeds/data/books.csv:3:3: error: category_id 'Biographie' matches no categories.name [2030]
            seeds/data/books.csv:4:2: error: NOT NULL constraint failed: books.price (the schema requires a value) [1570]

            """, "\(result)")
    }
}
