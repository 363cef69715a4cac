import Foundation
import GRDB
import SeedRuntime

/// The release-time check of the keys updates and deletes name (docs/releases.md, "Shipping a data update"): a key that matches
/// no row the release knows of is the author's typo.
///
/// `migrate` cannot tell it from a row the user deleted (it reports the row missing and records the
/// migration as applied), so `build` and `check-upgrade` report it, like an unknown ref (2030, at
/// the migration's line).
///
/// A key is known when a migration inserts it or renames a row to it (any migration, in any
/// order), when a table a `.sql` migration writes is involved (what SQL provides is known only
/// by running it), or when `found` finds it: the fresh build, and for `check-upgrade` the old
/// seeds it was given.
enum MigrationKeys {
    /// One diagnostic per unmatched key.
    ///
    /// - Parameters:
    ///   - migrations: the migrations whose keys are checked, in order.
    ///   - tables: the manifest's tables, with their key columns and refs.
    ///   - migrateOnly: the manifest's `migrate_only` tables, by ``lowercasedName``: their rows are
    ///     the users' alone, so an update or delete names rows no release holds, and an insert is
    ///     refused (the seed records the migration as applied without the row).
    ///   - everyKey: false for `build`, which has only the fixtures: it checks the keys of
    ///     updates that are not renames and whose row no later step deletes or renames (those
    ///     rows are in old seeds only). True for `check-upgrade`: every update's and delete's key.
    ///   - found: whether a store the check reads has a row of the table with this key (values
    ///     in ``SemanticRows/writtenKeyColumns`` order, refs by the parent's key).
    /// - Returns: a diagnostic per key no store and no migration holds, at its migration.
    /// - Throws: what `found` throws.
    static func unmatched(
        in migrations: [Migration], tables: [SemanticRows], migrateOnly: Set<String> = [], everyKey: Bool,
        found: (SemanticRows, [SQLValue]) throws -> Bool
    ) throws -> [Diagnostic] {
        func id(_ values: [InputValue]) -> String {
            if values.count == 1 { return MigrationReferences.canonical(values[0]) }
            return values.map(MigrationReferences.canonical).joined(separator: "\u{0}")
        }
        var steps: [(migration: Migration, operation: DataChanges.Operation)] = []
        for migration in migrations {
            guard case .changes(let changes) = migration.body else { continue }
            for operation in changes.operations { steps.append((migration, operation)) }
        }
        // Keys the migrations give rows: inserted rows' keys and renames' new keys, by table.
        var provided: [String: Set<String>] = [:]
        // A renamed row's old one-column key by its new one, by table: a child's key that names
        // the parent by its new key names, in the old seeds, the parent by its old one.
        var oldKeys: [String: [String: InputValue]] = [:]
        for (_, operation) in steps {
            guard let table = tables.named(operation.table) else { continue }
            let name = table.written.name.lowercasedName
            switch operation {
            case .insert(_, let rows):
                for row in rows {
                    let key = table.writtenKeyColumns.compactMap { column in
                        row.values.first { $0.column.isSameName(as: column) }?.value
                    }
                    if key.count == table.keyColumns.count { provided[name, default: []].insert(id(key)) }
                }
            case .update(_, let changes):
                for change in changes {
                    if let key = UpgradeChecker.renamedKey(change, table) {
                        provided[name, default: []].insert(id(key))
                        if key.count == 1, let old = UpgradeChecker.keyValues(change.key, table), old.count == 1 {
                            oldKeys[name, default: [:]][id(key)] = old[0]
                        }
                    }
                }
            case .delete: continue
            }
        }
        // The last step that deletes each key's row or renames it away, by table: one index of
        // the release's keys, so that asking about every update is linear in the rows, not
        // updates × deletes.
        var lastLeaving: [String: [String: Int]] = [:]
        for (index, (_, operation)) in steps.enumerated() {
            guard let table = tables.named(operation.table) else { continue }
            let leaving: [DataChanges.RowChange]
            switch operation {
            case .delete(_, let changes): leaving = changes
            case .update(_, let changes): leaving = changes.filter { UpgradeChecker.renamedKey($0, table) != nil }
            case .insert: continue
            }
            for change in leaving {
                guard let key = UpgradeChecker.keyValues(change.key, table) else { continue }
                lastLeaving[table.written.name.lowercasedName, default: [:]][id(key)] = index
            }
        }
        // Whether a step after `index` deletes the row with key `keyID` or renames it away.
        func leavesLater(_ index: Int, _ table: String, _ keyID: String) -> Bool {
            (lastLeaving[table]?[keyID] ?? -1) > index
        }
        var problems: [Diagnostic] = []
        for (index, step) in steps.enumerated() {
            let changes: [DataChanges.RowChange]
            let verb: String
            switch step.operation {
            case .insert(let name, let rows):
                guard migrateOnly.contains(name.lowercasedName) else { continue }
                for row in rows {
                    problems.append(
                        Diagnostic(
                            file: step.migration.file, line: row.line, code: .configuration,
                            message:
                                "insert into \(name), a migrate_only table: the seed records this migration as applied without the row, so a fresh install would never have it; give \(name) a file: that holds the row instead of migrate_only",
                            table: name))
                }
                continue
            case .update(_, let rows): (changes, verb) = (rows, "update")
            case .delete(_, let rows): (changes, verb) = (rows, "delete")
            }
            // A Core Data entity without a key is found by Z_PK, a different object in every user's
            // store: `migrate` refuses such an update or delete, and so does the release (docs/core-data.md, "Keys and UUIDs").
            if let table = tables.named(step.operation.table), table.spec.key.isEmpty,
                CoreDataDialect.isStoreAssignedKey(table.keyColumns),
                let refusal = CoreDataDialect.keylessChangeRefusal(
                    entity: table.written.name, column: table.keyColumns[0])
            {
                for change in changes {
                    problems.append(
                        Diagnostic(
                            file: step.migration.file, line: change.line, code: .configuration, message: refusal,
                            table: table.written.name))
                }
                continue
            }
            // The rows of a migrate-only table are the users' own: no release holds them.
            if migrateOnly.contains(step.operation.table.lowercasedName) { continue }
            if verb == "delete", !everyKey { continue }  // the fixtures no longer hold a deleted row
            guard let table = tables.named(step.operation.table),
                !Migration.sqlMayWrite(migrations, table: table.written.name, storeTable: table.spec.name)
            else { continue }
            // Asked once per step, not per row.
            let tableName = table.written.name.lowercasedName
            let providedKeys = provided[tableName]
            let renamedParents = table.writtenKeyColumns.contains { column in
                table.written.refs[column].map { oldKeys[$0.table.lowercasedName] != nil } ?? false
            }
            for change in changes {
                guard let key = UpgradeChecker.keyValues(change.key, table) else { continue }
                let keyID = id(key)
                if providedKeys?.contains(keyID) == true { continue }
                if !everyKey
                    && (UpgradeChecker.renamedKey(change, table) != nil || leavesLater(index, tableName, keyID))
                {
                    continue
                }
                if try found(table, key.map(UpgradeChecker.sqlValue)) { continue }
                // The same key with each renamed parent under its old key, as the old seeds hold it.
                if renamedParents {
                    let before = zip(table.writtenKeyColumns, key).map { column, value in
                        table.written.refs[column].flatMap { oldKeys[$0.table.lowercasedName]?[id([value])] } ?? value
                    }
                    if id(before) != keyID, try found(table, before.map(UpgradeChecker.sqlValue)) { continue }
                }
                let name = table.written.name
                problems.append(
                    Diagnostic(
                        file: step.migration.file, line: change.line, code: .unresolvedReference,
                        message:
                            "\(verb) \(name) \(MigrationReferences.shownKey(change.key)): the key matches no row of \(name) in the fixtures\(everyKey ? ", the old seeds given" : "") or any migration's inserts or renames (a typo? migrate would report the row missing and record the migration as applied)",
                        table: name))
            }
        }
        return problems
    }
}

extension UpgradeChecker {
    /// The keys the migrations' updates and deletes name that match no row of the fresh build,
    /// of any of `oldSeeds`, or of any migration's inserts or renames (see ``MigrationKeys``).
    ///
    /// An old seed that cannot be read here is left to ``check(_:fresh:)``, which reports it.
    public func unmatchedKeys(_ oldSeeds: [String], fresh: URL) throws -> [Diagnostic] {
        let expected = try StoreAccess.openReadOnly(fresh.path)
        defer { try? expected.close() }
        let olds = oldSeeds.compactMap { try? StoreAccess.openReadOnly($0) }
        defer { for old in olds { try? old.close() } }
        // One read of each store for the whole check, not one per key (a release names 150k).
        return try Self.reading(olds[...], readers: []) { oldReaders in
            try expected.read { db in
                let tables = try SemanticRows.make(manifest, in: db).rows
                let fresh = KeyFinder(db)
                return try MigrationKeys.unmatched(
                    in: migrations, tables: tables, migrateOnly: manifest.migrateOnlyTables, everyKey: true
                ) { table, key in
                    if try fresh.contains(table, key: key) { return true }
                    for old in oldReaders {
                        // An old seed that cannot be read, or whose table differs too much to be asked, cannot tell: no error.
                        guard let old else { return true }
                        do {
                            if try old.contains(table, key: key) { return true }
                        } catch { return true }
                    }
                    return false
                }
            }
        }
    }

    /// Runs `body` inside a read of each of `stores`, with a ``KeyFinder`` on each (nil for a
    /// store whose read could not begin).
    private static func reading<T>(
        _ stores: ArraySlice<DatabaseQueue>, readers: [KeyFinder?], _ body: ([KeyFinder?]) throws -> T
    ) throws -> T {
        guard let store = stores.first else { return try body(readers) }
        var began = false
        do {
            return try store.read { db in
                began = true
                return try reading(stores.dropFirst(), readers: readers + [KeyFinder(db)], body)
            }
        } catch  where !began {
            return try reading(stores.dropFirst(), readers: readers + [nil], body)
        }
    }

    /// An old seed named on the command line that is not there (`check-upgrade`, `new-migration
    /// --from`): a seed a release shipped, kept in seeds/releases/; a pattern the shell left
    /// unexpanded means none has shipped yet.
    public static func requireOldSeed(_ path: String) throws(SeedError) {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        if path.contains(where: { "*?[".contains($0) }) {
            throw SeedError(
                .configuration, file: path,
                "no file matches: no seed has shipped yet (when you ship a release, copy build/seed.sqlite to seeds/releases/<version>.sqlite; until then there is no old seed to check)"
            )
        }
        throw SeedError(
            .configuration, file: path,
            "no old seed here: an old seed is one a release shipped, kept in seeds/releases/ (when you ship, copy build/seed.sqlite there, e.g. to seeds/releases/1.1.sqlite)"
        )
    }
}

extension Migration {
    /// Whether the migration's declarative changes find rows by key (an update, a delete): its
    /// grammar says so, each section of changes having a key (``MigrationGrammar/Items/changes(_:)``),
    /// so that a new operation is counted by what its section is, not by its name.
    var findsRowsByKey: Bool {
        guard case .changes(let changes) = body else { return false }
        return changes.operations.contains { operation in
            if case .changes = MigrationGrammar.section(operation.kind).items { return true }
            return false
        }
    }
}
