import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show rows added, removed and changed between two stores, table by table.",
            discussion: """
                Rows are matched by natural key: the manifest's (when there is one), else the keys the seed recorded, \
                else the primary key. Matched by natural key, ids SQLite assigned are left out and refs compare by the \
                parent's key. Values of different types differ (10 and 10.0). Read-only. Exits 0 unless --exit-code is \
                given; then 1 means the stores differ.
                """)

        @Argument(help: "The old store.")
        var a: String
        @Argument(help: "The new store.")
        var b: String
        @Option(name: .long, help: "Compare only this table.")
        var table: String?
        @Flag(name: .long, help: "Exit 1 when the stores differ.")
        var exitCode = false
        @OptionGroup var manifest: OptionalManifestOption
        @OptionGroup var output: OutputOptions

        func run() throws {
            let diff = try reporting(.human) {
                let first = try StoreAccess.openReadOnly(a, notice: Output.notice(about: a))
                let second = try StoreAccess.openReadOnly(b, notice: Output.notice(about: b))
                defer {
                    try? first.close()
                    try? second.close()
                }
                do {
                    // Each read says which store it is of, so that an error names the store that failed.
                    func ofA<T>(_ body: (Database) throws -> T) throws -> T {
                        try StoreDiff.ReadFailure.on(.a) { try first.read(body) }
                    }
                    func ofB<T>(_ body: (Database) throws -> T) throws -> T {
                        try StoreDiff.ReadFailure.on(.b) { try second.read(body) }
                    }
                    // A Core Data store is compared table by table, and reported by entity and attribute.
                    let coreData = try ofA { db in try CoreDataDialect.read(db) }
                    let table = coreData.map { dialect in self.table.map(dialect.tableName) } ?? self.table
                    if let table, try !ofA({ db in try db.tableExists(table) }) {
                        throw SeedError(.configuration, file: a, "no table '\(self.table ?? table)'")
                    }
                    // With natural keys (the manifest's, those the seed recorded, or a Core Data store's own
                    // model's), compare as the app sees rows: ids SQLite assigned are left out and refs compare
                    // by the parent's key.
                    let loaded = try manifest.load()
                    let cachedModel = try coreData == nil ? nil : ofA { db in try CoreDataModel.cachedModel(db) }
                    let model = loaded?.model ?? cachedModel
                    let specs =
                        try loaded?.tables.map(\.spec) ?? ofA { db in try SeedCatalog.tableSpecs(db) }
                        ?? cachedModel?.defaultSpecs ?? []
                    var keys: [String: [String]] = [:]
                    for spec in try ofA({ db in try StoreDiff.storeSpecs(specs, in: db) }) where !spec.key.isEmpty {
                        keys[spec.name] = spec.key
                    }
                    var semantics = try ofA { db in
                        try StoreDiff.Semantics.of(specs.filter { !$0.key.isEmpty }, in: db, facts: model?.facts)
                    }
                    // A Core Data store's UUID attributes compare and show as their text in every table, keyed or not
                    // (the model: the manifest's, the store's Z_MODELCACHE, or the facts a seed recorded).
                    if coreData != nil {
                        try ofA { db in
                            guard
                                let dialect = try CoreDataDialect.read(db, facts: model?.facts)
                            else { return }
                            for name in try TableInfo.userTables(db) {
                                guard let info = try TableInfo.read(db, table: name) else { continue }
                                for (column, expression) in dialect.uuidTextExpressions(info)
                                where semantics.expressions[name]?[column] == nil {
                                    semantics.expressions[name, default: [:]][column] = expression
                                }
                            }
                        }
                    }
                    var diff = try StoreDiff.compare(first, second, keys: keys, only: table, semantics: semantics)
                    // The rest of the schema (types, constraints, indexes); tables and columns only one side has are listed below, by name.
                    let schemaA = try ofA { db in try SchemaSnapshot.read(db) }
                    let schemaB = try ofB { db in try SchemaSnapshot.read(db) }
                    diff.schema = schemaA.differences(from: schemaB, this: a, that: b, presence: false)
                    if let table {
                        diff.schema = diff.schema.filter {
                            $0.contains(" \(table).") || $0.contains(" \(table) ") || $0.contains(" \(table):")
                        }
                    }
                    return coreData.map { diff.inAppTerms($0, model: model) } ?? diff
                } catch let error as SeedError {
                    throw error
                } catch let failure as StoreDiff.ReadFailure {
                    throw SeedError(databaseError: failure.error, file: failure.side == .a ? a : b)
                } catch {
                    throw SeedError(databaseError: error, file: a)
                }
            }
            print(render(diff), terminator: "")
            if exitCode && !(diff.isEmpty && diff.schema.isEmpty) { throw ExitCode(1) }
        }

        private func show(_ key: [SQLValue], quoted: Bool = true) -> String {
            key.map { value in
                if case .text(let text) = value, quoted {
                    return "'\(text.escapingControls())'"
                } else {
                    return value.display
                }
            }.joined(separator: ", ")
        }

        /// `10.0 → 11.0`; with storage classes when they differ: `10 (integer) → 10.0 (real)`.
        private func change(_ old: SQLValue, _ new: SQLValue) -> String {
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

        /// Every difference as a flat row: table, change, key, column, old, new.
        private var flatColumns: [String] { ["table", "change", "key", "column", "old", "new"] }

        private func flat(_ diff: StoreDiff) -> [[SQLValue]] {
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
                        .text(table.table), .text("added"), .text(show(key, quoted: false)), .null, .null, .null,
                    ])
                }
                for key in table.removed {
                    rows.append([
                        .text(table.table), .text("removed"), .text(show(key, quoted: false)), .null, .null, .null,
                    ])
                }
                for change in table.changed {
                    for column in change.columns {
                        rows.append([
                            .text(table.table), .text("changed"), .text(show(change.key, quoted: false)),
                            .text(column.column), column.old, column.new,
                        ])
                    }
                }
            }
            return rows
        }

        private func render(_ diff: StoreDiff) -> String {
            switch output.format {
            case .json:
                return JSONOutput.render(
                    .object([
                        ("identical", .bool(diff.isEmpty && diff.schema.isEmpty)),
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
                                                                    func value(_ shown: SQLValue, _ stored: SQLValue?)
                                                                        -> JSONOutput
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
                    ])) + "\n"
            case .csv, .markdown:
                return output.renderer.render(Tabular(columns: flatColumns, rows: flat(diff)))
            case .table:
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
                    let alike = Set(table.added.map { show($0) }).intersection(table.removed.map { show($0) })
                    func shownKey(_ key: [SQLValue]) -> String {
                        guard alike.contains(show(key)) else { return show(key) }
                        return key.map {
                            if case .text(let text) = $0 { "'\(text.escapingNonASCII)'" } else { $0.display }
                        }.joined(separator: ", ")
                    }
                    for key in table.added { out += "  + \(shownKey(key))\n" }
                    for key in table.removed { out += "  - \(shownKey(key))\n" }
                    for change in table.changed {
                        out +=
                            "  ~ \(show(change.key)): "
                            + change.columns.map { "\($0.column) \(self.change($0.old, $0.new))" }.joined(
                                separator: ", ") + "\n"
                    }
                }
                // Names (tables, columns, schema lines) come from the stores: nothing may act on a terminal.
                return out.escapingControls(keepingNewlines: true)
            }
        }
    }
}
