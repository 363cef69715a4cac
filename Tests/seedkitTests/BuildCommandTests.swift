import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@Suite struct BuildCommandTests {
    @Test func buildsTheBookStoreSeedWithRowsRefsAndLedger() throws {
        let project = try TemporaryProject()
        let result = try project.seedkit("build")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("built build/seed.sqlite: 2 tables, 5 rows"))
        let db = try project.database("build/seed.sqlite")
        try db.read { db in
            let books = try Row.fetchAll(db, sql: "SELECT b.title, b.price, c.name FROM books b JOIN categories c ON c.id = b.category_id ORDER BY b.id")
            #expect(books.map { [$0[0] as String, String($0[1] as Double), $0[2] as String] } == [
                ["The first book", "10.0", "Fiction"], ["The second book", "15.0", "Fiction"], ["The third book", "10.0", "Biography"],
            ])
            let ledger = try MigrationLedger.entries(db)
            #expect(ledger.map(\.number) == [1])
            #expect(ledger.first?.origin == .seed)
            #expect(ledger.first?.appliedAt == nil)
            #expect(ledger.first?.checksum.hasPrefix("sha256:") == true)
            let meta = try SeedCatalog.meta(db)
            #expect(meta["format_version"] == "1")
            #expect(meta["content_hash"]?.count == 71)
            #expect(try SeedCatalog.tableSpecs(db) == [
                TableSpec(name: "categories", key: ["name"]),
                TableSpec(name: "books", key: ["title"], refs: ["category_id": .init(table: "categories", column: "name")]),
            ])
        }
    }

    @Test func theSeedIsOneFileInRollbackJournalMode() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        #expect(project.listing("build") == ["seed.sqlite"])
        let header = try #require(project.read("build/seed.sqlite")).prefix(20)
        #expect(Array(header.prefix(16)) == Array("SQLite format 3\0".utf8))
        #expect(header[header.startIndex + 18] == 1 && header[header.startIndex + 19] == 1, "1/1 is rollback journal; 2/2 would be WAL")
    }

    @Test func identicalInputsGiveByteIdenticalSeeds() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let first = try #require(project.read("build/seed.sqlite"))
        try project.seedkit("build", "--output", "build/again.sqlite")
        #expect(project.read("build/again.sqlite") == first)
    }

    @Test func checkPassesWhenFreshAndFailsWhenStaleWithoutWriting() throws {
        let project = try TemporaryProject()
        #expect(try project.seedkit("build", "--check").status == 1, "no output yet")
        #expect(!project.exists("build/seed.sqlite"))
        try project.seedkit("build")
        let built = try #require(project.read("build/seed.sqlite"))
        #expect(try project.seedkit("build", "--check").status == 0)
        try project.write("seeds/data/books.csv", BookStore.books + "The fourth book,12,Biography\n")
        let stale = try project.seedkit("build", "--check")
        #expect(stale.status == 1)
        #expect(stale.stdout.contains("stale"))
        #expect(project.read("build/seed.sqlite") == built)
    }

    @Test func reportsEveryErrorAtOnceGccStyleAndWritesNothing() throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let before = try #require(project.read("build/seed.sqlite"))
        try project.write("seeds/data/books.csv", """
            title,price,category_id
            The first book,10,Fiction
            The second book,-15,Fiction
            The third book,abc,Biography
            The first book,11,Fiction
            Fourth,3,Biographie

            """)
        let result = try project.seedkit("build")
        #expect(result.status == 1)
        #expect(result.stderr == """
            seeds/data/books.csv:3:2: error: price -15 is less than the minimum 0 [1620]
            seeds/data/books.csv:4:2: error: price: 'abc' is not a number (the column is REAL) [2010]
            seeds/data/books.csv:5:1: error: duplicate key title 'The first book': an earlier row has the same [2040]
            seeds/data/books.csv:6:3: error: category_id 'Biographie' matches no categories.name [2030]

            """)
        #expect(project.read("build/seed.sqlite") == before, "an earlier output is left untouched")
        #expect(project.listing("build") == ["seed.sqlite"], "no temporary file is left behind")
    }

    @Test func jsonAndGithubFormatsCarryTheSameDiagnostics() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\nA,2000,Fiction\nB,-1,Fiction\n")
        let json = try project.seedkit("build", "--format", "json")
        #expect(json.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["code"] as? Int == 1560)
        let errors = try #require(document["errors"] as? [[String: Any]])
        #expect(errors.map { $0["code"] as? Int } == [1610, 1620])
        #expect(errors.map { $0["line"] as? Int } == [2, 3])
        #expect(errors.first?["file"] as? String == "seeds/data/books.csv")
        #expect(errors.first?["message"] as? String == "price 2000 is greater than the maximum 1000")
        let github = try project.seedkit("build", "--format", "github")
        #expect(github.stdout.split(separator: "\n").first == "::error file=seeds/data/books.csv,line=2,col=2,title=seedkit 1610::price 2000 is greater than the maximum 1000 [1610]")
    }

    @Test func allRulesReportTheirCoreDataCodes() throws {
        let project = try TemporaryProject()
        try project.write("seeds/schema.sql", "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, isbn TEXT, format TEXT, published DATE, price REAL);")
        try project.write("seeds/seedkit.yml", """
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
        try project.write("seeds/data/t.csv", """
            name,isbn,format,published,price
            ,9780000000001,ebook,2000-01-01,1
            a,9780000000001,ebook,2000-01-01,1
            abcdef,97800,audiobook,1400-01-01,1
            ok,9780000000001,ebook,2000-01-01,60
            late,9780000000001,paperback,2200-01-01,1

            """)
        let result = try project.seedkit("build")
        #expect(result.status == 1)
        let codes = result.stderr.split(separator: "\n").map { line in line.split(separator: "[").last.map { String($0.dropLast()) } ?? "" }
        #expect(codes == ["1570", "1670", "1660", "1680", "1550", "1640", "1550", "1630"], "\(result)")
        #expect(result.stderr.contains("seeds/data/t.csv:5: error: an ebook can't cost more than 50 [1550]"))
        #expect(result.stderr.contains("seeds/data/t.csv:4:4: error: published 1400-01-01 is not after 1450-01-01, the earliest allowed [1640]"))
    }

    @Test func csvQuotingRulesHoldEndToEnd() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/categories.csv", Data("\u{FEFF}name\r\n\"Fiction, of course\"\r\n\"Say \"\"hi\"\"\"\r\n\"Multi\nline\"\r\n\"\"\r\n".utf8))
        try project.write("seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: "min_length: 1", with: "min_length: 0"))
        try project.write("seeds/data/books.csv", "title,price,category_id\nX,1,\"Multi\nline\"\n")
        let result = try project.seedkit("build")
        #expect(result.status == 0, "\(result)")
        let names = try project.database("build/seed.sqlite").read { db in try String.fetchAll(db, sql: "SELECT name FROM categories ORDER BY id") }
        #expect(names == ["Fiction, of course", "Say \"hi\"", "Multi\nline", ""])
    }

    @Test func emptyUnquotedFieldIsNullAndQuotedEmptyIsEmptyString() throws {
        let project = try TemporaryProject()
        try project.write("seeds/schema.sql", "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT);")
        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.csv }\n")
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("seeds/data/t.csv", "k,v\na,\nb,\"\"\n")
        #expect(try project.seedkit("build").status == 0)
        let rows = try project.database("build/seed.sqlite").read { db in try Row.fetchAll(db, sql: "SELECT k, v IS NULL, v FROM t ORDER BY k") }
        #expect(rows.map { $0[1] as Bool } == [true, false])
        #expect(rows[1][2] as String? == "")
    }

    @Test func jsonAndJsonLinesFixturesLoadWithTypesAndNestedValues() throws {
        let project = try TemporaryProject()
        try project.write("seeds/schema.sql", "CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, r REAL, b BOOLEAN, extra TEXT, d TEXT DEFAULT 'dflt');")
        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.json }\n")
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("seeds/data/t.json", """
            [
              {"k": "a", "n": 1, "r": 1.5, "b": true, "extra": {"tags": ["x", "y"]}},
              {"k": "b", "n": null, "r": 2, "b": false, "d": "given"}
            ]
            """)
        #expect(try project.seedkit("build").status == 0)
        let rows = try project.database("build/seed.sqlite").read { db in try Row.fetchAll(db, sql: "SELECT k, n, r, b, extra, d FROM t ORDER BY k") }
        #expect(rows[0][1] as Int64? == 1)
        #expect(rows[0][4] as String? == "{\"tags\": [\"x\", \"y\"]}")
        #expect(rows[0][5] as String? == "dflt", "a key left out takes the column's DEFAULT")
        #expect(rows[1][1] as Int64? == nil)
        #expect(rows[1][3] as Int64? == 0)
        #expect(rows[1][5] as String? == "given")

        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.jsonl }\n")
        try project.write("seeds/data/t.jsonl", "{\"k\": \"a\", \"n\": 1}\n{\"k\": \"b\", \"n\": \"x\"}\n{\"k\": \"c\", \"n\": 2,}\n")
        let bad = try project.seedkit("build")
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("seeds/data/t.jsonl:2:2: error: n: 'x' is not an integer (the column is INTEGER) [2010]"), "\(bad)")
        #expect(bad.stderr.contains("seeds/data/t.jsonl:3:"), "the JSON syntax error names its line")
    }
}
