import Foundation
import SeedRuntime

/// `diff A B`: what differs between two stores, for people (a summary per table, then `+`, `-`
/// and `~` lines), as JSON, or as one flat row per difference.
public struct DiffReport: Report {
    public var diff: StoreDiff
    /// The stores as the command was given them.
    public var a: String
    public var b: String

    public init(_ diff: StoreDiff, a: String, b: String) {
        self.diff = diff
        self.a = a
        self.b = b
    }

    public static let views: Set<ReportView> = [.text, .document, .rows]

    /// Whether the stores differ at all (rows, tables, columns or schema).
    public var identical: Bool { diff.isEmpty && diff.schema.isEmpty }

    public func writeText(to output: ReportOutput) {
        var out = ""
        for name in diff.tablesOnlyInA { out += "table \(name): only in \(a)\n" }
        for name in diff.tablesOnlyInB { out += "table \(name): only in \(b)\n" }
        for (table, columns) in diff.columnsOnlyInA.sorted(by: { $0.key < $1.key }) {
            out +=
                "table \(table): column\(columns.count == 1 ? "" : "s") \(columns.joined(separator: ", ")) only in \(a)\n"
        }
        for (table, columns) in diff.columnsOnlyInB.sorted(by: { $0.key < $1.key }) {
            out +=
                "table \(table): column\(columns.count == 1 ? "" : "s") \(columns.joined(separator: ", ")) only in \(b)\n"
        }
        for line in diff.schema { out += "schema: \(line)\n" }
        for table in diff.tables {
            // Rows are compared on the columns both sides have: say so when the schema differs.
            let partial = diff.columnsOnlyInA[table.table] != nil || diff.columnsOnlyInB[table.table] != nil
            let scope = partial ? " in the columns both have" : ""
            if table.isEmpty {
                out += "\(table.table): no differences\(scope)\n"
                continue
            }
            out +=
                "\(table.table): \(table.added.count) added, \(table.removed.count) removed, \(table.changed.count) changed\(scope) (by \(table.key.joined(separator: ", ")))\n"
            // A key added and one removed that print alike (NFC and NFD) show their scalars.
            let alike = Set(table.added.map { Self.show($0) }).intersection(table.removed.map { Self.show($0) })
            func shownKey(_ key: [SQLValue]) -> String {
                guard alike.contains(Self.show(key)) else { return Self.show(key) }
                return key.map { if case .text(let text) = $0 { "'\(text.escapingNonASCII)'" } else { $0.display } }
                    .joined(separator: ", ")
            }
            for key in table.added { out += "  + \(shownKey(key))\n" }
            for key in table.removed { out += "  - \(shownKey(key))\n" }
            for change in table.changed {
                out +=
                    "  ~ \(Self.show(change.key)): "
                    + change.columns.map { "\($0.column) \(Self.change($0.old, $0.new))" }.joined(separator: ", ")
                    + "\n"
            }
        }
        // Names (tables, columns, schema lines) come from the stores: nothing may act on a terminal.
        output.write(out.escapingControls(keepingNewlines: true))
    }

    public var document: JSONOutput? {
        .object([
            ("identical", .bool(identical)),
            ("schema", .array(diff.schema.map { .string($0) })),
            ("tablesOnlyInA", .array(diff.tablesOnlyInA.map { .string($0) })),
            ("tablesOnlyInB", .array(diff.tablesOnlyInB.map { .string($0) })),
            (
                "columnsOnlyInA",
                .object(
                    diff.columnsOnlyInA.sorted { $0.key < $1.key }.map {
                        ($0.key, .array($0.value.map { .string($0) }))
                    })
            ),
            (
                "columnsOnlyInB",
                .object(
                    diff.columnsOnlyInB.sorted { $0.key < $1.key }.map {
                        ($0.key, .array($0.value.map { .string($0) }))
                    })
            ),
            (
                "tables",
                .array(
                    diff.tables.map { table in
                        .object([
                            ("table", .string(table.table)),
                            ("key", .array(table.key.map { .string($0) })),
                            ("added", .array(table.added.map { .array($0.map(JSONOutput.sql)) })),
                            ("removed", .array(table.removed.map { .array($0.map(JSONOutput.sql)) })),
                            (
                                "changed",
                                .array(
                                    table.changed.map { change in
                                        .object([
                                            ("key", .array(change.key.map(JSONOutput.sql))),
                                            (
                                                "columns",
                                                .array(
                                                    change.columns.map { column in
                                                        // A ref: {"key": the parent's natural key, "id": the value stored in that store}.
                                                        func value(_ shown: SQLValue, _ stored: SQLValue?) -> JSONOutput
                                                        {
                                                            guard let stored, stored != .null else {
                                                                return JSONOutput.sql(shown)
                                                            }
                                                            return .object([
                                                                ("key", JSONOutput.sql(shown)),
                                                                ("id", JSONOutput.sql(stored)),
                                                            ])
                                                        }
                                                        return .object([
                                                            ("column", .string(column.column)),
                                                            ("old", value(column.old, column.oldStored)),
                                                            ("new", value(column.new, column.newStored)),
                                                        ])
                                                    })
                                            ),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }

    /// Every difference as a flat row: table, change, key, column, old, new.
    public var tabular: Tabular? {
        var rows: [[SQLValue]] = []
        for name in diff.tablesOnlyInA {
            rows.append([.text(name), .text("table only in A"), .null, .null, .null, .null])
        }
        for name in diff.tablesOnlyInB {
            rows.append([.text(name), .text("table only in B"), .null, .null, .null, .null])
        }
        for (table, columns) in diff.columnsOnlyInA.sorted(by: { $0.key < $1.key }) {
            for column in columns {
                rows.append([.text(table), .text("column only in A"), .null, .text(column), .null, .null])
            }
        }
        for (table, columns) in diff.columnsOnlyInB.sorted(by: { $0.key < $1.key }) {
            for column in columns {
                rows.append([.text(table), .text("column only in B"), .null, .text(column), .null, .null])
            }
        }
        for line in diff.schema { rows.append([.null, .text("schema"), .null, .null, .text(line), .null]) }
        for table in diff.tables {
            for key in table.added {
                rows.append([
                    .text(table.table), .text("added"), .text(Self.show(key, quoted: false)), .null, .null, .null,
                ])
            }
            for key in table.removed {
                rows.append([
                    .text(table.table), .text("removed"), .text(Self.show(key, quoted: false)), .null, .null, .null,
                ])
            }
            for change in table.changed {
                for column in change.columns {
                    rows.append([
                        .text(table.table), .text("changed"), .text(Self.show(change.key, quoted: false)),
                        .text(column.column), column.old, column.new,
                    ])
                }
            }
        }
        return Tabular(columns: ["table", "change", "key", "column", "old", "new"], rows: rows)
    }

    static func show(_ key: [SQLValue], quoted: Bool = true) -> String {
        key.map { value in
            if case .text(let text) = value, quoted {
                return "'\(text.escapingControls())'"
            } else {
                return value.display
            }
        }.joined(separator: ", ")
    }

    /// `10.0 → 11.0`; with storage classes when they differ: `10 (integer) → 10.0 (real)`.
    static func change(_ old: SQLValue, _ new: SQLValue) -> String {
        func shown(_ value: SQLValue) -> String {
            if case .text(let text) = value { return "'\(text.escapingControls())'" } else { return value.display }
        }
        // Two texts whose bytes differ but that print alike (NFC and NFD): show their scalars.
        if case .text(let a) = old, case .text(let b) = new {
            let (shownA, shownB) = String.distinguishing(a, b)
            return "'\(shownA)' → '\(shownB)'"
        }
        func kind(_ value: SQLValue) -> String {
            switch value {
            case .null: return "null"
            case .integer: return "integer"
            case .real: return "real"
            case .text: return "text"
            case .blob: return "blob"
            }
        }
        guard kind(old) != kind(new), old != .null, new != .null else { return "\(shown(old)) → \(shown(new))" }
        return "\(shown(old)) (\(kind(old))) → \(shown(new)) (\(kind(new)))"
    }
}
