import Foundation
import GRDB
import SeedRuntime

// The verdicts of `check-upgrade` (docs/reference.md, "What `check-upgrade` checks"): the
// upgraded seed compared by content with a fresh build, each difference and each row the
// release touched given one verdict.
extension UpgradeChecker {
    /// Sorts the comparison of an upgraded seed with a fresh build into verdicts: each
    /// difference diverges, with what the migration run said of the row; every other row the
    /// release touched is ok, counted by table and by what the release did to it.
    struct Verdicts {
        let tables: [SemanticRows]
        var listsEveryRow = false
        private(set) var divergences: [Divergence] = []
        private(set) var summaries: [TableSummary] = []
        private(set) var okRows: [String] = []
        /// Each row the release's declarative changes touch, once, under the key it ends with.
        private var released: [(table: SemanticRows, kind: String, key: [SQLValue], id: String)] = []
        /// What the run said of a row whose change it did not apply, by table (spec name, lowercased) and key.
        private var events: [String: [String: (event: RowEvent, migration: String)]] = [:]
        private var diverging: [String: Set<String>] = [:]

        init(
            tables: [SemanticRows], report: MigrationReport, migrations: [Migration],
            renames: [(table: SemanticRows, old: [InputValue], new: [InputValue])]
        ) {
            self.tables = tables
            for migration in report.migrations {
                for event in migration.events where !event.kind.isApplied && event.kind != .sql {
                    guard let table = tables.named(event.table) else { continue }
                    let key = event.key.map { $0.parent?.value ?? $0.value }
                    events[table.spec.name.lowercasedName, default: [:]][UpgradeChecker.keyID(key)] = (
                        event, migration.id
                    )
                }
            }
            var renamed: [String: [String: [SQLValue]]] = [:]
            for rename in renames {
                renamed[rename.table.spec.name.lowercasedName, default: [:]][
                    UpgradeChecker.keyID(rename.old.map(UpgradeChecker.sqlValue))] = rename.new.map(
                        UpgradeChecker.sqlValue)
            }
            var positions: [String: [String: Int]] = [:]
            let renameIndex = RenameIndex(renames)
            for migration in migrations {
                guard case .changes(let changes) = migration.body else { continue }
                for operation in changes.operations {
                    guard let table = tables.named(operation.table) else { continue }
                    let name = table.spec.name.lowercasedName
                    var keys: [(kind: String, key: [InputValue])] = []
                    switch operation {
                    case .insert(_, let rows):
                        for row in rows {
                            let key = table.writtenKeyColumns.compactMap { row[$0] }
                            if key.count == table.keyColumns.count { keys.append(("inserted", key)) }
                        }
                    case .update(_, let rows):
                        for change in rows {
                            if let key = UpgradeChecker.renamedKey(change, table) {
                                keys.append(("renamed", key))
                            } else if let key = UpgradeChecker.keyValues(change.key, table) {
                                keys.append(("updated", key))
                            }
                        }
                    case .delete(_, let rows):
                        for change in rows {
                            if let key = UpgradeChecker.keyValues(change.key, table) { keys.append(("deleted", key)) }
                        }
                    }
                    for (kind, written) in keys {
                        var key = renameIndex.after(table, written.map(UpgradeChecker.sqlValue))
                        // Renamed later in the release: the row ends under its last key.
                        var hops = 0
                        while let next = renamed[name]?[UpgradeChecker.keyID(key)], hops < 64 {
                            key = next
                            hops += 1
                        }
                        let id = UpgradeChecker.keyID(key)
                        // One verdict per row: a row two changes touch counts once, under what the last did.
                        if let index = positions[name]?[id] {
                            released[index].kind = kind
                        } else {
                            positions[name, default: [:]][id] = released.count
                            released.append((table, kind, key, id))
                        }
                    }
                }
            }
        }

        private func table(_ name: String) -> SemanticRows? { tables.first { $0.spec.name == name } }

        /// The differences of `diff` (upgraded seed: a; fresh build: b), each naming what the
        /// migration run said of the row when it did not apply its change.
        mutating func classify(_ diff: StoreDiff) {
            for table in diff.tables {
                let rows = self.table(table.table)
                let name = rows?.written.name ?? table.table
                let lowered = table.table.lowercasedName
                // A key missing and one extra that print alike (NFC and NFD) show their scalars.
                let alike = Set(table.added.map { UpgradeChecker.show($0.key) }).intersection(
                    table.removed.map { UpgradeChecker.show($0.key) })
                func shownKey(_ key: [SQLValue]) -> String {
                    guard alike.contains(UpgradeChecker.show(key)) else { return UpgradeChecker.show(key) }
                    return key.map {
                        if case .text(let text) = $0 { "'\(text.escapingNonASCII)'" } else { UpgradeChecker.show([$0]) }
                    }.joined(separator: ", ")
                }
                func add(_ key: [SQLValue], column: String?, got: String, expected: String) {
                    let id = UpgradeChecker.keyID(key)
                    diverging[lowered, default: []].insert(id)
                    var divergence = Divergence(
                        table: name, key: shownKey(key), column: column, got: got, expected: expected)
                    divergence.cause = events[lowered]?[id].map {
                        "\($0.event.line > 0 ? "\($0.event.file):\($0.event.line)" : $0.event.file): migration \($0.migration) did not apply its change: \($0.event.kind.rawValue): \($0.event.detail)"
                    }
                    divergences.append(divergence)
                }
                for row in table.added { add(row.key, column: nil, got: "no row", expected: "a row") }
                for row in table.removed { add(row.key, column: nil, got: "a row", expected: "no row") }
                for change in table.changed {
                    for column in change.columns {
                        add(
                            change.key, column: rows?.writtenName(column.column) ?? column.column,
                            got: UpgradeChecker.shownValue(column.old, against: column.new),
                            expected: UpgradeChecker.shownValue(column.new, against: column.old))
                    }
                }
            }
            for name in diff.tablesOnlyInA {
                divergences.append(
                    Divergence(table: name, key: "", column: nil, got: "the table", expected: "no such table"))
            }
            for name in diff.tablesOnlyInB {
                divergences.append(
                    Divergence(table: name, key: "", column: nil, got: "no such table", expected: "the table"))
            }
        }

        /// Counts each row the release's declarative changes touch, table by table: ok unless it diverges.
        mutating func count() {
            var counts: [String: [String: Int]] = [:]
            var order: [String] = []
            for (table, kind, key, id) in released {
                let name = table.spec.name.lowercasedName
                if counts[table.written.name] == nil { order.append(table.written.name) }
                let verdict = diverging[name]?.contains(id) == true ? "DIVERGES" : kind
                counts[table.written.name, default: [:]][verdict, default: 0] += 1
                if listsEveryRow && verdict != "DIVERGES" {
                    okRows.append("\(table.written.name) \(UpgradeChecker.show(key)) \(kind) as in a fresh build")
                }
            }
            let kinds = ["inserted", "updated", "renamed", "deleted"]
            summaries = order.map { table in
                let count = counts[table] ?? [:]
                return TableSummary(
                    table: table, ok: kinds.compactMap { kind in count[kind].map { (kind, $0) } },
                    diverging: count["DIVERGES"] ?? 0)
            }
        }
    }

    /// A value in a divergence: as ``show(_:against:)``, with its storage class named when the
    /// other side's differs (`1e999 (REAL, infinity)` and `'1e400' (TEXT)` are not the same value).
    static func shownValue(_ value: SQLValue, against other: SQLValue) -> String {
        let shown = show([value], against: other)
        func storageClass(_ value: SQLValue) -> String {
            switch value {
            case .null: "NULL"
            case .integer: "INTEGER"
            case .real: "REAL"
            case .text: "TEXT"
            case .blob: "BLOB"
            }
        }
        let sameClass =
            storageClass(value) == storageClass(other)
            || [value, other].allSatisfy {
                if case .integer = $0 { true } else if case .real = $0 { true } else { false }
            }
        guard !sameClass, value != .null else { return shown }
        if case .real(let number) = value, number.isInfinite {
            return "\(shown) (REAL, \(number < 0 ? "-" : "")infinity)"
        }
        return "\(shown) (\(storageClass(value)))"
    }
}
