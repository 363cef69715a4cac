import Foundation
public import GRDB
public import SeedRuntime

/// Proves that existing users end up with what new users get (`seedkit check-upgrade`):
/// each old seed, migrated, must hold the same rows as a fresh build of the fixtures, and a
/// copy of it with simulated user edits must keep those edits.
public struct UpgradeChecker: Sendable {
    public var manifest: Manifest
    public var migrations: [Migration]
    /// Migrate as `migrate --without-history` does: a Core Data store that tracks persistent
    /// history gets no history entries, so what seedkit cannot record there is written all the same.
    public var allowsMissingHistory = false

    public init(manifest: Manifest, migrations: [Migration]) {
        self.manifest = manifest
        self.migrations = migrations
    }

    /// A row where the upgraded old seed and the fresh build disagree.
    public struct Divergence: Sendable, Equatable {
        public var table: String
        public var key: String
        /// nil when the whole row is missing or extra.
        public var column: String?
        public var got: String
        public var expected: String
    }

    /// What happened to one old seed.
    public struct Outcome: Sendable {
        public var seed: String
        public var applied: [String]
        public var divergences: [Divergence]
        /// User edits simulated and kept (e.g. "books 'The first book'.price kept 11").
        public var keptEdits: [String]
        /// User edits the migrations overwrote or duplicated.
        public var lostEdits: [String]
        /// Simulated-user checks that could not run, each with its table and why (`books: no user
        /// row added: …`): what the proof does not cover.
        public var notChecked: [String] = []
        /// How the upgraded seed's schema differs from a fresh build's (normalized; see ``SchemaSnapshot``).
        public var schema: [String] = []
        /// Why the migrations did not apply to this seed: the migration, the statement, SQLite's message.
        public var failure: String?
        /// The old seed itself was refused (damaged, newer than these migrations, a recorded
        /// migration changed or missing): `failure` says why, on the seed (`SEED: error: … [2200]`).
        public var refused = false

        public var passed: Bool { divergences.isEmpty && lostEdits.isEmpty && schema.isEmpty && failure == nil }
    }

    /// Checks each old seed against `fresh`, a seed built from the current fixtures.
    public func check(_ oldSeeds: [String], fresh: URL) throws -> [Outcome] {
        let migrator = try SeedMigrator(migrations: migrations)
        var options = SeedMigrator.Options(tables: manifest.specs, validator: ManifestValidator(manifest: manifest))
        options.allowsMissingHistory = allowsMissingHistory
        options.coreDataFacts = manifest.model?.facts
        options.now = Date(timeIntervalSince1970: 0)
        let expected = try StoreAccess.openReadOnly(fresh.path)
        defer { try? expected.close() }
        let (tables, semantics) = try expected.read { db in try SemanticRows.make(manifest, in: db) }
        var keys: [String: [String]] = [:]
        for table in tables { keys[table.spec.name] = table.keyColumns }
        let expectedSchema = try expected.read { db in try SchemaSnapshot.read(db) }
        var outcomes: [Outcome] = []
        for seed in oldSeeds {
            // An error while reading this seed (or its upgraded copy) names the seed; one of the fresh build names it.
            do {
                outcomes.append(
                    try check(
                        seed, migrator: migrator, options: options, expected: expected, expectedSchema: expectedSchema,
                        tables: tables, keys: keys, semantics: semantics))
            } catch let error as SeedError { throw error.about(store: seed) } catch let failure as StoreDiff.ReadFailure
                where failure.side == .b
            { throw SeedError(databaseError: failure, file: fresh.path) } catch {
                throw SeedError(databaseError: error, file: seed)
            }
        }
        return outcomes
    }

    /// Checks one old seed (see ``check(_:fresh:)``).
    private func check(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, expected: DatabaseQueue,
        expectedSchema: SchemaSnapshot,
        tables: [SemanticRows], keys: [String: [String]], semantics: StoreDiff.Semantics
    ) throws -> Outcome {
        let upgraded = try copy(seed)
        let report: MigrationReport
        do {
            // A damaged seed is refused whether or not migrations are pending: its rows can't be compared.
            try upgraded.read { db in try SeedMigrator.refuseDamagedStore(db) }
            report = try migrator.migrate(upgraded, options: options)
        } catch {
            var outcome = Outcome(seed: seed, applied: [], divergences: [], keptEdits: [], lostEdits: [])
            if let refusal = error as? SeedError, refusal.kind == .refused {
                outcome.refused = true
                outcome.failure = refusal.about(store: seed).description
            } else if let refusal = error as? DatabaseError,
                case let mapped = SeedError(databaseError: refusal, file: seed), mapped.kind == .refused
            {
                outcome.refused = true
                outcome.failure = mapped.description
            } else {
                outcome.failure = try describeFailure(error, seed: seed, options: options)
            }
            return outcome
        }
        let schema = try upgraded.read { db in try SchemaSnapshot.read(db) }.differences(
            from: expectedSchema, this: "the upgraded seed", that: "a fresh build")
        let diff = try StoreDiff.compare(
            upgraded, expected, keys: keys, tables: tables.map(\.spec.name), semantics: semantics)
        var divergences: [Divergence] = []
        for table in diff.tables {
            let rows = tables.first { $0.spec.name == table.table }
            let name = rows?.written.name ?? table.table
            // A key missing and one extra that print alike (NFC and NFD) show their scalars.
            let alike = Set(table.added.map { Self.show($0) }).intersection(table.removed.map { Self.show($0) })
            func shownKey(_ key: [SQLValue]) -> String {
                guard alike.contains(Self.show(key)) else { return Self.show(key) }
                return key.map {
                    if case .text(let text) = $0 { "'\(text.escapingNonASCII)'" } else { Self.show([$0]) }
                }.joined(separator: ", ")
            }
            for key in table.added {
                divergences.append(
                    Divergence(table: name, key: shownKey(key), column: nil, got: "no row", expected: "a row"))
            }
            for key in table.removed {
                divergences.append(
                    Divergence(table: name, key: shownKey(key), column: nil, got: "a row", expected: "no row"))
            }
            for change in table.changed {
                for column in change.columns {
                    divergences.append(
                        Divergence(
                            table: name, key: Self.show(change.key),
                            column: rows?.writtenName(column.column) ?? column.column,
                            got: Self.show([column.old], against: column.new),
                            expected: Self.show([column.new], against: column.old)))
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
        var (kept, lost, notChecked) = try simulateUserEdits(seed, migrator: migrator, options: options, tables: tables)
        let (keptNulls, lostNulls) = try simulateNulls(
            seed, migrator: migrator, options: options, expectedSchema: expectedSchema)
        kept += keptNulls
        lost += lostNulls
        var outcome = Outcome(
            seed: seed, applied: report.migrations.map(\.id), divergences: divergences, keptEdits: kept,
            lostEdits: lost, schema: schema)
        outcome.notChecked = notChecked
        return outcome
    }

    /// Which migration failed on `seed`, at which statement, and why, in one line per problem.
    private func describeFailure(_ error: any Error, seed: String, options: SeedMigrator.Options) throws -> String {
        if let error = error as? SeedError, error.diagnostics.contains(where: { $0.file != nil }) {
            return error.diagnostics.map { diagnostic in
                var text = diagnostic.description
                if let migration = migrations.first(where: { $0.file == diagnostic.file }),
                    case .sql(let sql) = migration.body, diagnostic.line > 0
                {
                    text += "; statement: " + Self.statement(in: sql, at: diagnostic.line)
                }
                return text
            }.joined(separator: "\n")
        }
        // Find the migration: apply them one at a time to another copy.
        let message = (error as? SeedError).map { $0.diagnostics.map(\.message).joined(separator: "; ") } ?? "\(error)"
        let store = try copy(seed)
        for count in 1...max(1, migrations.count) where count <= migrations.count {
            do {
                _ = try SeedMigrator(migrations: Array(migrations.prefix(count))).migrate(store, options: options)
            } catch {
                let migration = migrations[count - 1]
                return "\(migration.file): error: migration \(migration.id) does not apply to this seed: \(message)"
            }
        }
        return "error: the migrations do not apply to this seed: \(message)"
    }

    /// The SQL statement that starts at `line` of a migration's text (up to its semicolon).
    static func statement(in sql: String, at line: Int) -> String {
        // "\r\n" is one Character, not "\n": a migration saved with CRLF line ends is still lines.
        let lines = sql.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.dropFirst(
            max(0, line - 1))
        var statement: [Substring] = []
        for text in lines {
            statement.append(text)
            if text.contains(";") { break }
        }
        return statement.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// An in-memory copy of `seed` with every migration applied, as an existing user's store
    /// would be after upgrading. `new-migration --from` starts from it.
    public func migratedCopy(of seed: String) throws -> DatabaseQueue {
        let store = try copy(seed)
        var options = SeedMigrator.Options(tables: manifest.specs, validator: ManifestValidator(manifest: manifest))
        options.allowsMissingHistory = allowsMissingHistory
        options.coreDataFacts = manifest.model?.facts
        options.now = Date(timeIntervalSince1970: 0)
        _ = try SeedMigrator(migrations: migrations).migrate(store, options: options)
        return store
    }

    /// An in-memory copy of a store (SQLite's backup API: consistent, WAL included).
    private func copy(_ path: String) throws -> DatabaseQueue {
        let source = try StoreAccess.openReadOnly(path)
        defer { try? source.close() }
        let copy = try DatabaseQueue()
        try source.backup(to: copy)
        return copy
    }

    /// Before migrating a copy of `seed`, does what a user might: changes a value that a
    /// migration updates, and adds a row with a key that a migration inserts. Then checks that
    /// after the migrations the user's values are still there, once.
    private func simulateUserEdits(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, tables: [SemanticRows]
    ) throws -> (kept: [String], lost: [String], notChecked: [String]) {
        let store = try copy(seed)
        var notChecked: [String] = []
        let pending = try store.read { db in try migrator.pending(db) }
        var edits: [(table: SemanticRows, key: [InputValue], column: String, value: InputValue, insert: Bool)] = []
        var referenced: [(table: SemanticRows, key: [InputValue])] = []
        var following: [Following] = []
        // Every rename of the pending migrations, in order: edits are made on the old seed, under its keys.
        var renames: [(table: SemanticRows, old: [InputValue], new: [InputValue])] = []
        try store.writeWithoutTransaction { db in
            for migration in pending {
                guard case .changes(let changes) = migration.body else { continue }
                for written in changes.operations {
                    guard let table = tables.first(where: { $0.written.name.isSameName(as: written.table) }) else {
                        continue
                    }
                    // Composites given in the Swift type's shape, as the stored elements the run writes (SwiftShape.swift).
                    let shape = options.coreDataFacts.flatMap { SwiftShape(entity: written.table, facts: $0) }
                    let operation = shape.map(written.inStoredForm) ?? written
                    // An enum case's column holds only its case's name: no user edits it.
                    let caseColumns = Set((options.coreDataFacts?.enumCases[written.table] ?? [:]).keys)
                    switch operation {
                    case .update(let name, let rows):
                        for change in rows {
                            if let newKey = Self.renamedKey(change, table) {
                                if let oldKey = Self.keyValues(change.key, table) {
                                    renames.append((table, oldKey, newKey))
                                }
                                try simulateRename(
                                    change, of: table, named: name, newKey: newKey, tables: tables, options: options,
                                    db: db, edits: &edits, following: &following)
                                continue
                            }
                            // A value the release changes; for a NULL → value update, the user filled it in first.
                            let place =
                                "\(table.written.name) \(Self.show(Self.keyValues(change.key, table).map { $0.map(Self.sqlValue) } ?? []))"
                            guard
                                let (column, from, to) = change.to.values.compactMap({ to in
                                    caseColumns.contains(to.column)
                                        ? nil : change.from[to.column].map { (to.column, $0, to.value) }
                                }).first
                            else {
                                notChecked.append(
                                    "\(place): the update was not edited by a user first: it changes no column with a 'from'"
                                )
                                continue
                            }
                            guard
                                let userValue = from == .null
                                    ? Self.userValue(to, avoiding: to) : Self.userValue(from, avoiding: to)
                            else {
                                notChecked.append(
                                    "\(place): the update was not edited by a user first: no value a user would type replaces \(column)'s \(Self.kind(from == .null ? to : from))"
                                )
                                continue
                            }
                            let edit = DataChanges(operations: [
                                .update(
                                    table: name,
                                    changes: [
                                        DataChanges.RowChange(
                                            key: change.key, from: .init(values: [(column, from)]),
                                            to: .init(values: [(column, userValue)]))
                                    ])
                            ])
                            if try Self.attempt(db, edit, options), let key = Self.keyValues(change.key, table) {
                                edits.append((table, key, column, userValue, false))
                            } else {
                                notChecked.append(
                                    "\(place): the update was not edited by a user first: the old seed refused the edit of \(column)"
                                )
                            }
                        }
                    case .insert(let name, let rows):
                        for row in rows {
                            let keyColumns = Set(table.writtenKeyColumns.map { $0.lowercasedName })
                            let key = table.writtenKeyColumns.compactMap { column in row[column] }
                            let place = "\(table.written.name) \(Self.show(key.map(Self.sqlValue)))"
                            guard
                                let index = row.values.firstIndex(where: {
                                    !keyColumns.contains($0.column.lowercasedName)
                                        && table.written.refs[$0.column] == nil && Self.userValue($0.value) != nil
                                }),
                                let userValue = Self.userValue(row.values[index].value)
                            else {
                                notChecked.append(
                                    "\(place): no user row was added under the key the release inserts: the row has no column but its key and refs a user would type"
                                )
                                continue
                            }
                            var userRow = row
                            userRow.values[index].value = userValue
                            if key.count == table.keyColumns.count,
                                try Self.attempt(
                                    db, DataChanges(operations: [.insert(table: name, rows: [userRow])]), options)
                            {
                                edits.append((table, key, row.values[index].column, userValue, true))
                            } else {
                                notChecked.append(
                                    "\(place): no user row was added under the key the release inserts: the old seed refused it"
                                )
                            }
                        }
                    case .delete(let name, let rows):
                        for (position, change) in rows.enumerated() {
                            guard let key = Self.keyValues(change.key, table) else { continue }
                            // Every other deleted row: the user added a row referring to it: both must stay (the delete is denied).
                            if position % 2 == 1,
                                let (child, row, childKey, column, value, _) = try userChild(
                                    of: table, key: key, tables: tables, db: db),
                                try Self.attempt(
                                    db, DataChanges(operations: [.insert(table: child.written.name, rows: [row])]),
                                    options)
                            {
                                edits.append((child, childKey, column, value, true))
                                referenced.append((table, key))
                                continue
                            }
                            // The user edited a row the release deletes: it must stay (a conflict).
                            if let (column, from) = change.from.values.first(where: {
                                !caseColumns.contains($0.column) && Self.userValue($0.value) != nil
                            })
                            .map({ ($0.column, $0.value) }),
                                let userValue = Self.userValue(from)
                            {
                                let edit = DataChanges(operations: [
                                    .update(
                                        table: name,
                                        changes: [
                                            DataChanges.RowChange(
                                                key: change.key, from: .init(values: [(column, from)]),
                                                to: .init(values: [(column, userValue)]))
                                        ])
                                ])
                                if try Self.attempt(db, edit, options) {
                                    edits.append((table, key, column, userValue, false))
                                }
                                continue
                            }
                            // Otherwise the user added a row referring to it: both must stay (the delete is denied).
                            if let (child, row, childKey, column, value, _) = try userChild(
                                of: table, key: key, tables: tables, db: db),
                                try Self.attempt(
                                    db, DataChanges(operations: [.insert(table: child.written.name, rows: [row])]),
                                    options)
                            {
                                edits.append((child, childKey, column, value, true))
                                referenced.append((table, key))
                            } else {
                                notChecked.append(
                                    "\(table.written.name) \(Self.show(key.map(Self.sqlValue))): the delete was not tried against a user's edit or a user's row referring to it: its 'from' lists no value a user would type, and no table of the manifest refers to it with a row a user could add"
                                )
                            }
                        }
                    }
                }
            }
            // Rows of the user's own in every table (SQL migrations included): they must come through untouched.
            for table in tables {
                guard let (row, key, column, value) = try userRow(in: table, db: db) else {
                    notChecked.append(
                        "\(table.written.name): no user row was added: \(try whyNoUserRow(in: table, db: db))")
                    continue
                }
                // The same row added before (a user row referring to a row the release deletes) covers it.
                if edits.contains(where: {
                    $0.insert && $0.table.written.name == table.written.name
                        && sameBytes(
                            $0.key.map { Self.show([Self.sqlValue($0)]) }, key.map { Self.show([Self.sqlValue($0)]) })
                }) {
                    continue
                }
                if let refused = try Self.refusal(
                    db, DataChanges(operations: [.insert(table: table.written.name, rows: [row])]), options)
                {
                    notChecked.append(
                        "\(table.written.name): no user row of its own was added: \(refused.escapingControls())")
                } else {
                    edits.append((table, key, column, value, true))
                }
            }
        }
        // The app's own tables (not in the manifest) that refer to the seed's: no user row of theirs is simulated.
        try store.read { db in
            let manifestTables = Set(tables.map { $0.spec.name.lowercasedName })
            for name in try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\' ORDER BY name"
            )
            where !manifestTables.contains(name.lowercasedName) {
                let parents = Set(
                    try String.fetchAll(db, sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [name])
                )
                .filter { manifestTables.contains($0.lowercasedName) }.sorted()
                guard !parents.isEmpty else { continue }
                notChecked.append(
                    "\(name.escapingControls()) (the app's own table) refers to \(parents.joined(separator: ", ")): no user row of it was simulated; check-upgrade simulates rows of the manifest's tables only"
                )
            }
        }
        _ = try migrator.migrate(store, options: options)
        var kept: [String] = []
        var lost: [String] = []
        try store.read { db in
            // The row each edit changed, under the key the migrations' renames gave it.
            let keys = edits.map { edit in
                renames.reduce(edit.key.map(Self.sqlValue)) { current, rename in
                    guard rename.table.written.name == edit.table.written.name, rename.old.count == current.count,
                        zip(rename.old, current).allSatisfy({ Self.sqlValue($0).isSame(as: $1) })
                    else { return current }
                    return rename.new.map(Self.sqlValue)
                }
            }
            // Two simulated edits of one value (an update's, then a later rename's): the last one is the user's.
            let values = edits.indices.map {
                "\(edits[$0].table.written.name)|\(Self.show(keys[$0]))|\(edits[$0].column.lowercasedName)"
            }
            let last = Dictionary(zip(values, edits.indices), uniquingKeysWith: { _, later in later })
            for (index, edit) in edits.enumerated() where last[values[index]] == index {
                let key = keys[index]
                let described = "\(edit.table.written.name) \(Self.show(key)).\(edit.column) = \(edit.value)"
                let count = try edit.table.count(db, key: key)
                let row = try edit.table.row(db, key: key)
                let column = edit.table.storeName(edit.column)
                let stored = row?.first { $0.column.isSameName(as: column) }?.value ?? .null
                let wanted = edit.table.readBack(edit.value, column: column)
                if count == 1 && stored.isSame(as: wanted) {
                    kept.append((edit.insert ? "user row " : "user edit ") + described + " kept")
                } else {
                    lost.append(
                        (edit.insert ? "user row " : "user edit ") + described
                            + (count == 1 ? " overwritten with \(stored)" : " now has \(count) rows"))
                }
            }
            for follower in following {
                let child = "\(follower.child.written.name) \(Self.show(follower.childKey.map(Self.sqlValue)))"
                let parent = "\(follower.parent.written.name) \(Self.show(follower.parentKey.map(Self.sqlValue)))"
                let column = follower.child.storeName(follower.column)
                let stored = try follower.child.row(db, key: follower.childKey.map(Self.sqlValue))?.first {
                    $0.column.isSameName(as: column)
                }?.value
                if let stored, stored.isSame(as: Self.sqlValue(follower.expected)) {
                    kept.append("user row \(child) still refers to the renamed \(parent)")
                } else {
                    lost.append(
                        "user row \(child) refers to \(stored.map { Self.show([$0]) } ?? "nothing (the row is gone)"), not to the renamed \(parent)"
                    )
                }
            }
            for (table, key) in referenced {
                let described = "\(table.written.name) \(Self.show(key.map(Self.sqlValue)))"
                if try table.count(db, key: key.map(Self.sqlValue)) == 1 {
                    kept.append("seed row \(described), which a user row refers to, kept (its delete denied)")
                } else {
                    lost.append("seed row \(described), which a user row refers to, deleted")
                }
            }
        }
        return (kept, lost, notChecked)
    }

    /// A user who left a value empty: for each column this seed allows NULL in and the release
    /// makes NOT NULL, a copy of the seed whose first row holds NULL there is migrated. The
    /// release must take it (a table rebuild fills the NULL from the column's DEFAULT); a release
    /// that cannot (NOT NULL without a DEFAULT) fails for every such user, and is reported here,
    /// at release time, instead of on their devices.
    private func simulateNulls(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, expectedSchema: SchemaSnapshot
    ) throws -> (kept: [String], lost: [String]) {
        let oldSchema = try copy(seed).read { db in try SchemaSnapshot.read(db) }
        var kept: [String] = []
        var lost: [String] = []
        for table in oldSchema.tables {
            guard let wanted = expectedSchema.table(table.name) else { continue }
            for column in table.columns where !column.notNull && !column.generated {
                guard let released = wanted.column(column.name), released.notNull, !released.generated else { continue }
                let store = try copy(seed)
                let place = "\(table.name).\(column.name)"
                let described = "a user's NULL in \(place) (nullable in this seed, NOT NULL in the release)"
                // The row: its primary key when it has one (a rebuild keeps it), else its rowid.
                let located: (key: [String], values: [SQLValue])? = try store.writeWithoutTransaction { db in
                    guard let info = try TableInfo.read(db, table: table.name) else { return nil }
                    let key = info.primaryKey.isEmpty ? ["rowid"] : info.primaryKey
                    let selected = key.map { $0 == "rowid" ? "rowid" : quoteIdentifier($0) }.joined(separator: ", ")
                    let order = info.withoutRowID ? selected : "rowid"
                    guard
                        let values = try db.sqlRow(
                            "SELECT \(selected) FROM \(quoteIdentifier(table.name)) ORDER BY \(order) LIMIT 1")
                    else { return nil }
                    let predicate = key.map { "\($0 == "rowid" ? "rowid" : quoteIdentifier($0)) IS ?" }.joined(
                        separator: " AND ")
                    // A CHECK or a trigger may refuse the NULL: then no user has one.
                    do {
                        try db.execute(
                            "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column.name)) = NULL WHERE \(predicate)",
                            binding: values)
                    } catch {
                        return nil
                    }
                    return db.changesCount == 1 ? (key, values) : nil
                }
                guard let located else { continue }
                do {
                    _ = try migrator.migrate(store, options: options)
                } catch {
                    // migrate throws SeedError only (untyped, as SeedRuntime's public API is).
                    let reason =
                        (error as? SeedError)?.diagnostics.map(\.description).joined(separator: "; ") ?? "\(error)"
                    lost.append(
                        "\(described): the migrations do not apply to that store: \(reason); give \(place) a DEFAULT (new-migration --from then fills NULLs from it) or fill the NULLs in a .sql step before the column becomes NOT NULL"
                    )
                    continue
                }
                // A rowid is not kept by a rebuild of a table without a primary key: then only the upgrade is known.
                let value: SQLValue? =
                    located.key == ["rowid"]
                    ? nil
                    : try store.read { db in
                        let predicate = located.key.map { "\(quoteIdentifier($0)) IS ?" }.joined(separator: " AND ")
                        return try db.sqlRow(
                            "SELECT \(quoteIdentifier(column.name)) FROM \(quoteIdentifier(table.name)) WHERE \(predicate)",
                            binding: located.values)?.first
                    }
                kept.append("\(described) upgrades" + (value.map { " to \(Self.show([$0]))" } ?? ""))
            }
        }
        return (kept, lost)
    }
}
