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

    /// The schema step from `old` to `current` (two seeds), nil when their schemas agree.
    ///
    /// - throws: ``SeedError`` for a change seedkit will not write (see ``SchemaStep``), and for
    ///   any schema change of a Core Data store (Core Data migrates its schema itself).
    public static func schemaStep(old: DatabaseQueue, current: DatabaseQueue, oldName: String, coreData: Bool) throws -> SchemaStep? {
        let before = try old.read { db in try SchemaSnapshot.read(db) }
        let after = try current.read { db in try SchemaSnapshot.read(db) }
        let differences = before.differences(from: after, this: oldName, that: "the fresh build")
        guard !differences.isEmpty else { return nil }
        if coreData {
            throw SeedError(.configuration, differences.map { Diagnostic(file: oldName, code: .configuration, message: "\($0): a Core Data store's schema is the model's, and Core Data migrates it (a new model version); seedkit writes no schema step for it") })
        }
        return try SchemaStep.make(from: before, to: after, oldName: oldName)
    }

    /// The YAML of the migration from `old` to `current` (two seeds), and how many rows it changes; nil when they hold the same data.
    public func generate(old: DatabaseQueue, current: DatabaseQueue, header: String) throws -> (yaml: String, inserts: Int, updates: Int, deletes: Int)? {
        let (tables, semantics) = try current.read { db in try SemanticRows.make(manifest, in: db) }
        var keys: [String: [String]] = [:]
        for table in tables { keys[table.spec.name] = table.keyColumns }
        let diff = try StoreDiff.compare(old, current, keys: keys, tables: tables.map(\.spec.name), semantics: semantics)
        var inserts: [String] = [], updates: [String] = [], deletes: [String] = []
        var counts = (0, 0, 0)
        let ordered = Self.parentsFirst(tables)
        for table in ordered {
            guard let changes = diff.tables.first(where: { $0.table == table.spec.name }), !changes.added.isEmpty else { continue }
            var rows: [[(column: String, value: SQLValue)]] = []
            for key in changes.added {
                guard let row = try current.read({ db in try table.row(db, key: key) }) else { continue }
                rows.append(row)
            }
            let lines = Self.selfReferencesFirst(rows, table: table).map { "    - " + Self.map($0.map { (table.writtenName($0.column), $0.value) }) }
            inserts.append("  \(Self.name(table.written.name)):\n" + lines.joined(separator: "\n"))
            counts.0 += lines.count
        }
        for table in tables {
            guard let changes = diff.tables.first(where: { $0.table == table.spec.name }) else { continue }
            var rows: [String] = []
            for change in changes.changed {
                rows.append("    - key: \(Self.key(table.writtenKeyColumns, change.key))\n      from: \(Self.map(change.columns.map { (table.writtenName($0.column), $0.old) }))\n      to: \(Self.map(change.columns.map { (table.writtenName($0.column), $0.new) }))")
            }
            if !rows.isEmpty { updates.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n")); counts.1 += rows.count }
        }
        for table in ordered.reversed() {
            guard let changes = diff.tables.first(where: { $0.table == table.spec.name }), !changes.removed.isEmpty else { continue }
            var removed: [[(column: String, value: SQLValue)]] = []
            for key in changes.removed {
                guard let row = try old.read({ db in try table.row(db, key: key) }) else { continue }
                removed.append(row)
            }
            // Children before their parents.
            let rows = Self.selfReferencesFirst(removed, table: table).reversed().map { row in
                let key = table.keyColumns.map { column in row.first { $0.column == column }?.value ?? .null }
                let from = row.filter { !table.keyColumns.contains($0.column) }.map { (table.writtenName($0.column), $0.value) }
                return "    - key: \(Self.key(table.writtenKeyColumns, key))\n      from: \(Self.map(from))"
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

    /// The tables in an order where each comes after the tables it refers to (the manifest's
    /// order where refs allow; tables that refer to each other keep it).
    static func parentsFirst(_ tables: [SemanticRows]) -> [SemanticRows] {
        var placed: [SemanticRows] = []
        var visiting: Set<String> = []
        func place(_ table: SemanticRows) {
            guard !placed.contains(where: { $0.spec.name == table.spec.name }), !visiting.contains(table.spec.name) else { return }
            visiting.insert(table.spec.name)
            for column in table.spec.refs.keys.sorted() {
                guard let parent = table.spec.refs[column], parent.table != table.spec.name,
                      let parentTable = tables.first(where: { $0.spec.name == parent.table }) else { continue }
                place(parentTable)
            }
            placed.append(table)
        }
        for table in tables { place(table) }
        return placed
    }

    /// Rows of one table (refs as natural keys) reordered so that a row comes after the rows of
    /// the same table it refers to (a self-reference: a subdivision after its parent); otherwise
    /// in the given order. Rows in a cycle keep their order (`migrate` links them).
    static func selfReferencesFirst(_ rows: [[(column: String, value: SQLValue)]], table: SemanticRows) -> [[(column: String, value: SQLValue)]] {
        let selfRefs = table.spec.refs.filter { $0.value.table == table.spec.name }
        guard !selfRefs.isEmpty else { return rows }
        func value(_ row: [(column: String, value: SQLValue)], _ column: String) -> SQLValue? {
            row.first { $0.column.lowercased() == column.lowercased() }?.value
        }
        // Parent key column → (value → row index).
        var byKey: [String: [String: Int]] = [:]
        for reference in selfRefs.values {
            for (index, row) in rows.enumerated() {
                if let key = value(row, reference.column), key != .null { byKey[reference.column, default: [:]][key.sqlLiteral] = index }
            }
        }
        var order: [Int] = []
        var state = [UInt8](repeating: 0, count: rows.count)  // 0 new, 1 visiting, 2 placed
        func place(_ index: Int) {
            guard state[index] == 0 else { return }
            state[index] = 1
            for (column, reference) in selfRefs.sorted(by: { $0.key < $1.key }) {
                if let parentKey = value(rows[index], column), parentKey != .null, let parent = byKey[reference.column]?[parentKey.sqlLiteral], parent != index {
                    place(parent)
                }
            }
            state[index] = 2
            order.append(index)
        }
        for index in rows.indices { place(index) }
        return order.map { rows[$0] }
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
