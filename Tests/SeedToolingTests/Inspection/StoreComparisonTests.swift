import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// What `seedkit diff` does, through the library: the keys rows are matched by, the schema of one
/// table alone, and renames read from the migrations between the two stores.
@Suite struct StoreComparisonTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-compare-\(UUID().uuidString)")

    private func store(_ name: String, _ sql: String) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(name).path)
        try queue.write { db in try db.execute(sql: sql) }
        return queue
    }

    @Test func withNoManifestRowsMatchByTheKeyTheSeedRecordedElseThePrimaryKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT UNIQUE, v INTEGER);"
        let a = try store("a.sqlite", schema + "INSERT INTO t VALUES (1, 'x', 1), (2, 'y', 2);")
        let b = try store("b.sqlite", schema + "INSERT INTO t VALUES (1, 'y', 2), (2, 'x', 1);")
        // By the primary key, both rows changed; the stores hold the same rows by code.
        let byID = try StoreComparison.diff(a, b, pathA: "a.sqlite", pathB: "b.sqlite", manifest: nil)
        expectEqual(byID.tables.first?.key, ["id"])
        expectEqual(byID.tables.first?.changed.count, 2)
        try schema.write(to: directory.appendingPathComponent("schema.sql"), atomically: true, encoding: .utf8)
        try "code,v\n".write(to: directory.appendingPathComponent("t.csv"), atomically: true, encoding: .utf8)
        let manifestPath = directory.appendingPathComponent("seedkit.yml")
        try "schema: schema.sql\noutput: out.sqlite\ntables:\n  t: { file: t.csv, key: code }\n".write(
            to: manifestPath, atomically: true, encoding: .utf8)
        let manifest = try Manifest.load(path: manifestPath.path)
        let byCode = try StoreComparison.diff(a, b, pathA: "a.sqlite", pathB: "b.sqlite", manifest: manifest)
        expectEqual(byCode.tables.first?.key, ["code"])
        #expect(byCode.isEmpty, "\(byCode)")
    }

    @Test func oneTableComparesItsOwnIndexesAndTriggersWhateverTheirNames() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema =
            "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT); CREATE TABLE ebooks (id INTEGER PRIMARY KEY);"
        let a = try store("a.sqlite", schema)
        let b = try store(
            "b.sqlite", schema + "CREATE INDEX idx_title ON books (title); CREATE INDEX ebooks_id ON ebooks (id);")
        let diff = try StoreComparison.diff(a, b, pathA: "a.sqlite", pathB: "b.sqlite", manifest: nil, table: "books")
        // The index named without the table's name is books'; ebooks' index is not.
        expectEqual(diff.schema, ["index idx_title only in b.sqlite"])
        #expect(throws: SeedError.self) {
            try StoreComparison.diff(a, b, pathA: "a.sqlite", pathB: "b.sqlite", manifest: nil, table: "nope")
        }
    }

    @Test func aMissingMigrationsFolderIsNoneByDefaultAndAnErrorWhenNamed() throws {
        expectEqual(try StoreComparison.migrationsFolder(given: "none"), nil)
        #expect(throws: SeedError.self) { try StoreComparison.migrationsFolder(given: "/nowhere/migrations") }
    }
}

/// A rename's keys match a store's by their bytes, as SQLite compares text: a composed é in the
/// migration names no row whose key holds a decomposed one (Swift's String == would say it does).
@Test func aRenamePairsRowsByTheBytesOfTheirKeys() {
    func diff(removed: String) -> StoreDiff {
        var table = StoreDiff.TableDiff(table: "t", key: ["k"])
        table.removed = [.init(key: [.text(removed)], values: [])]
        table.added = [.init(key: [.text("x")], values: [])]
        return StoreDiff(
            tables: [table], tablesOnlyInA: [], tablesOnlyInB: [], columnsOnlyInA: [:], columnsOnlyInB: [:])
    }
    let rename = StoreDiff.Rename(table: "t", old: ["\u{E9}"], new: ["x"])
    var composed = diff(removed: "\u{E9}")
    composed.pairingRenames([rename], specs: [])
    expectEqual(composed.tables[0].changed.count, 1)
    expectEqual(composed.tables[0].removed.count, 0)
    var decomposed = diff(removed: "e\u{301}")
    decomposed.pairingRenames([rename], specs: [])
    expectEqual(decomposed.tables[0].changed.count, 0)
    expectEqual(decomposed.tables[0].removed.count, 1)
}
