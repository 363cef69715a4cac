import Foundation
import GRDB
import SeedRuntime

/// Writes the migration that brings a store built from an old seed to the current fixtures
/// (`seedkit new-migration NAME --from OLD_SEED`).
///
/// Compares the old seed with a fresh build by each table's natural key, refs as natural keys:
/// new keys become `insert` (parents first), changed columns `update` with `from` and `to`,
/// removed keys `delete` with `from` (children first). Every update and delete carries `from`,
/// so applying it never overwrites what a user changed.
public struct MigrationGenerator: Sendable {
    public var manifest: Manifest

    public init(manifest: Manifest) { self.manifest = manifest }

    /// The next migration's file name: `0002-fix-prices.yml`.
    public static func fileName(number: Int, name: String) -> String {
        Migration.id(number: number, name: slug(name)) + ".yml"
    }

    /// `Fix the Prices!` → `fix-the-prices`.
    public static func slug(_ name: String) -> String {
        var words: [String] = []
        var word = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber { word.append(character) }
            else if !word.isEmpty { words.append(word); word = "" }
        }
        if !word.isEmpty { words.append(word) }
        return words.joined(separator: "-")
    }

    /// An empty migration with commented examples.
    public static func scaffold(id: String) -> String {
        """
        # \(id): describe the data change here.
        # insert: rows added when their key is missing (refs by natural key)
        #   books:
        #     - { title: "The fifth book", price: 14, category_id: "Fiction" }
        # update: values changed only where the user has not changed them
        #   books:
        #     - key: "The first book"
        #       from: { price: 10 }
        #       to: { price: 11 }
        # delete: rows removed when unchanged and unreferenced
        #   books:
        #     - key: "The third book"
        #       from: { price: 10 }
        insert:
        update:
        delete:

        """
    }

    /// The YAML of the migration from `old` to `current` (two seeds), and how many rows it changes; nil when they hold the same data.
    public func generate(old: DatabaseQueue, current: DatabaseQueue, header: String) throws -> (yaml: String, inserts: Int, updates: Int, deletes: Int)? {
        let (tables, semantics) = try current.read { db in try SemanticRows.make(manifest, in: db) }
        var keys: [String: [String]] = [:]
        for table in tables { keys[table.spec.name] = table.keyColumns }
        let diff = try StoreDiff.compare(old, current, keys: keys, tables: tables.map(\.spec.name), semantics: semantics)
        var inserts: [String] = [], updates: [String] = [], deletes: [String] = []
        var counts = (0, 0, 0)
        for table in tables {
            guard let changes = diff.tables.first(where: { $0.table == table.spec.name }) else { continue }
            var rows: [String] = []
            for key in changes.added {
                guard let row = try current.read({ db in try table.row(db, key: key) }) else { continue }
                rows.append("    - " + Self.map(row.map { (table.writtenName($0.column), $0.value) }))
            }
            if !rows.isEmpty { inserts.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n")); counts.0 += rows.count }
            rows = []
            for change in changes.changed {
                rows.append("    - key: \(Self.key(table.writtenKeyColumns, change.key))\n      from: \(Self.map(change.columns.map { (table.writtenName($0.column), $0.old) }))\n      to: \(Self.map(change.columns.map { (table.writtenName($0.column), $0.new) }))")
            }
            if !rows.isEmpty { updates.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n")); counts.1 += rows.count }
        }
        for table in tables.reversed() {
            guard let changes = diff.tables.first(where: { $0.table == table.spec.name }), !changes.removed.isEmpty else { continue }
            var rows: [String] = []
            for key in changes.removed {
                guard let row = try old.read({ db in try table.row(db, key: key) }) else { continue }
                let from = row.filter { !table.keyColumns.contains($0.column) }.map { (table.writtenName($0.column), $0.value) }
                rows.append("    - key: \(Self.key(table.writtenKeyColumns, key))\n      from: \(Self.map(from))")
            }
            deletes.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n"))
            counts.2 += rows.count
        }
        guard counts != (0, 0, 0) else { return nil }
        var yaml = header
        if !inserts.isEmpty { yaml += "insert:\n" + inserts.joined(separator: "\n") + "\n" }
        if !updates.isEmpty { yaml += "update:\n" + updates.joined(separator: "\n") + "\n" }
        if !deletes.isEmpty { yaml += "delete:\n" + deletes.joined(separator: "\n") + "\n" }
        return (yaml, counts.0, counts.1, counts.2)
    }

    static func map(_ values: [(column: String, value: SQLValue)]) -> String {
        "{ " + values.map { "\(name($0.column)): \($0.value.yaml)" }.joined(separator: ", ") + " }"
    }

    static func key(_ columns: [String], _ values: [SQLValue]) -> String {
        columns.count == 1 ? values[0].yaml : map(Array(zip(columns, values)).map { (column: $0.0, value: $0.1) })
    }

    /// A column or table name as a YAML key: plain when it is a simple identifier.
    static func name(_ text: String) -> String {
        let simple = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } && !(text.first?.isNumber ?? true)
            && !["null", "true", "false", "yes", "no", "on", "off", "y", "n"].contains(text.lowercased())
        return simple ? text : DocNode.quote(text)
    }
}
