import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 23: a big insert migration writes rows by multi-row INSERTs (MigrationRun+Bulk.swift).
// Each test applies the same migration to two copies of the same store, with multi-row INSERTs
// and without (rows one by one, as before), and requires the same report, the same errors in the
// same order, the same rows (rowids included) and the same file bytes; and that the multi-row
// path did (or, where it is not safe, did not) run.

/// What a run left: its report or error, every table's rows, the store's bytes, and the multi-row INSERTs it ran.
/// (Shared with MultiRowFuzzTests.swift.)
struct MultiRowOutcome {
    var report: String
    var tables: [String: [String]]
    var bytes: Data
    var multiRowStatements: Int
}

private let now = Date(timeIntervalSince1970: 1_800_000_000)

/// A store with `schema` and `seed` (or the Core Data reference store): its file's path.
func multiRowStore(schema: String, seed: String, coreData: Bool) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-multirow-\(UUID().uuidString).sqlite"
    ).path
    let queue = try DatabaseQueue(path: path)
    if coreData {
        let memory = try DatabaseQueue()
        _ = try CoreDataReference.write(into: memory)
        try memory.backup(to: queue)
    }
    try queue.write { db in
        if !schema.isEmpty { try db.execute(sql: schema) }
        if !seed.isEmpty { try db.execute(sql: seed) }
    }
    try queue.close()
    return path
}

/// Migrates a copy of the store at `base` with multi-row INSERTs or without; `configure` changes
/// the options further (a conflict policy, a validator, …), and `dryRun` only plans.
func multiRowRun(
    _ base: String, specs: [TableSpec], migrations loaded: [Migration], multiRow: Bool, dryRun: Bool = false,
    configure: (inout SeedMigrator.Options) -> Void = { _ in }
) throws -> MultiRowOutcome {
    let path = base + "-\(multiRow ? "multi" : "single").sqlite"
    defer {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    try FileManager.default.copyItem(atPath: base, toPath: path)
    let queue = try DatabaseQueue(path: path)
    var options = SeedMigrator.Options(tables: specs, now: now)
    options.writesDirectly = true
    options.multiRowInserts = multiRow
    options.eventsPerKind = 20  // as the CLI lists them: the first 20 inserted, in order
    configure(&options)
    var multiRowStatements = 0
    let counter = MultiRowCounter()
    queue.inDatabase { db in db.trace(options: .statement) { event in counter.saw("\(event)") } }
    let report: String
    do {
        let migrator = try SeedMigrator(migrations: loaded)
        let result = try dryRun ? migrator.dryRun(queue, options: options) : migrator.migrate(queue, options: options)
        report = result.migrations.map { outcome in
            "\(outcome.number) \(outcome.unlisted.sorted { "\($0.key)" < "\($1.key)" })\n"
                + outcome.events.map {
                    "\($0.kind) \($0.table) \($0.keyDescription) \($0.changes) \($0.detail) \($0.file):\($0.line)"
                }.joined(separator: "\n")
        }.joined(separator: "\n")
    } catch let error as SeedError {
        report = "error \(error.kind)\n" + error.diagnostics.map { "\($0)" }.joined(separator: "\n")
    }
    queue.inDatabase { db in db.trace(options: .statement, nil) }
    multiRowStatements = counter.count
    var tables: [String: [String]] = [:]
    try queue.read { db in
        for table in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        {
            let withoutRowID =
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table])?
                .uppercased().contains("WITHOUT ROWID") == true
            let rows = try Row.fetchAll(
                db,
                sql: withoutRowID
                    ? "SELECT * FROM \(quoteIdentifier(table))"
                    : "SELECT rowid AS _rowid, * FROM \(quoteIdentifier(table)) ORDER BY rowid")
            tables[table] = rows.map { row in
                (0..<row.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
            }
        }
    }
    try queue.close()
    return MultiRowOutcome(
        report: report, tables: tables, bytes: try Data(contentsOf: URL(fileURLWithPath: path)),
        multiRowStatements: multiRowStatements)
}

/// Counts the multi-row INSERTs SQLite ran (its trace sees statements stepped through the C API too).
private final class MultiRowCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var seen = 0
    func saw(_ sql: String) {
        guard sql.hasPrefix("INSERT OR ABORT"), sql.contains("), (") else { return }
        lock.withLock { seen += 1 }
    }
    var count: Int { lock.withLock { seen } }
}

/// Runs both ways and requires the same outcome; returns the multi-row one.
@discardableResult
private func bothWays(
    schema: String, seed: String = "", specs: [TableSpec], migrations: [(String, String)], coreData: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> MultiRowOutcome {
    let base = try multiRowStore(schema: schema, seed: seed, coreData: coreData)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let loaded = try migrations.map { try loadMigration(json: $0.1, fileName: $0.0) }
    let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: false)
    let multi = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
    #expect(single.multiRowStatements == 0, sourceLocation: sourceLocation)
    #expect(multi.report == single.report, sourceLocation: sourceLocation)
    #expect(multi.tables == single.tables, sourceLocation: sourceLocation)
    #expect(multi.bytes == single.bytes, "the store files are byte for byte the same", sourceLocation: sourceLocation)
    return multi
}

private func json(_ table: String, _ rows: [String]) -> String {
    "{\"insert\": {\"\(table)\": [" + rows.joined(separator: ", ") + "]}}"
}

private let booksSchema = """
    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, price REAL CHECK (price >= 0),
                        category_id INTEGER NOT NULL REFERENCES categories(id));
    """
private let booksSeed =
    "INSERT INTO categories (name) VALUES ('Fiction'), ('Biography'); INSERT INTO books (isbn, title, price, category_id) VALUES ('0', 'Seed book', 1, 1);"
private let booksSpecs = [
    TableSpec(name: "categories", key: ["name"]),
    TableSpec(name: "books", key: ["isbn"], refs: ["category_id": .init(table: "categories", column: "name")]),
]

private func book(_ n: Int, title: String? = nil, price: String = "2.5", category: String = "Fiction") -> String {
    "{\"isbn\": \"\(n)\", \"title\": \(title.map { "\"\($0)\"" } ?? "null"), \"price\": \(price), \"category_id\": \"\(category)\"}"
}

@Suite struct MultiRowMigrateTests {
    @Test func newRowsWithARefGoInByMultiRowInsertsAsTheyWouldOneByOne() throws {
        // 100 rows: three statements of 32 and 4 rows one by one; a ref to a category by name.
        let rows = (1...100).map { book($0, title: "Book \($0)", category: $0 % 3 == 0 ? "Biography" : "Fiction") }
        let outcome = try bothWays(
            schema: booksSchema, seed: booksSeed, specs: booksSpecs,
            migrations: [("0001-books.json", json("books", rows))])
        expectEqual(outcome.multiRowStatements, 3)
        #expect(outcome.tables["books"]?.count == 101)
        #expect(outcome.report.contains("inserted books"))
    }

    @Test func keysAlreadyInTheStoreOrEarlierInTheBatchAreSkippedAndReported() throws {
        // The user has books 5, 40 and 77; the update names book 12 twice (the second is already present).
        let seed =
            booksSeed
            + "INSERT INTO books (isbn, title, price, category_id) VALUES ('5', 'Mine', 9, 2), ('40', 'Mine too', 9, 2), ('77', 'Also mine', 9, 1);"
        var rows = (1...100).map { book($0, title: "Book \($0)") }
        rows.insert(book(12, title: "Book 12 again"), at: 20)
        let outcome = try bothWays(
            schema: booksSchema, seed: seed, specs: booksSpecs, migrations: [("0001-books.json", json("books", rows))])
        expectEqual(
            outcome.report.components(separatedBy: "already present; left as it is").count - 1, 4, "\(outcome.report)"
        )
        #expect(
            outcome.tables["books"]?.contains { $0.hasSuffix("|\"Mine\"|9.0|2") } == true,
            "the user's row is left as it is")
        expectEqual(
            outcome.multiRowStatements, 2,
            "a statement of rows 1-32 fails (5 and 12), rows 33-64 go singly, 65-96 fail (77)")
    }

    @Test func aRowThatFailsMidBatchFailsTheRunWithItsKeyAndNothingIsWritten() throws {
        // Row 40 has no title (NOT NULL), row 45 a price the CHECK refuses, row 50 a price that is not a number:
        // each error names its row, in the rows' order, and the run writes nothing.
        var rows = (1...100).map { book($0, title: "Book \($0)") }
        rows[39] = book(40, title: nil)
        rows[44] = book(45, title: "Cheap", price: "-1")
        rows[49] = book(50, title: "Odd", price: "\"lots\"")
        let outcome = try bothWays(
            schema: booksSchema, seed: booksSeed, specs: booksSpecs,
            migrations: [("0001-books.json", json("books", rows))])
        #expect(outcome.report.hasPrefix("error invalidData"), "\(outcome.report)")
        let lines = outcome.report.components(separatedBy: "\n").dropFirst()
        expectEqual(lines.count, 3, "\(outcome.report)")
        #expect(lines.first?.contains("'40'") == true && lines.first?.contains("NOT NULL") == true, "\(outcome.report)")
        #expect(lines.dropFirst().first?.contains("'45'") == true, "\(outcome.report)")
        #expect(lines.last?.contains("lots") == true, "\(outcome.report)")
        #expect(outcome.tables["books"]?.count == 1, "rolled back")
    }

    @Test func aTypeErrorAfterAHeldRowThatFailsStaysAfterItsError() throws {
        // Row 3 breaks NOT NULL when written (held, then written at the batch's end); row 5's type
        // error is found as it is read. One by one, row 3's error comes first: so it must here.
        var rows = (1...40).map { book($0, title: "Book \($0)") }
        rows[2] = book(3, title: nil)
        rows[4] = book(5, title: "Bad", price: "\"x\"")
        let outcome = try bothWays(
            schema: booksSchema, seed: booksSeed, specs: booksSpecs,
            migrations: [("0001-books.json", json("books", rows))])
        let lines = outcome.report.components(separatedBy: "\n").dropFirst()
        #expect(lines.count == 2 && lines.first?.contains("'3'") == true, "\(outcome.report)")
    }

    @Test func aTableWithATriggerTakesRowsOneByOne() throws {
        let schema =
            booksSchema + """
                CREATE TABLE log (what TEXT);
                CREATE TRIGGER books_log AFTER INSERT ON books BEGIN INSERT INTO log VALUES ('added ' || NEW.isbn); END;
                CREATE TRIGGER books_veto BEFORE INSERT ON books WHEN NEW.isbn = '33' BEGIN SELECT RAISE(IGNORE); END;
                """
        let rows = (1...70).map { book($0, title: "Book \($0)") }
        let outcome = try bothWays(
            schema: schema, seed: booksSeed, specs: booksSpecs, migrations: [("0001-books.json", json("books", rows))])
        expectEqual(outcome.multiRowStatements, 0)
        #expect(outcome.report.contains("books_veto"), "\(outcome.report)")
    }

    @Test(arguments: ["IGNORE", "REPLACE", "FAIL", "ABORT"])
    func aTableWithConflictClausesOnAUniqueColumnGivesTheSameRows(clause: String) throws {
        // A UNIQUE column besides the key, with the schema's clause; rows 20 and 60 take a code the store has.
        let schema = """
            CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, code TEXT UNIQUE ON CONFLICT \(clause));
            INSERT INTO tags (name, code) VALUES ('seed', 'c-20'), ('other', 'c-60');
            """
        let rows = (1...80).map { "{\"name\": \"t\($0)\", \"code\": \"c-\($0)\"}" }
        let outcome = try bothWays(
            schema: schema, specs: [TableSpec(name: "tags", key: ["name"])],
            migrations: [("0001-tags.json", json("tags", rows))])
        expectEqual(
            outcome.multiRowStatements, (clause == "ABORT" ? 1 : 0),
            "\(clause): rows 1-32 fail on c-20, then go singly with the next 32")
        #expect(
            outcome.tables["tags"]?.contains { $0.contains("\"seed\"|\"c-20\"") } == true,
            "the store's row is never replaced")
    }

    @Test func aSelfReferencingTableTakesRowsOneByOne() throws {
        // Each person names the next one as their manager (a later row of the same update): by FOREIGN KEY and by ref.
        let schema =
            "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, manager_id INTEGER REFERENCES people(id));"
        let rows = (1...70).map {
            "{\"name\": \"p\($0)\", \"manager_id\": " + ($0 < 70 ? "\"p\($0 + 1)\"" : "null") + "}"
        }
        let specs = [
            TableSpec(name: "people", key: ["name"], refs: ["manager_id": .init(table: "people", column: "name")])
        ]
        let outcome = try bothWays(
            schema: schema, specs: specs, migrations: [("0001-people.json", json("people", rows))])
        expectEqual(outcome.multiRowStatements, 0)
        #expect(outcome.tables["people"]?.count == 70)
        // Without the ref in the specs (the key only): the FOREIGN KEY alone keeps rows one by one.
        let plain = try bothWays(
            schema: schema, specs: [TableSpec(name: "people", key: ["name"])],
            migrations: [("0001-people.json", json("people", (1...70).map { "{\"name\": \"p\($0)\"}" }))])
        expectEqual(plain.multiRowStatements, 0)
    }

    @Test func refsToParentsInsertedEarlierOrLaterInTheRunResolveAsOneByOne() throws {
        // A category the same migration inserts first, one a later migration inserts (its books wait), and one nobody does.
        var rows = (1...90).map { book($0, title: "Book \($0)", category: ["Fiction", "Poetry", "Biography"][$0 % 3]) }
        rows[50] = book(51, title: "Lost", category: "Nowhere")
        rows[70] = book(71, title: "Later", category: "Drama")
        let first =
            "{\"insert\": {\"categories\": [{\"name\": \"Poetry\"}], \"books\": [" + rows.joined(separator: ", ")
            + "]}}"
        let second = json("categories", ["{\"name\": \"Drama\"}"])
        let outcome = try bothWays(
            schema: booksSchema, seed: booksSeed, specs: booksSpecs,
            migrations: [("0001-books.json", first), ("0002-drama.json", second)])
        #expect(outcome.multiRowStatements >= 1)
        #expect(outcome.report.contains("Nowhere"), "\(outcome.report)")
    }

    @Test func aBigFileReadWhileAppliedGivesTheSameRows() throws {
        // Over 1 MiB: read in chunks of 1,024 rows by a second thread while the run writes them.
        let rows = (1...9_000).map {
            book(
                $0, title: "A rather long title for book number \($0), to make the file big enough",
                category: $0 % 2 == 0 ? "Biography" : "Fiction")
        }
        let text = json("books", rows)
        #expect(text.utf8.count >= 1 << 20)
        let outcome = try bothWays(
            schema: booksSchema, seed: booksSeed, specs: booksSpecs, migrations: [("0001-books.json", text)])
        #expect(outcome.multiRowStatements > 250)
        #expect(outcome.tables["books"]?.count == 9_001)
    }

    @Test(arguments: [
        "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, body TEXT DEFAULT 'empty', made TEXT);",
        "CREATE TABLE notes (name TEXT PRIMARY KEY, body TEXT NOT NULL DEFAULT 'empty', made TEXT) WITHOUT ROWID;",
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE, body TEXT, made TEXT);",
    ])
    func otherShapesOfTableGiveTheSameRows(schema: String) throws {
        // The store has 'NOTE 7' (the same key as 'note 7' where the key ignores case); rows leave
        // out `body` or not (a new column list holds rows back), and carry text with a NUL and non-ASCII text.
        let seed = "INSERT INTO notes (name, made) VALUES ('NOTE 7', 'user');"
        let rows = (1...120).map { n in
            "{\"name\": \"note \(n)\", \"made\": \"é\\u0000x \(n)\"" + (n % 50 == 0 ? "" : ", \"body\": \"b\(n)\"")
                + "}"
        }
        let outcome = try bothWays(
            schema: schema, seed: seed, specs: [TableSpec(name: "notes", key: ["name"])],
            migrations: [("0001-notes.json", json("notes", rows))])
        #expect(outcome.multiRowStatements >= 1, "\(schema)")
    }

    @Test func aCoreDataStoreTakesRowsOneByOne() throws {
        let specs = [
            TableSpec(name: "BookCategory", key: ["name"]),
            TableSpec(name: "Book", key: ["title"], refs: ["category": .init(table: "BookCategory", column: "name")]),
        ]
        let rows = (1...70).map {
            "{\"title\": \"Book \($0)\", \"price\": \($0), \"category\": \"\($0 % 2 == 0 ? "Fiction" : "Biography")\"}"
        }
        let outcome = try bothWays(
            schema: "", specs: specs, migrations: [("0001-books.json", json("Book", rows))], coreData: true)
        expectEqual(outcome.multiRowStatements, 0)
        #expect(outcome.tables["ZBOOK"]?.count == 73)
    }
}

@Suite struct MultiRowBindingTests {
    /// Values whose storage is worth pinning: text with a NUL inside (stored whole, not up to the
    /// NUL as GRDB would bind it), empty text, empty and non-empty blobs.
    private let values: [SQLValue] = [
        .null, .integer(-7), .integer(.max), .real(2.5), .text(""), .text("a\u{0}b"), .text("日本"), .blob([]),
        .blob([0, 1, 255]), .text("z"),
    ]

    @Test func valuesBoundForAMultiRowInsertAreStoredAsOneRowInsertsStoreThem() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (kind TEXT, v)")
            for value in values { try db.execute("INSERT INTO t VALUES ('grdb', ?)", binding: [value]) }
            let statement = try db.makeStatement(
                sql: MultiRowInsert.sql(into: "t", columns: ["kind", "v"], rows: values.count))
            var bytes: [UInt8] = []
            #expect(try statement.insertDirectly(values: values.flatMap { [.text("multi"), $0] }, bytes: &bytes))
            let stored = { (kind: String) in
                try String.fetchAll(
                    db, sql: "SELECT typeof(v) || ':' || ifnull(hex(v), 'NULL') FROM t WHERE kind = ? ORDER BY rowid",
                    arguments: [kind])
            }
            try expectEqual(stored("multi"), stored("grdb"))
            try expectEqual(stored("grdb")[5], "text:610062", "the NUL and what follows it are stored")
            try expectEqual(db.sqlRows("SELECT v FROM t WHERE kind = 'multi' ORDER BY rowid").map { $0[0] }, values)
            // A constraint failure takes none of the statement's rows, and leaves the transaction going.
            try db.execute(sql: "CREATE UNIQUE INDEX t_v ON t (kind, v)")
            #expect(
                try !statement.insertDirectly(
                    values: values.flatMap { [.text("again"), $0 == .text("z") ? .text("日本") : $0] }, bytes: &bytes))
            #expect(try stored("again").isEmpty && db.isInsideTransaction)
        }
    }
}
