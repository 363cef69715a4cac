import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// Rows matched by a natural key whatever order each store holds them in: aligned rows,
/// rows moved far apart, duplicates of a key, numbers equal across storage classes.
@Test func naturalKeyDiffMatchesRowsInAnyRowidOrderAndReportsInKeyOrder() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func store(_ name: String, _ rows: [(String, (any DatabaseValueConvertible)?)]) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(name).path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, v)")
            for (key, value) in rows {
                try db.execute(sql: "INSERT INTO t (k, v) VALUES (?, ?)", arguments: [key, value])
            }
        }
        return queue
    }
    var rowsA: [(String, (any DatabaseValueConvertible)?)] = (0..<50).map { (String(format: "k%02d", $0), $0 as Int) }
    rowsA.append(("dup", 1))
    rowsA.append(("dup", 2))
    var rowsB = rowsA
    rowsB.swapAt(3, 40)  // far apart: both wait for their match
    rowsB[10] = ("k10", 10.0)  // 10 → 10.0: the same number to SQLite (`10 IS 10.0`), no change
    rowsB[11] = ("k11", "11")  // 11 → '11': text is not a number, a change
    rowsB[20] = ("k20", "twenty")
    rowsB.remove(at: 30)  // k30 removed
    rowsB.insert(("k07b", 7), at: 0)  // added, first in rowid order
    rowsB.append(("e\u{301}", nil))  // added; not the same bytes as "é"
    rowsA.append(("\u{E9}", nil))  // removed
    let diff = try StoreDiff.compare(
        try store("a.sqlite", rowsA), try store("b.sqlite", rowsB), keys: ["t": ["k"]],
        semantics: {
            var semantics = StoreDiff.Semantics()
            semantics.ignored["t"] = ["id"]
            return semantics
        }())
    let table = try #require(diff.tables.first)
    expectEqual(table.added.map(\.key), [[.text("e\u{301}")], [.text("k07b")]])
    expectEqual(table.removed.map(\.key), [[.text("k30")], [.text("\u{E9}")]])
    expectEqual(table.changed.map(\.key), [[.text("k11")], [.text("k20")]])
    expectEqual(table.changed.map { $0.columns.map(\.column) }, [["v"], ["v"]])
    expectEqual(table.changed[0].columns[0].new, .text("11"))
    expectEqual(table.changed[1].columns[0].old, .integer(20))
}

/// A near-copy that removed, added, renamed and changed rows in place (rowids kept): matched by a
/// merge on rowid, so a removed row waits alone instead of shifting every later pair (issue 23),
/// and reported exactly as the walk in key order reports it.
@Test func naturalKeyDiffOfANearCopyWithRemovedAndAddedRows() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let a = try DatabaseQueue(path: directory.appendingPathComponent("a.sqlite").path)
    try a.write { db in
        try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, v)")
        try db.execute(
            sql:
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO t (k, v) SELECT printf('k%04d', i), i FROM n"
        )
    }
    try a.close()
    try FileManager.default.copyItem(
        at: directory.appendingPathComponent("a.sqlite"), to: directory.appendingPathComponent("b.sqlite"))
    let b = try DatabaseQueue(path: directory.appendingPathComponent("b.sqlite").path)
    try b.write { db in
        try db.execute(sql: "DELETE FROM t WHERE id % 1000 = 7")  // 5 removed
        try db.execute(sql: "UPDATE t SET v = v + 1 WHERE id % 1000 = 500")  // 5 changed
        try db.execute(sql: "UPDATE t SET k = 'renamed' WHERE id = 4321")  // same rowid, another key
        try db.execute(sql: "INSERT INTO t (k, v) VALUES ('added1', 1), ('k0000', 0)")  // added, one sorting first
    }
    let reopened = try DatabaseQueue(path: directory.appendingPathComponent("a.sqlite").path)
    var semantics = StoreDiff.Semantics()
    semantics.ignored["t"] = ["id"]
    let diff = try StoreDiff.compare(reopened, b, keys: ["t": ["k"]], semantics: semantics)
    let table = try #require(diff.tables.first)
    expectEqual(table.removed.map(\.key), ["k0007", "k1007", "k2007", "k3007", "k4007", "k4321"].map { [.text($0)] })
    expectEqual(table.added.map(\.key), ["added1", "k0000", "renamed"].map { [.text($0)] })
    expectEqual(table.changed.map(\.key), ["k0500", "k1500", "k2500", "k3500", "k4500"].map { [.text($0)] })
    #expect(table.changed.allSatisfy { $0.columns.count == 1 && $0.columns[0].column == "v" })
}

/// A ref compared by its parent's key: the readers look up integer ids themselves, once per
/// distinct id; the report is the one the expression's subquery per row gives, for ids past the
/// lookups kept (5,000 parents), dangling ids, NULL, and stored values that are not integers
/// (text and reals, which SQLite's comparison with the parent's rowid converts).
@Test func refsLookedUpByTheReadersReportAsTheSubqueryDoes() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func store(_ name: String, shift: Int) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(name).path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY, name)")
            // the ref names p's primary key; no FOREIGN KEY, so dangling ids can be written
            try db.execute(sql: "CREATE TABLE c (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, pid)")
            // Parents' keys: text, an integer, a NULL; ids shifted between the stores, so only keys compare.
            try db.execute(
                sql:
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO p (id, name) SELECT i + ?, CASE WHEN i % 1000 = 0 THEN NULL WHEN i % 777 = 0 THEN i ELSE 'parent ' || i END FROM n",
                arguments: [shift])
            try db.execute(
                sql:
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) INSERT INTO c (k, pid) SELECT printf('k%05d', i), ((i * 7919) % 5000) + 1 + ? FROM n",
                arguments: [shift])
        }
        return queue
    }
    let a = try store("a.sqlite", shift: 0)
    let b = try store("b.sqlite", shift: 100)
    try b.write { db in
        try db.execute(sql: "UPDATE c SET pid = pid + 1 WHERE id % 50 = 0")  // another parent
        try db.execute(sql: "UPDATE c SET pid = 99999 WHERE id % 500 = 1")  // dangling
        try db.execute(sql: "UPDATE c SET pid = NULL WHERE id % 500 = 2")
        try db.execute(sql: "UPDATE c SET pid = CAST(pid AS TEXT) WHERE id % 500 = 3")  // text naming the same parent
        try db.execute(sql: "UPDATE c SET pid = pid + 0.0 WHERE id % 500 = 4")  // a real naming the same parent
        try db.execute(sql: "UPDATE c SET pid = 'nobody' WHERE id % 500 = 5")
    }
    let specs = [
        TableSpec(name: "p", key: ["name"]),
        TableSpec(name: "c", key: ["k"], refs: ["pid": .init(table: "p", column: "name")]),
    ]
    let semantics = try a.read { db in try StoreDiff.Semantics.of(specs, in: db) }
    #expect(semantics.lookups["c"]?["pid"] != nil)
    var bySubquery = semantics
    bySubquery.lookups = [:]
    let looked = try StoreDiff.compare(a, b, keys: ["c": ["k"]], only: "c", semantics: semantics)
    let walked = try StoreDiff.compare(a, b, keys: ["c": ["k"]], only: "c", semantics: bySubquery)
    let table = try #require(looked.tables.first)
    let expected = try #require(walked.tables.first)
    #expect(table.changed.count > 240)
    #expect(table.added == expected.added && table.removed == expected.removed)
    expectEqual(table.changed.count, expected.changed.count)
    for (got, want) in zip(table.changed, expected.changed) {
        expectEqual(got.key, want.key)
        expectEqual(got.columns.map(\.column), want.columns.map(\.column))
        #expect(got.columns.map(\.old) == want.columns.map(\.old) && got.columns.map(\.new) == want.columns.map(\.new))
        #expect(
            got.columns.map(\.oldStored) == want.columns.map(\.oldStored)
                && got.columns.map(\.newStored) == want.columns.map(\.newStored))
    }
    // Text and a real naming the same parent (SQLite converts them for the rowid) name the same key: no change.
    #expect(!table.changed.contains { $0.key == [.text("k00003")] || $0.key == [.text("k00004")] })
    let nobody = try #require(table.changed.first { $0.key == [.text("k00005")] })
    #expect(nobody.columns.first?.new == .null && nobody.columns.first?.newStored == .text("nobody"))
}
