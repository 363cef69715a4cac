import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 45: big deletes and updates find, check and write their rows a batch at a time
// (MigrationRun+BatchDelete.swift, MigrationRun+BatchUpdate.swift). Each test applies the same
// migrations to two copies of one store, batched and one row at a time, and requires the same
// report (events, their order and details, the rows counted), the same errors and the same rows.

private let schema = """
    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, price REAL,
                        category_id INTEGER REFERENCES categories(id), parent_id INTEGER REFERENCES books(id),
                        code TEXT UNIQUE);
    CREATE TABLE reviews (id INTEGER PRIMARY KEY, book_isbn TEXT);
    """
/// 700 books in five categories; B51 is a child of B50 and B61 of B60; reviews refer to B3 and
/// B300 (a manifest ref holds the parent's id).
private let seed = """
    INSERT INTO categories (name) VALUES ('C0'), ('C1'), ('C2'), ('C3'), ('C4');
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 699)
    INSERT INTO books (id, isbn, price, category_id, code) SELECT i + 1, 'B' || i, 1.5, 1 + i % 5, 'K' || i FROM n;
    UPDATE books SET parent_id = 51 WHERE isbn = 'B51';
    UPDATE books SET parent_id = 61 WHERE isbn = 'B61';
    INSERT INTO reviews (book_isbn) VALUES (4), (301);
    """
private let specs = [
    TableSpec(name: "categories", key: ["name"]),
    TableSpec(
        name: "books", key: ["isbn"],
        refs: [
            "category_id": .init(table: "categories", column: "name"),
            "parent_id": .init(table: "books", column: "isbn"),
        ]),
    TableSpec(name: "reviews", key: ["id"], refs: ["book_isbn": .init(table: "books", column: "isbn")]),
]

/// Runs `migrations` both ways on copies of the store; requires the same outcome and returns it.
@discardableResult
private func bothWays(_ migrations: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation) throws
    -> MultiRowOutcome
{
    let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let loaded = try migrations.map { try loadMigration(json: $0.1, fileName: $0.0) }
    let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) { $0.batchedChanges = false }
    let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
    #expect(batched.report == single.report, sourceLocation: sourceLocation)
    #expect(batched.tables == single.tables, sourceLocation: sourceLocation)
    return batched
}

private func deleteRow(_ i: Int, price: String = "1.5", category: String? = nil) -> String {
    #"{"key": "B\#(i)", "from": {"price": \#(price), "category_id": "\#(category ?? "C\(i % 5)")"}}"#
}

private func moveRow(_ i: Int, from: String? = nil, to: String? = nil) -> String {
    #"{"key": "B\#(i)", "from": {"category_id": "\#(from ?? "C\(i % 5)")"}, "to": {"category_id": "\#(to ?? "C\((i + 1) % 5)")"}}"#
}

@Suite struct BatchedChangeTests {
    @Test func deletesInBatchesReportAndLeaveWhatOneByOneDoes() throws {
        // 600 rows over three batches: a changed row, a missing one, one listed twice, a parent
        // listed before its child (B50, B51) and after it (B61, B60), rows a review refers to (B3,
        // B300: denied), a `from` naming no category.
        var rows = (0..<600).filter { ![10, 60].contains($0) }.map { deleteRow($0) }
        rows.insert(deleteRow(10, price: "2"), at: 10)
        rows.insert(#"{"key": "NOPE", "from": {"price": 1.5}}"#, at: 40)
        rows.insert(deleteRow(20), at: 200)
        rows.insert(deleteRow(60), at: 62)
        rows.insert(deleteRow(650, category: "CX"), at: 300)
        let outcome = try bothWays([
            ("0001-delete.json", #"{"delete": {"books": ["# + rows.joined(separator: ", ") + "]}}")
        ])
        let books = outcome.tables["books"] ?? []
        // Left: B3 and B300 (referenced), B10 (changed), B600…B699 (B650's `from` names no category).
        expectEqual(books.count, 103, "\(outcome.report)")
        #expect(outcome.report.contains("deleteDenied books"), "\(outcome.report)")
        #expect(outcome.report.contains("matches no categories.name"), "\(outcome.report)")
    }

    @Test func updatesInBatchesReportAndLeaveWhatOneByOneDoes() throws {
        // 600 ref changes: a changed row, one already up to date, one listed twice (the second a
        // conflict once the first is applied), a missing one; then codes changed (another column
        // list: another batch).
        var rows = (0..<600).filter { ![10, 11].contains($0) }.map { moveRow($0) }
        rows.insert(moveRow(10, from: "C4"), at: 10)
        rows.insert(moveRow(11, from: "C1", to: "C1"), at: 11)
        rows.insert(moveRow(20), at: 300)
        rows.insert(#"{"key": "NOPE", "from": {"category_id": "C0"}, "to": {"category_id": "C1"}}"#, at: 40)
        let codes = (600..<650).map { #"{"key": "B\#($0)", "from": {"code": "K\#($0)"}, "to": {"code": "N\#($0)"}}"# }
        let document =
            #"{"update": {"books": ["# + (rows + codes).joined(separator: ", ") + "]}}"
        let outcome = try bothWays([("0001-update.json", document)])
        let books = outcome.tables["books"] ?? []
        expectEqual(books.count, 700)
        #expect(outcome.report.contains("already up to date"), "\(outcome.report)")
        #expect(outcome.report.contains("changed in the store"), "\(outcome.report)")
    }

    @Test func aBatchWithAnErrorNamesTheSameRowsAsOneByOne() throws {
        // A `from` with a column books lacks (of a row deleted before: not reported), a value of
        // the wrong type, a ref to a category nobody inserts and a code another row holds, among
        // 300 deletes and 350 updates: the run fails, naming each row where one by one names it.
        var deletes = (0..<300).map { deleteRow($0) }
        deletes.insert(#"{"key": "B5", "from": {"pages": 3}}"#, at: 100)
        var updates = (300..<600).map { moveRow($0) }
        updates.insert(#"{"key": "B305", "from": {"price": "cheap"}, "to": {"price": 2}}"#, at: 200)
        updates.insert(moveRow(330, to: "CX"), at: 250)  // waits for a category nobody inserts
        // A code another row holds: the batch's UPDATE fails, its rows go one by one.
        let codes = (600..<650).map { #"{"key": "B\#($0)", "from": {"code": "K\#($0)"}, "to": {"code": "N\#($0)"}}"# }
        updates += codes[..<25] + [#"{"key": "B690", "from": {"code": "K690"}, "to": {"code": "K691"}}"#] + codes[25...]
        let outcome = try bothWays([
            ("0001-delete.json", #"{"delete": {"books": ["# + deletes.joined(separator: ", ") + "]}}"),
            ("0002-update.json", #"{"update": {"books": ["# + updates.joined(separator: ", ") + "]}}"),
        ])
        #expect(outcome.report.hasPrefix("error"), "\(outcome.report)")
        #expect(!outcome.report.contains("pages"), "\(outcome.report)")
        #expect(outcome.report.contains("cheap"), "\(outcome.report)")
        #expect(outcome.report.contains("UNIQUE constraint failed: books.code"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 700, "nothing was written")
    }

    /// A column named `rowid` hides the rowid behind that name: the batch's statements read and
    /// wrote that column as if it were the rowid (a DELETE of rows by it took every row holding
    /// the same value, and the run failed on SQLite's count, where one by one deletes each row).
    @Test func aColumnNamedRowidDoesNotHideTheRowsABatchWrites() throws {
        let base = try multiRowStore(
            schema:
                "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, rowid INTEGER, price REAL);",
            seed: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
                INSERT INTO items (name, rowid, price) SELECT 'I' || i, i % 3, 1.5 FROM n;
                """, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let updates = (0..<300).map { #"{"key": "I\#($0)", "from": {"price": 1.5}, "to": {"price": 2}}"# }
        let deletes = (0..<150).map { #"{"key": "I\#($0)", "from": {"price": 2}}"# }
        let loaded = try [
            ("0001-update.json", #"{"update": {"items": ["# + updates.joined(separator: ", ") + "]}}"),
            ("0002-delete.json", #"{"delete": {"items": ["# + deletes.joined(separator: ", ") + "]}}"),
        ].map { try loadMigration(json: $0.1, fileName: $0.0) }
        let specs = [TableSpec(name: "items", key: ["name"])]
        let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) {
            $0.batchedChanges = false
        }
        let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
        #expect(!single.report.hasPrefix("error"), "\(single.report)")
        expectEqual(batched.report, single.report)
        expectEqual(batched.tables, single.tables)
        expectEqual(batched.tables["items"]?.count, 150)
    }

    /// A `.sql` step that adds a trigger between two JSON steps: whether a table's rows may go in
    /// batches was worked out once per run, so the later deletes and updates were batched past a
    /// trigger that keeps one row (its RAISE(IGNORE) made the DELETE count one row short: the run
    /// failed, exit 4, where one by one reports that row as not deleted).
    @Test func aTriggerAddedByAnSQLStepSendsLaterChangesOneByOne() throws {
        let outcome = try bothWays([
            (
                "0001-delete.json",
                #"{"delete": {"books": ["# + (100..<110).map { deleteRow($0) }.joined(separator: ", ") + "]}}"
            ),
            (
                "0002-keep.sql",
                """
                CREATE TRIGGER keep_delete BEFORE DELETE ON books WHEN OLD.isbn = 'B205' BEGIN SELECT RAISE(IGNORE); END;
                CREATE TRIGGER keep_update BEFORE UPDATE ON books WHEN OLD.isbn = 'B305' BEGIN SELECT RAISE(IGNORE); END;

                """
            ),
            (
                "0003-delete.json",
                #"{"delete": {"books": ["# + (200..<210).map { deleteRow($0) }.joined(separator: ", ") + "]}}"
            ),
            (
                "0004-update.json",
                #"{"update": {"books": ["# + (300..<310).map { moveRow($0) }.joined(separator: ", ") + "]}}"
            ),
        ])
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 681, "\(outcome.report)")
    }

    /// A temporary trigger a `.sql` step creates (on the connection, not in the store's schema)
    /// that keeps one row: the later deletes and updates were batched past it (the store's
    /// triggers were asked, the connection's were not), its RAISE(IGNORE) made the DELETE count
    /// one row short and the run failed, exit 4, where one by one reports that row as not deleted.
    @Test func aTemporaryTriggerSendsLaterChangesOneByOne() throws {
        let outcome = try bothWays([
            (
                "0001-keep.sql",
                """
                CREATE TEMP TRIGGER keep_delete BEFORE DELETE ON main.books WHEN OLD.isbn = 'B205' BEGIN SELECT RAISE(IGNORE); END;
                CREATE TEMP TRIGGER keep_update BEFORE UPDATE ON main.books WHEN OLD.isbn = 'B305' BEGIN SELECT RAISE(IGNORE); END;

                """
            ),
            (
                "0002-delete.json",
                #"{"delete": {"books": ["# + (200..<210).map { deleteRow($0) }.joined(separator: ", ") + "]}}"
            ),
            (
                "0003-update.json",
                #"{"update": {"books": ["# + (300..<310).map { moveRow($0) }.joined(separator: ", ") + "]}}"
            ),
        ])
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        #expect(outcome.report.contains("not deleted: vetoed by trigger keep_delete"), "\(outcome.report)")
        #expect(outcome.report.contains("not updated: vetoed by trigger keep_update"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 691, "\(outcome.report)")
    }

    /// A temporary trigger that deletes a row the same batch deletes: the batch's DELETE counted
    /// one row short and the run failed as an I/O error (exit 4); one by one, SQLite's change
    /// accounting names the row the trigger deleted and the store is refused (exit 3,
    /// docs/reference.md, "Exit codes").
    @Test func aTriggerDeletingARowOfTheBatchIsRefusedAsOneByOneRefusesIt() throws {
        let outcome = try bothWays([
            (
                "0001-sneaky.sql",
                """
                CREATE TEMP TRIGGER sneaky AFTER DELETE ON main.books WHEN OLD.isbn = 'B200' BEGIN DELETE FROM books WHERE isbn = 'B201'; END;

                """
            ),
            (
                "0002-delete.json",
                #"{"delete": {"books": ["# + (200..<210).map { deleteRow($0) }.joined(separator: ", ") + "]}}"
            ),
        ])
        #expect(outcome.report.hasPrefix("error refused"), "\(outcome.report)")
        #expect(outcome.report.contains("temporary trigger sneaky"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 700, "nothing was written")
    }

    /// Keys SQLite matches where Swift's values differ: an INTEGER key given as text and as a
    /// REAL, a NOCASE and an RTRIM key part, a key with a NUL, one row named twice, in a
    /// composite key; deletes and updates, batched and one by one alike.
    @Test func keysSQLiteMatchesAreJudgedAsOneByOne() throws {
        let base = try multiRowStore(
            schema: """
                CREATE TABLE items (n INTEGER NOT NULL, code TEXT COLLATE NOCASE NOT NULL, tail TEXT COLLATE RTRIM NOT NULL,
                                    price REAL, PRIMARY KEY (n, code, tail));
                """,
            seed: """
                WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 599)
                INSERT INTO items SELECT i, 'c' || i, 't' || i || char(0) || 'z', 1.5 FROM k;
                """, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        func key(_ i: Int) -> String {
            let n = i % 3 == 0 ? #""\#(i)""# : i % 3 == 1 ? "\(i).0" : "\(i)"
            return #"{"n": \#(n), "code": "C\#(i)", "tail": "t\#(i)\u0000z  "}"#
        }
        let updates =
            (0..<300).map { #"{"key": \#(key($0)), "from": {"price": 1.5}, "to": {"price": 2}}"# }
            + [#"{"key": \#(key(7)), "from": {"price": 1.5}, "to": {"price": 3}}"#]
        let deletes =
            (0..<600).filter { $0 % 2 == 0 }.map { #"{"key": \#(key($0)), "from": {"price": \#($0 < 300 ? 2 : 1.5)}}"# }
            + [#"{"key": \#(key(10)), "from": {"price": 2}}"#]
        let loaded = try [
            ("0001-update.json", #"{"update": {"items": ["# + updates.joined(separator: ", ") + "]}}"),
            ("0002-delete.json", #"{"delete": {"items": ["# + deletes.joined(separator: ", ") + "]}}"),
        ].map { try loadMigration(json: $0.1, fileName: $0.0) }
        let specs = [TableSpec(name: "items", key: ["n", "code", "tail"])]
        let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) {
            $0.batchedChanges = false
        }
        let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
        expectEqual(batched.report, single.report)
        expectEqual(batched.tables, single.tables)
        expectEqual(single.tables["items"]?.count, 300, "\(single.report)")
    }

    /// An update's and a delete's items read in chunks leave what the file read whole leaves.
    ///
    /// A large JSON migration is applied while a second thread reads it: an update's and a
    /// delete's items now come in chunks (128 items, then 1,024) as an insert's rows do, so the
    /// run writes one chunk while the next is parsed. The outcome is the one of the file read
    /// whole, here with rows on both sides of the first chunk's end that refer to each other.
    @Test func changesReadInChunksLeaveWhatTheWholeFileLeaves() throws {
        var deletes = (0..<300).filter { $0 != 10 && $0 != 60 }.map { deleteRow($0) }
        deletes.insert(deleteRow(60), at: 200)  // B61, a child of B60, is deleted before it
        deletes.insert(deleteRow(10, price: "2"), at: 127)  // changed in the store: a conflict
        var updates = (300..<600).map { moveRow($0) }
        updates.insert(moveRow(320), at: 129)  // listed twice, the second after the first chunk
        let outcome = try wholeAndChunked(
            #"{"delete": {"books": ["# + deletes.joined(separator: ", ") + #"]}, "update": {"books": ["#
                + updates.joined(separator: ", ") + "]}}")
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 402, "\(outcome.report)")
    }

    /// An update that renames a row to a key a later update renames away is refused (a swap); read
    /// in chunks, the later update may be in a chunk not read yet: from an update that may rename
    /// on, the operation's chunks are gathered and applied as one.
    @Test func aSwapAcrossChunksIsRefusedAsInTheWholeFile() throws {
        var updates = (300..<600).map { moveRow($0) }
        updates.insert(#"{"key": "B650", "from": {"isbn": "B650"}, "to": {"isbn": "B651"}}"#, at: 5)
        updates.insert(#"{"key": "B651", "from": {"isbn": "B651"}, "to": {"isbn": "B650"}}"#, at: 250)
        let outcome = try wholeAndChunked(#"{"update": {"books": ["# + updates.joined(separator: ", ") + "]}}")
        #expect(outcome.report.hasPrefix("error configuration"), "\(outcome.report)")
        #expect(outcome.report.contains("renames it to"), "\(outcome.report)")
        expectEqual(outcome.tables["books"]?.count, 700, "nothing was written")
    }
}

/// Applies `json` (padded past ``DeferredJSONMigration/threshold``: read while applied, in chunks)
/// and the same file read whole to copies of the store; requires the same outcome and returns it.
private func wholeAndChunked(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> MultiRowOutcome
{
    let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let padded = json.dropLast() + String(repeating: " ", count: DeferredJSONMigration.threshold) + "}"
    let chunked = try loadMigration(json: String(padded), fileName: "0001-changes.json")
    guard case .changes(let changes) = chunked.body, changes.deferred != nil else {
        Issue.record("not read while applied", sourceLocation: sourceLocation)
        return MultiRowOutcome(report: "", tables: [:], bytes: Data(), multiRowStatements: 0)
    }
    let whole = try #require(
        Array(padded.utf8).withUnsafeBytes {
            Migration.streamed(fileName: "0001-changes.json", file: chunked.file, json: $0)
        }, sourceLocation: sourceLocation)
    let one = try multiRowRun(base, specs: specs, migrations: [whole], multiRow: true)
    let other = try multiRowRun(base, specs: specs, migrations: [chunked], multiRow: false)
    #expect(other.report == one.report, sourceLocation: sourceLocation)
    // The digest of the bytes read while applied is recorded (for the ledger's check); the
    // rows are the same.
    var tables = other.tables
    tables["_seedkit_file_digests"] = one.tables["_seedkit_file_digests"]
    #expect(tables == one.tables, sourceLocation: sourceLocation)
    return other
}
