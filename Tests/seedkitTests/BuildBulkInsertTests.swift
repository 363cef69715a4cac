import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// A project with one table, `schema` as its DDL and `csv` as its fixture (issue 13: the
/// multi-row INSERTs of plain records must not change what a build stores or reports).
private func oneTableProject(schema: String, table: String, key: String, csv: String) throws -> TemporaryProject {
    let project = try TemporaryProject()
    try project.remove("migrations/0001-add-fourth-book.yml")
    try project.write("seeds/schema.sql", schema)
    try project.write(
        "seeds/seedkit.yml",
        "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  \(table): { file: data/\(table).csv, key: \(key) }\n"
    )
    try project.write("seeds/data/\(table).csv", csv)
    return project
}

@Suite struct BuildBulkInsertTests {
    /// A trigger's RAISE(FAIL) (or a column's ON CONFLICT FAIL) stops a statement without undoing
    /// the rows it already inserted: a multi-row INSERT must not leave them in and then insert
    /// them again one by one (each would then be reported as a duplicate of itself).
    @Test(arguments: [
        """
        CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT NOT NULL, qty INTEGER NOT NULL);
        CREATE TRIGGER items_qty BEFORE INSERT ON items WHEN NEW.qty < 0 BEGIN SELECT RAISE(FAIL, 'qty is negative'); END;
        """,
        "CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT NOT NULL, qty INTEGER CHECK (qty >= 0), tag TEXT UNIQUE ON CONFLICT FAIL);",
    ])
    func aStatementThatFailsHalfwayLeavesNoRowToInsertTwice(schema: String) throws {
        let tagged = schema.contains("tag TEXT")
        var lines = [tagged ? "code,qty,tag" : "code,qty"]
        for n in 1...40 {
            let qty = !tagged && n == 5 ? -1 : n
            let tag = n == 5 ? "T1" : "T\(n)"  // row 5 repeats row 1's UNIQUE tag
            lines.append(tagged ? "C\(n),\(qty),\(tag)" : "C\(n),\(qty)")
        }
        let project = try oneTableProject(
            schema: schema, table: "items", key: "code", csv: lines.joined(separator: "\n") + "\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        // One problem, row 5's (line 6); rows 1-4 are reported for nothing.
        let problems = result.stderr.split(separator: "\n")
        #expect(problems.count == 1 && problems.allSatisfy { $0.hasPrefix("seeds/data/items.csv:6:") }, "\(result)")
    }

    /// An immediate FOREIGN KEY to the table itself is checked at the end of each statement: a
    /// row naming a later row's id is refused whether or not both went in by one multi-row INSERT
    /// (the verdict must not depend on how many rows the file has).
    @Test(arguments: [31, 40])
    func aRawSelfReferenceToALaterRowIsJudgedAlikeWhateverTheFileLength(rows: Int) throws {
        var lines = ["id,name,boss", "1,S1,2"]
        for n in 2...rows { lines.append("\(n),S\(n),") }
        let project = try oneTableProject(
            schema:
                "CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT NOT NULL, boss INTEGER REFERENCES staff(id));",
            table: "staff", key: "name", csv: lines.joined(separator: "\n") + "\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        #expect(result.stderr.contains("seeds/data/staff.csv:2:"), "\(result)")
    }

    /// JSON records that leave a field out (it takes its DEFAULT) go one by one between runs of
    /// whole ones, which go 32 at a time: every record arrives once, with its own values.
    @Test func recordsMissingAFieldGoOneByOneAmongWholeOnes() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, qty INTEGER DEFAULT 7);")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  items: { file: data/items.jsonl, key: code }\n"
        )
        let records = (1...150).map { n in
            n % 50 == 0 || n == 41 ? "{\"code\": \"C\(n)\"}" : "{\"code\": \"C\(n)\", \"qty\": \(n)}"
        }
        try project.write("seeds/data/items.jsonl", records.joined(separator: "\n") + "\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        let rows = try project.rows("build/seed.sqlite", "SELECT code, qty FROM items ORDER BY id")
        expectEqual(rows, (1...150).map { n in "'C\(n)'|\(n % 50 == 0 || n == 41 ? 7 : n)" })
    }
}

/// Rows with refs go in by multi-row INSERTs too (issue 23): each ref's parent id is resolved
/// before the statement binds it; a row whose parent is missing goes alone and is reported at
/// its line, once; the seed holds every row with its parent's id.
@Suite struct BuildBulkRefTests {
    private func project(books: [String]) throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER REFERENCES categories(id));
            """)
        try project.write(
            "seeds/data/categories.csv", "name\n" + (1...7).map { "C\($0)" }.joined(separator: "\n") + "\n")
        try project.write("seeds/data/books.csv", "title,price,category_id\n" + books.joined(separator: "\n") + "\n")
        return project
    }

    @Test func refsInBulkStoreEachParentsId() throws {
        let books = (1...150).map { n in "B\(n),\(n),\(n % 11 == 0 ? "" : "C\(n % 7 + 1)")" }
        let project = try project(books: books)
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        let rows = try project.rows(
            "build/seed.sqlite",
            "SELECT b.title, coalesce(c.name, '-') FROM books AS b LEFT JOIN categories AS c ON c.id = b.category_id ORDER BY b.id"
        )
        expectEqual(rows, (1...150).map { n in "'B\(n)'|'\(n % 11 == 0 ? "-" : "C\(n % 7 + 1)")'" })
    }

    @Test func aMissingParentAmongBulkRowsIsReportedOnceAtItsLine() throws {
        var books = (1...150).map { n in "B\(n),\(n),C\(n % 7 + 1)" }
        books[44] = "B45,45,Nowhere"  // line 46
        let project = try project(books: books)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        let problems = result.stderr.split(separator: "\n")
        #expect(problems.count == 1 && problems[0].hasPrefix("seeds/data/books.csv:46:"), "\(result)")
        #expect(problems.first?.contains("Nowhere") == true, "\(result)")
    }
}
