import Foundation
import SeedRuntime

/// `diff A B`: what differs between two stores, for people (a summary per table, then `+`, `-`
/// and `~` lines), as JSON, or as one flat row per difference.
public struct DiffReport: Report {
    /// What differs between the two stores, table by table.
    public var diff: StoreDiff
    /// The first store, as named on the command line (the `-` side).
    public var a: String
    /// The second store, as named on the command line (the `+` side).
    public var b: String

    /// Reports `diff`, the differences from store `a` to store `b`.
    public init(_ diff: StoreDiff, a: String, b: String) {
        self.diff = diff
        self.a = a
        self.b = b
    }

    /// Text, one JSON document, and rows: `diff`'s output is data, with nothing to annotate.
    public static let views: Set<ReportView> = [.text, .document, .rows]

    /// Whether the stores differ at all (rows, tables, columns or schema).
    public var identical: Bool { diff.isEmpty && diff.schema.isEmpty }

    /// Writes per table a count line, then a `+`, `-` or `~` line per row added, removed or
    /// changed.
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
            let alike = Set(table.added.map { Self.show($0.key) }).intersection(table.removed.map { Self.show($0.key) })
            func shownKey(_ key: [SQLValue]) -> String {
                guard alike.contains(Self.show(key)) else { return Self.show(key) }
                return key.map { if case .text(let text) = $0 { "'\(text.escapingNonASCII)'" } else { $0.display } }
                    .joined(separator: ", ")
            }
            // A row only one side has, with its values as `~` lines show them: `+ 'Apple': quantity 3`.
            func shownRow(_ row: StoreDiff.TableDiff.Row) -> String {
                let values = zip(table.columns, row.values).map { "\($0) \(Self.show([$1]))" }
                return shownKey(row.key) + (values.isEmpty ? "" : ": " + values.joined(separator: ", "))
            }
            for row in table.added { out += "  + \(shownRow(row))\n" }
            for row in table.removed { out += "  - \(shownRow(row))\n" }
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

    /// `{"identical", "schema", …, "tables": [{"table", "key", "added", "removed", "changed"}]}`.
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
                            ("added", .array(table.added.map { Self.json($0, columns: table.columns) })),
                            ("removed", .array(table.removed.map { Self.json($0, columns: table.columns) })),
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
    ///
    /// A row only one side has gives a line per column, its value as `new` (added) or `old`
    /// (removed); a cell with nothing to say is empty in every format, where a NULL value is NULL
    /// (docs/reference.md).
    public var tabular: Tabular? {
        var rows: [[SQLValue?]] = []
        for name in diff.tablesOnlyInA { rows.append([.text(name), .text("table only in A"), nil, nil, nil, nil]) }
        for name in diff.tablesOnlyInB { rows.append([.text(name), .text("table only in B"), nil, nil, nil, nil]) }
        for (side, columnsOnly) in [("A", diff.columnsOnlyInA), ("B", diff.columnsOnlyInB)] {
            for (table, columns) in columnsOnly.sorted(by: { $0.key < $1.key }) {
                for column in columns {
                    rows.append([.text(table), .text("column only in \(side)"), nil, .text(column), nil, nil])
                }
            }
        }
        for line in diff.schema { rows.append([nil, .text("schema"), nil, nil, .text(line), nil]) }
        for table in diff.tables {
            for (change, sideRows) in [("added", table.added), ("removed", table.removed)] {
                for row in sideRows {
                    let key = SQLValue.text(Self.show(row.key, quoted: false))
                    guard !table.columns.isEmpty else {
                        rows.append([.text(table.table), .text(change), key, nil, nil, nil])
                        continue
                    }
                    for (column, value) in zip(table.columns, row.values) {
                        let (old, new): (SQLValue?, SQLValue?) = change == "added" ? (nil, value) : (value, nil)
                        rows.append([.text(table.table), .text(change), key, .text(column), old, new])
                    }
                }
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

    /// A row only one side has: `{"key": [...], "values": {column: value}}`.
    static func json(_ row: StoreDiff.TableDiff.Row, columns: [String]) -> JSONOutput {
        .object([
            ("key", .array(row.key.map(JSONOutput.sql))),
            ("values", .object(zip(columns, row.values).map { ($0, JSONOutput.sql($1)) })),
        ])
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

    /// `10.0 → 11.0`; with storage classes when they differ: `10 (integer) → '10' (text)`.
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
