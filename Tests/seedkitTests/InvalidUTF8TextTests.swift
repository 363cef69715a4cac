import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Text that is not UTF-8 (SQLite stores the bytes it is given; another program may have
/// written them): reports show each byte that is not part of a UTF-8 sequence as `\xNN`
/// (issue 41).
///
/// It was decoded with U+FFFD in its place, so `diff` printed `'A�B' → 'A�B'`.
@Suite struct InvalidUTF8TextTests {
    /// Two stores written by GRDB whose text differs only in one invalid byte (0xFF, 0xFE),
    /// in a key and in a value; `é` (valid, two bytes) and a truncated sequence beside it.
    private func stores() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        for (name, byte) in [("a.sqlite", 0xFF), ("b.sqlite", 0xFE)] {
            let queue = try DatabaseQueue(path: project.path(name))
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, v TEXT)")
                let text = Data([0x41, UInt8(byte), 0x42, 0xC3, 0xA9, 0xC3])  // A, the byte, B, é, half of é
                try db.execute(sql: "INSERT INTO t VALUES (1, 'k', CAST(? AS TEXT))", arguments: [text])
                try db.execute(sql: "INSERT INTO t VALUES (2, CAST(? AS TEXT), 'x')", arguments: [text])
            }
        }
        return project
    }

    @Test func diffPrintsTheBytesThatAreNotUTF8() throws {
        let project = try stores()
        let diff = try project.seedkit("diff", "a.sqlite", "b.sqlite")
        expectEqual(diff.status, 0, "\(diff)")
        expectEqual(
            diff.stdout,
            """
            t: 0 added, 0 removed, 2 changed (by id)
              ~ 1: v 'A\\xFFBé\\xC3' → 'A\\xFEBé\\xC3'
              ~ 2: code 'A\\xFFBé\\xC3' → 'A\\xFEBé\\xC3'

            """, "\(diff)")
        let json = try project.seedkit("diff", "a.sqlite", "b.sqlite", "--format", "json")
        #expect(json.stdout.contains(#""old": "A\\xFFBé\\xC3","#), "\(json)")
        #expect(json.stdout.contains(#""new": "A\\xFEBé\\xC3""#), "\(json)")
    }

    @Test func inspectPrintsTheBytesThatAreNotUTF8() throws {
        let project = try stores()
        let inspect = try project.seedkit("inspect", "a.sqlite", "t")
        expectEqual(inspect.status, 0, "\(inspect)")
        expectEqual(
            inspect.stdout,
            """
            id  code         v
            --  -----------  -----------
            1   k            A\\xFFBé\\xC3
            2   A\\xFFBé\\xC3  x

            """, "\(inspect)")
        // The stores are as GRDB wrote them: reading changed no byte.
        let bytes = try project.database("a.sqlite").read { db in
            try Data.fetchOne(db, sql: "SELECT CAST(v AS BLOB) FROM t WHERE id = 1")
        }
        expectEqual(bytes, Data([0x41, 0xFF, 0x42, 0xC3, 0xA9, 0xC3]))
    }
}
