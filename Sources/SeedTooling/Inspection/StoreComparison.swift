import Foundation
public import GRDB
public import SeedRuntime

/// What `seedkit diff A B` compares, as a library call: the two stores' rows by natural key,
/// their schemas, and the renames a release between them made (docs/reference.md, "Commands").
///
/// Rows are matched by the manifest's keys when there is one, else the keys the seed recorded,
/// else a Core Data store's own model's; matched so, ids SQLite assigned are left out and refs
/// compare by the parent's key, as the app sees rows. A Core Data store is compared table by
/// table and reported by entity and attribute.
public enum StoreComparison {
    /// Compares `a` with `b` (named `pathA` and `pathB` in errors), all tables or only `table`
    /// (as the user names it: a Core Data entity or a table).
    ///
    /// `migrations` is the project's migrations folder, whose migrations B's ledger lists and A's
    /// does not make the renames shown as one changed row; nil for none.
    ///
    /// - throws: ``SeedError``: configuration for a table A lacks; a read that fails names the
    ///   store it failed on.
    public static func diff(
        _ a: DatabaseQueue, _ b: DatabaseQueue, pathA: String, pathB: String, manifest: Manifest?,
        table requested: String? = nil, migrations: URL? = nil
    ) throws(SeedError) -> StoreDiff {
        do {
            return try compare(
                a, b, pathA: pathA, pathB: pathB, manifest: manifest, table: requested, migrations: migrations)
        } catch let error as SeedError {
            throw error
        } catch let failure as StoreDiff.ReadFailure {
            throw SeedError(databaseError: failure.error, file: failure.side == .a ? pathA : pathB)
        } catch {
            throw SeedError(databaseError: error, file: pathA)
        }
    }

    private static func compare(
        _ a: DatabaseQueue, _ b: DatabaseQueue, pathA: String, pathB: String, manifest: Manifest?,
        table requested: String?, migrations: URL?
    ) throws -> StoreDiff {
        // Each read says which store it is of, so that an error names the store that failed.
        func ofA<T>(_ body: (Database) throws -> T) throws -> T {
            try StoreDiff.ReadFailure.on(.a) { try a.read(body) }
        }
        func ofB<T>(_ body: (Database) throws -> T) throws -> T {
            try StoreDiff.ReadFailure.on(.b) { try b.read(body) }
        }
        let coreData = try ofA { db in try CoreDataDialect.read(db) }
        let table = coreData.map { dialect in requested.map(dialect.tableName) } ?? requested
        if let table, try !ofA({ db in try db.tableExists(table) }) {
            throw SeedError(.configuration, file: pathA, "no table '\(requested ?? table)'")
        }
        let cachedModel = try coreData == nil ? nil : ofA { db in try CoreDataModel.cachedModel(db) }
        let model = manifest?.model ?? cachedModel
        let specs =
            try manifest?.tables.map(\.spec) ?? ofA { db in try SeedCatalog.tableSpecs(db) }
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
        let dialect = try coreData == nil ? nil : ofA { db in try CoreDataDialect.read(db, facts: model?.facts) }
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
        var diff = try StoreDiff.compare(a, b, keys: keys, only: table, semantics: semantics)
        if dialect == nil, let migrations {
            let inA = Set(try ofA { db in try MigrationLedger.entries(db) }.map(\.id))
            let release = Set(try ofB { db in try MigrationLedger.entries(db) }.map(\.id)).subtracting(inA)
            if !release.isEmpty {
                let read = try MigrationDirectory.read(
                    migrations, displayPath: migrations.relativePath, yamlParser: YAMLDocument.parser,
                    missingIsEmpty: true
                ).filter { release.contains($0.id) }
                diff.pairingRenames(StoreDiff.renames(in: read, keys: keys), specs: specs)
            }
        }
        // The rest of the schema (types, constraints, indexes); tables and columns only one side
        // has are listed by name. With a table named, only it and its indexes and triggers.
        var schemaA = try ofA { db in try SchemaSnapshot.read(db) }
        var schemaB = try ofB { db in try SchemaSnapshot.read(db) }
        if let table {
            schemaA = schemaA.only(table: table)
            schemaB = schemaB.only(table: table)
        }
        diff.schema = schemaA.differences(from: schemaB, this: pathA, that: pathB, presence: false)
        return dialect.map { diff.inAppTerms($0, model: model) } ?? diff
    }
}

extension StoreComparison {
    /// The migrations folder whose renames `diff` shows as one change: `given` (`--migrations`),
    /// which must exist, or `migrations` when it does; nil for `none` or a default that is not there.
    ///
    /// - throws: ``SeedError`` (configuration) for a folder given that is not there.
    public static func migrationsFolder(given: String?) throws(SeedError) -> URL? {
        guard given != "none" else { return nil }
        let folder = given ?? "migrations"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            if given == nil { return nil }
            throw SeedError(.configuration, file: folder, "no such migrations folder (--migrations none for none)")
        }
        return URL(fileURLWithPath: folder)
    }
}

extension SchemaSnapshot {
    /// The snapshot of `table` alone: it, and the indexes, triggers and views SQLite files under it.
    public func only(table name: String) -> SchemaSnapshot {
        SchemaSnapshot(
            tables: tables.filter { $0.name.isSameName(as: name) },
            objects: objects.filter { $0.table.isSameName(as: name) })
    }
}
