import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 34, in the app library: what an app's launch applies compares and reads text as SQLite
// stores it. A NUL inside text is bound and read whole; a composed and a decomposed `é` are two
// keys; the report shows the bytes that differ.

@Test func theRuntimeAppliesTextWithANulWholeAndComparesBytes() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, note TEXT)")
        _ = try db.execute(
            "INSERT INTO notes (code, note) VALUES (?, ?), (?, ?)",
            binding: [.text("B\u{0}x"), .text("abc\u{0}def"), .text("Cafe\u{301}"), .text("n")])
    }
    let migration = try loadMigration(
        json: #"""
            {"update": {"notes": [{"key": "B\u0000x", "from": {"note": "abc\u0000def"}, "to": {"note": "ghi\u0000"}},
                                  {"key": "Caf\u00e9", "from": {"note": "n"}, "to": {"note": "composed"}}]},
             "insert": {"notes": [{"code": "B\u0000y", "note": "\u0000"}]}}
            """#, fileName: "0001-text.json")
    let report = try SeedMigrator(migrations: [migration]).migrate(
        queue, options: .init(tables: [TableSpec(name: "notes", key: ["code"])]))
    let kinds = report.migrations.first?.events.map { "\($0.kind.rawValue) \($0.keyDescription)" } ?? []
    expectEqual(kinds, [#"updated 'B\0x'"#, "missing 'Caf\u{E9}'", #"inserted 'B\0y'"#], "\(kinds)")
    let rows = try queue.read { db in try db.sqlRows("SELECT code, note FROM notes ORDER BY id") }
    expectEqual(
        rows,
        [
            [.text("B\u{0}x"), .text("ghi\u{0}")], [.text("Cafe\u{301}"), .text("n")],
            [.text("B\u{0}y"), .text("\u{0}")],
        ])
}
