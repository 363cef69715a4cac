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
        @Option(
            name: .customLong("migrations"),
            help: ArgumentHelp(
                "The migrations whose renames show as one changed row: those B has and A has not (default: migrations, when there; none for none).",
                valueName: "dir"))
        var migrations: String?
        @OptionGroup var output: FormatOption<DiffReport>

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
                    for spec in try ofA({ db in try StoreDiff.storeSpecs(specs, in: db, facts: model?.facts) })
                    where !spec.key.isEmpty {
                        keys[spec.name] = spec.key
                    }
                    var semantics = try ofA { db in
                        try StoreDiff.Semantics.of(specs.filter { !$0.key.isEmpty }, in: db, facts: model?.facts)
                    }
                    // The dialect with the model's facts (the manifest's, the store's Z_MODELCACHE, or the facts a
                    // seed recorded): they say which columns are UUIDs, and name another entity's inverse-less
                    // to-many (`Shelf.books`).
                    let dialect =
                        try coreData == nil ? nil : ofA { db in try CoreDataDialect.read(db, facts: model?.facts) }
                    // A Core Data store's UUID attributes compare and show as their text in every table, keyed or not.
                    if let dialect {
                        try ofA { db in
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
                    if dialect == nil {
                        let release = try releaseMigrations(ofA: ofA, ofB: ofB)
                        diff.pairingRenames(StoreDiff.renames(in: release, keys: keys), specs: specs)
                    }
                    // The rest of the schema (types, constraints, indexes); tables and columns only one side has are listed below, by name.
                    let schemaA = try ofA { db in try SchemaSnapshot.read(db) }
                    let schemaB = try ofB { db in try SchemaSnapshot.read(db) }
                    diff.schema = schemaA.differences(from: schemaB, this: a, that: b, presence: false)
                    if let table {
                        diff.schema = diff.schema.filter {
                            $0.contains(" \(table).") || $0.contains(" \(table) ") || $0.contains(" \(table):")
                        }
                    }
                    return dialect.map { diff.inAppTerms($0, model: model) } ?? diff
                } catch let error as SeedError {
                    throw error
                } catch let failure as StoreDiff.ReadFailure {
                    throw SeedError(databaseError: failure.error, file: failure.side == .a ? a : b)
                } catch {
                    throw SeedError(databaseError: error, file: a)
                }
            }
            let report = DiffReport(diff, a: a, b: b)
            Output.render(report, output.format)
            if exitCode && !report.identical { throw ExitCode(1) }
        }

        /// The migrations B's ledger lists and A's does not, read from the migrations folder
        /// (default: migrations, when there): what a release between the two did, whose renames
        /// show as one changed row.
        private func releaseMigrations(
            ofA: ((Database) throws -> [LedgerEntry]) throws -> [LedgerEntry],
            ofB: ((Database) throws -> [LedgerEntry]) throws -> [LedgerEntry]
        ) throws -> [Migration] {
            guard migrations != "none" else { return [] }
            let folder = migrations ?? "migrations"
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                if migrations == nil { return [] }
                throw SeedError(.configuration, file: folder, "no such migrations folder (--migrations none for none)")
            }
            let inA = Set(try ofA { db in try MigrationLedger.entries(db) }.map(\.id))
            let release = Set(try ofB { db in try MigrationLedger.entries(db) }.map(\.id)).subtracting(inA)
            guard !release.isEmpty else { return [] }
            return try MigrationDirectory.read(
                URL(fileURLWithPath: folder), displayPath: folder, yamlParser: YAMLDocument.parser,
                missingIsEmpty: false
            ).filter { release.contains($0.id) }
        }
    }
}
