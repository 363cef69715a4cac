import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// `inspect STORE TABLE` writes each row as it reads it, in every format (docs/performance.md,
/// "inspect streams its rows"): its memory does not grow with the rows.
///
/// Counted, not timed: a `--where` that counts the rows SQLite has stepped says how far the
/// statement was when the first row was written.
@Suite struct StreamedRowsTests {
    /// A store of `count` rows (one a ref to a parent by its name) and a `seen(id)` function for `--where`
    /// that counts the rows the statement has read.
    private func store(count: Int) throws -> (queue: DatabaseQueue, seen: () -> Int, cleanup: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("store.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE shelves (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    INSERT INTO shelves (name) VALUES ('Fiction'), ('Poetry');
                    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, note TEXT, shelf_id INTEGER REFERENCES shelves(id));
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                    INSERT INTO books (title, note, shelf_id) SELECT 'Book ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'a, "b"' END, 1 + i % 2 FROM n;
                    """)
        }
        let counter = Counter()
        queue.inDatabase { db in
            db.add(
                function: DatabaseFunction("seen", argumentCount: 1, pure: false) { _ in
                    counter.value += 1
                    return true
                })
        }
        return (queue, { counter.value }, { try? FileManager.default.removeItem(at: directory) })
    }

    private final class Counter: @unchecked Sendable {
        var value = 0
    }

    @Test func everyFormatWritesItsFirstRowBeforeTheStatementHasReadTheRest() throws {
        let count = 5_000
        let (queue, seen, cleanup) = try store(count: count)
        defer { cleanup() }
        let refs = ["shelf_id": TableSpec.Reference(table: "shelves", column: "name")]
        for format in [OutputFormat.human, .json, .csv, .markdown] {
            let before = seen()
            var readAtFirstRow: Int?
            var text = ""
            try queue.read { db in
                let rows = try StoreInspector.rows(db, table: "books", filter: "seen(id)", refs: refs, streamed: true)
                format.render(
                    rows,
                    to: ReportOutput(write: { chunk in
                        if readAtFirstRow == nil, chunk.contains("Book 1") { readAtFirstRow = seen() - before }
                        text += chunk
                    }))
                #expect(rows.stream?.failure == nil, "\(format)")
            }
            expectEqual(seen() - before, count, "\(format): every row read once")
            // Written while the statement was still reading: after one row (a table: after the
            // rows it measures its columns by), never after all of them.
            let limit = format == .human ? TableFormat.widthSample : 1
            #expect(readAtFirstRow.map { $0 <= limit } == true, "\(format): \(String(describing: readAtFirstRow))")
            // The same text as the rows read first and printed after (a table measured by its first rows).
            let held = try queue.read { db in
                try StoreInspector.rows(db, table: "books", filter: "seen(id)", limit: 900, refs: refs)
            }
            let streamedHead = try queue.read { db in
                let rows = try StoreInspector.rows(
                    db, table: "books", filter: "seen(id)", limit: 900, refs: refs, streamed: true)
                return format.rendered(rows)
            }
            expectEqual(streamedHead, format.rendered(held), "\(format)")
            switch format {
            case .json:
                let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                let rows = object?["rows"] as? [[String: Any]]
                expectEqual(rows?.count, count)
                let shelf = rows?.first?["shelf_id"] as? [String: Any]
                expectEqual(shelf?["key"] as? String, "Poetry")
                expectEqual(shelf?["id"] as? Int, 2)
                expectEqual(object?["omitted"] as? Int, 0)
            case .csv:
                expectEqual(text.components(separatedBy: "\r\n").count, count + 2)
                #expect(
                    text.hasPrefix("id,title,note,shelf_id\r\n1,Book 1,\"a, \"\"b\"\"\",Poetry\r\n"),
                    "\(text.prefix(80))")
            case .markdown:
                #expect(!text.contains("not shown"), "\(text.suffix(200))")
                expectEqual(text.split(separator: "\n").filter { $0.hasPrefix("| ") }.count, count + 1)
            default:
                expectEqual(text.split(separator: "\n").count, count + 2)
            }
        }
    }

    @Test func aLimitCountsTheRowsLeftOutOnceTheRowsAreRead() throws {
        let (queue, _, cleanup) = try store(count: 120)
        defer { cleanup() }
        let text = try queue.read { db in
            OutputFormat.json.rendered(try StoreInspector.rows(db, table: "books", limit: 2, streamed: true))
        }
        #expect(text.hasSuffix("\n  ],\n  \"omitted\": 118\n}\n"), "\(text)")
        let none = try queue.read { db in
            OutputFormat.json.rendered(try StoreInspector.rows(db, table: "books", filter: "id < 0", streamed: true))
        }
        // A row SQLite fails on stops the rows there; the stream says why, as --where's errors do.
        try queue.read { db in
            let rows = try StoreInspector.rows(
                db, table: "books", filter: "CASE WHEN id = 50 THEN json_extract(title, '$') ELSE 1 END",
                streamed: true)
            let written = OutputFormat.csv.rendered(rows)
            expectEqual(written.components(separatedBy: "\r\n").count, 1 + 49 + 1)
            let failure = rows.stream?.failure as? SeedError
            #expect(failure?.kind == .configuration, "\(String(describing: rows.stream?.failure))")
            #expect(
                failure?.description.contains("the query failed: malformed JSON") == true,
                "\(String(describing: failure))")
        }
        expectEqual(
            none,
            "{\n  \"columns\": [\n    \"id\",\n    \"title\",\n    \"note\",\n    \"shelf_id\"\n  ],\n  \"rows\": [],\n  \"omitted\": 0\n}\n"
        )
    }
}
