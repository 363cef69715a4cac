import Foundation
public import GRDB
import GRDBSQLite
public import SeedRuntime

/// Proves that existing users end up with what new users get (`seedkit check-upgrade`):
/// each old seed, migrated, must hold the same rows as a fresh build of the fixtures, and a
/// copy of it with simulated user edits must keep those edits.
public struct UpgradeChecker: Sendable {
    /// The project's manifest: keys, refs and rules, as `migrate` uses them.
    public var manifest: Manifest
    /// The release's migrations, applied to each old seed as `migrate` applies them.
    public var migrations: [Migration]
    /// Migrate as `migrate --without-history` does: a Core Data store that tracks persistent
    /// history gets no history entries, so what seedkit cannot record there is written all the same.
    public var allowsMissingHistory = false
    /// Lists every row the release touched that is as in a fresh build (``Outcome/okRows``), not
    /// only their counts: for `--verbose` and `--format json`.
    public var listsEveryRow = false
    /// Counts each statement run on the check's copies of the old seeds: its work, counted
    /// rather than clocked (a test doubles the rows and expects at most twice the count).
    package var statements: StatementCount?
    /// Called as the check goes: what it is doing, and how far it is (steps done of all steps).
    public var progress: (@Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void)?

    /// A checker of `migrations` against `manifest`'s fixtures, with the defaults `check-upgrade`
    /// has.
    public init(manifest: Manifest, migrations: [Migration]) {
        self.manifest = manifest
        self.migrations = migrations
    }

    /// A row where the upgraded old seed and the fresh build disagree.
    public struct Divergence: Sendable, Equatable {
        /// The table the row is in.
        public var table: String
        /// The row's key, as the report shows it (`'The first book'`).
        public var key: String
        /// nil when the whole row is missing or extra.
        public var column: String?
        /// What the upgraded old seed holds (`missing` for no row).
        public var got: String
        /// What the fresh build holds (`missing` for no row).
        public var expected: String
        /// What the migration run said of the row when it did not apply its change (the
        /// migration file and line, what happened, why); nil when it said nothing.
        public var cause: String? = nil
    }

    /// One table's rows the release touched that are as in a fresh build, by what the release
    /// did to them (`inserted`, `updated`, `renamed`, `deleted`), and those that diverge.
    public struct TableSummary: Sendable, Equatable {
        /// The table whose rows are counted.
        public var table: String
        /// How many rows are as in a fresh build, by what the release did to them, in the order it
        /// did.
        public var ok: [(kind: String, count: Int)]
        /// How many rows the release touched diverge.
        public var diverging: Int

        /// Summaries are equal when table, counts and kinds are (tuples are not Equatable).
        public static func == (a: Self, b: Self) -> Bool {
            a.table == b.table && a.diverging == b.diverging && a.ok.map(\.kind) == b.ok.map(\.kind)
                && a.ok.map(\.count) == b.ok.map(\.count)
        }
    }

    /// What happened to one old seed.
    public struct Outcome: Sendable {
        /// The old seed, as named on the command line.
        public var seed: String
        /// The migrations applied to it, by id.
        public var applied: [String]
        /// The rows where the upgraded seed and the fresh build disagree.
        public var divergences: [Divergence]
        /// User edits simulated and kept (e.g., "books 'The first book'.price kept 11").
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
        /// Per table, the rows the release touched, by verdict.
        public var tables: [TableSummary] = []
        /// Each row the release touched that is as in a fresh build (`books 'Dune' updated`);
        /// empty unless ``UpgradeChecker/listsEveryRow``.
        public var okRows: [String] = []

        /// Whether the upgraded seed holds what a fresh build holds (the user's rows apart).
        public var converges: Bool { divergences.isEmpty && schema.isEmpty && failure == nil }

        /// Whether the seed passed: it converges and the user kept every edit.
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
        for (index, seed) in oldSeeds.enumerated() {
            var done = index * 3
            func step(_ stage: String) {
                progress?("\(seed): \(stage)", done, oldSeeds.count * 3)
                done += 1
            }
            // An error while reading this seed (or its upgraded copy) names the seed; one of the fresh build names it.
            do {
                outcomes.append(
                    try check(
                        seed, migrator: migrator, options: options, expected: expected, expectedSchema: expectedSchema,
                        tables: tables, keys: keys, semantics: semantics, step: step))
            } catch let error as SeedError { throw error.about(store: seed) } catch let failure as StoreDiff.ReadFailure
                where failure.side == .b
            { throw SeedError(databaseError: failure, file: fresh.path) } catch {
                throw SeedError(databaseError: error, file: seed)
            }
        }
        return outcomes
    }

    /// Checks one old seed (see ``check(_:fresh:)``).
    ///
    /// A copy of it is migrated as `migrate` migrates a user's store and compared by content with
    /// the fresh build (``StoreDiff``, as `diff` compares): every difference diverges, every other
    /// row the release touched is ok. Another copy is first edited by the simulated user, in one
    /// pass over a few rows of each change, then migrated: the user's rows must be there after,
    /// once, as the user left them. Two runs, because an edit hides the release's change of the row
    /// it edits; the user's run goes on another thread while this one migrates and compares (each
    /// its own copy), and applies only the release's changes of the rows the user touched when the
    /// others cannot reach them (``userMigrations(_:tables:in:)``).
    private func check(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, expected: DatabaseQueue,
        expectedSchema: SchemaSnapshot,
        tables: [SemanticRows], keys: [String: [String]], semantics: StoreDiff.Semantics, step: (String) -> Void
    ) throws -> Outcome {
        let userRun = try Concurrent("check a simulated user's edits of \(seed)") { [self] in
            try userVerdicts(seed, migrator: migrator, options: options, tables: tables)
        }
        // Whatever this run decides, the user's run has ended (and freed its copy) when it returns.
        defer { _ = try? userRun.value() }
        let upgraded = try copy(seed)
        let report: MigrationReport
        let pending: [Migration]
        do {
            // A damaged seed is refused whether or not migrations are pending: its rows can't be compared.
            try upgraded.read { db in try SeedMigrator.refuseDamagedStore(db) }
            pending = try upgraded.read { db in try migrator.pending(db) }
            step("migrating")
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
        step("comparing with a fresh build")
        let schema = try upgraded.read { db in try SchemaSnapshot.read(db) }.differences(
            from: expectedSchema, this: "the upgraded seed", that: "a fresh build")
        let diff = try StoreDiff.compare(
            upgraded, expected, keys: keys, tables: tables.map(\.spec.name), semantics: semantics)
        try? upgraded.close()
        step("a simulated user's edits")
        var user = try userRun.value()
        var verdicts = Verdicts(tables: tables, report: report, migrations: pending, renames: user.renames)
        verdicts.listsEveryRow = listsEveryRow
        verdicts.classify(diff)
        verdicts.count()
        let (keptNulls, lostNulls) = try simulateNulls(
            seed, migrator: migrator, options: options, expectedSchema: expectedSchema)
        user.kept += keptNulls
        user.lost += lostNulls
        var outcome = Outcome(
            seed: seed, applied: report.migrations.map(\.id), divergences: verdicts.divergences,
            keptEdits: user.kept, lostEdits: user.lost, schema: schema)
        outcome.notChecked = user.notChecked
        outcome.tables = verdicts.summaries
        outcome.okRows = verdicts.okRows
        return outcome
    }

    /// What became of the simulated user's rows and edits (``simulateUser(_:migrator:options:tables:)``).
    struct UserVerdicts: Sendable {
        var kept: [String]
        var lost: [String]
        var notChecked: [String]
        var renames: [(table: SemanticRows, old: [InputValue], new: [InputValue])]
    }

    /// A copy of `seed` edited by the simulated user, migrated, and each edit's verdict.
    private func userVerdicts(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, tables: [SemanticRows]
    ) throws -> UserVerdicts {
        let user = try copy(seed)
        // A seed the migrations refuse or cannot migrate is reported by the seed's own run, which
        // checks the same pages for damage (and the migration run checks this copy again).
        let pass = try simulateUser(user, migrator: migrator, options: options, tables: tables)
        var verdicts = UserVerdicts(kept: [], lost: [], notChecked: pass.notChecked, renames: pass.renames)
        do {
            // Only the release's changes of the rows the user touched, when that cannot change a verdict.
            let cut = try user.read { db in try userMigrations(pass, tables: tables, in: db) }
            _ = try (cut.map(SeedMigrator.init(migrations:)) ?? migrator).migrate(user, options: options)
            (verdicts.kept, verdicts.lost) = try verifyUser(pass, in: user)
        } catch {
            let reason = (error as? SeedError)?.diagnostics.map(\.description).joined(separator: "; ") ?? "\(error)"
            verdicts.lost.append(
                "the migrations do not apply to the seed with the simulated user's edits (they apply to the seed alone): \(reason.escapingControls())"
            )
        }
        return verdicts
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
    /// would be after upgrading.
    ///
    /// `new-migration --from` starts from it.
    public func migratedCopy(of seed: String) throws -> DatabaseQueue {
        let store = try copy(seed)
        var options = SeedMigrator.Options(tables: manifest.specs, validator: ManifestValidator(manifest: manifest))
        options.allowsMissingHistory = allowsMissingHistory
        options.coreDataFacts = manifest.model?.facts
        options.now = Date(timeIntervalSince1970: 0)
        _ = try SeedMigrator(migrations: migrations).migrate(store, options: options)
        return store
    }

    /// The store `new-migration --from` compares: `seed` itself, opened read-only, when no
    /// migration is pending in it (nothing to apply, so no copy of its pages: a 500k-row seed's
    /// copy was a tenth of the run and its size in memory), else ``migratedCopy(of:)``.
    public func migratedStore(of seed: String) throws -> (store: DatabaseQueue, isCopy: Bool) {
        let source = try StoreAccess.openReadOnly(seed)
        let pending: [Migration]
        do { pending = try source.read { db in try SeedMigrator(migrations: migrations).pending(db) } } catch {
            try? source.close()
            throw error
        }
        guard !pending.isEmpty else { return (source, false) }
        try? source.close()
        return (try migratedCopy(of: seed), true)
    }

    /// An in-memory copy of a store (SQLite's backup API: consistent, WAL included).
    private func copy(_ path: String) throws -> DatabaseQueue {
        let source = try StoreAccess.openReadOnly(path)
        defer { try? source.close() }
        var configuration = Configuration()
        if let statements {
            configuration.prepareDatabase { db in statements.count(db) }
        }
        let copy = try DatabaseQueue(configuration: configuration)
        try source.backup(to: copy)
        return copy
    }

    /// A user who left a value empty: for each column this seed allows NULL in and the release
    /// makes NOT NULL, a copy of the seed whose first row holds NULL there is migrated.
    ///
    /// The release must take it (a table rebuild fills the NULL from the column's DEFAULT); a
    /// release that cannot (NOT NULL without a DEFAULT) fails for every such user, and is reported
    /// here, at release time, instead of on their devices.
    private func simulateNulls(
        _ seed: String, migrator: SeedMigrator, options: SeedMigrator.Options, expectedSchema: SchemaSnapshot
    ) throws -> (kept: [String], lost: [String]) {
        // The schema is read from the seed itself: a copy of its pages would only be thrown away.
        let source = try StoreAccess.openReadOnly(seed)
        defer { try? source.close() }
        let oldSchema = try source.read { db in try SchemaSnapshot.read(db) }
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

/// Work run on a thread of its own (``DetachedThread``) while the caller goes on; ``value()``
/// waits for it and returns what it returned, or throws what it threw.
final class Concurrent<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<Value, any Error>?

    init(_ purpose: String, _ work: @escaping @Sendable () throws -> Value) throws {
        try DetachedThread.start(purpose, stackSize: 8 << 20) { [self] in
            let outcome = Result { try work() }
            lock.withLock { result = outcome }
            done.signal()
        }
    }

    /// What the work returned; the first call waits for it to end.
    func value() throws -> Value {
        let ended = lock.withLock { result }
        if let ended { return try ended.get() }
        done.wait()
        guard let outcome = lock.withLock({ result }) else {
            throw SeedError(.io, "a thread of check-upgrade ended without a result")
        }
        return try outcome.get()
    }
}

/// A count shared by the threads SQLite's trace runs on (``UpgradeChecker/statements``).
package final class StatementCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var vmSteps = 0

    package init() {}

    func add() {
        lock.lock()
        defer { lock.unlock() }
        count += 1
    }

    /// The statements counted so far.
    package var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// The steps of SQLite's virtual machine the counted statements took (SQLITE_STMTSTATUS_VM_STEP):
    /// the rows they read and wrote, counted by SQLite.
    package var steps: Int {
        lock.lock()
        defer { lock.unlock() }
        return vmSteps
    }

    /// Counts each statement `db` runs (not a trigger's) and its VM steps, through SQLite's trace
    /// (which replaces any other trace of the connection).
    ///
    /// The connection keeps this count alive.
    func count(_ db: Database) {
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_trace_v2(
            db.sqliteConnection, UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE),
            { event, context, statement, text in
                guard let context else { return 0 }
                let counted = Unmanaged<StatementCount>.fromOpaque(context).takeUnretainedValue()
                if event == UInt32(SQLITE_TRACE_STMT) {
                    // A trigger's program starting is traced as `-- TRIGGER name`: part of its statement.
                    let sql = text?.assumingMemoryBound(to: CChar.self)
                    if sql.map({ $0[0] == 45 && $0[1] == 45 }) != true { counted.add() }
                } else if let statement {
                    let steps = sqlite3_stmt_status(OpaquePointer(statement), SQLITE_STMTSTATUS_VM_STEP, 1)
                    counted.lock.withLock { counted.vmSteps += Int(steps) }
                }
                return 0
            }, context)
    }
}
