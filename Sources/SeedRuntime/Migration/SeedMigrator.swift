import Foundation
public import GRDB

/// Checks rows that migrations are about to write against rules the runtime does not
/// know (the manifest's).
///
/// The tooling supplies one; an app usually does not.
package protocol RowValidator: Sendable {
    /// Problems with a row about to be inserted, or with the new values of an update.
    func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic]
    /// A validator for many rows of `table` with these columns, in this order (a big migration's
    /// rows), asked once: it finds what ``validate(table:values:file:line:)`` finds for each such
    /// row, without working out again which rules apply where. By default the validator itself.
    func forRows(table: String, columns: [String]) -> any RowValidator
}

extension RowValidator {
    package func forRows(table: String, columns: [String]) -> any RowValidator { self }
}

/// What to do when the user changed a row a migration wants to change.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Keep the user's value and report the conflict.
    case keep
    /// Treat conflicts and denied deletes as errors: nothing is written.
    case fail
}

/// Applies numbered data migrations to a store, once each, all in one transaction.
///
/// ```swift
/// let migrator = try SeedMigrator(migrations: MigrationDirectory.load(migrationsURL))
/// let report = try migrator.migrate(DatabaseQueue(path: storePath))
/// ```
///
/// Ask without writing with ``states(_:)``, ``pending(_:)`` and ``dryRun(_:options:)``;
/// write with ``migrate(_:options:)``.
public struct SeedMigrator: Sendable {
    /// The migrations, in number order.
    public let migrations: [Migration]

    /// How much of a store a run checks for damaged pages before it commits.
    ///
    /// A store under 16 MB is always checked whole (`PRAGMA quick_check`: a few milliseconds).
    /// Above that, by default, the check follows the run's work, so that a small update to a big
    /// store costs what its rows cost: the header's page count and freelist must fit the file,
    /// and every page the run reads or writes is checked by SQLite as it loads it, with
    /// `PRAGMA cell_size_check` on; a damaged page on the run's path fails it with nothing
    /// written (refused, exit 3). A damaged page the run never reads (another table, or a part
    /// of a table its lookups and writes do not pass through) is not looked at, and is not
    /// spread by the run either: `seedkit verify`, `inspect --check` and ``whole`` find it.
    /// Foreign keys in proportion too, whatever the store's size: only when SQLite counts one the
    /// run left unresolved (a row of the user's whose parent was gone before the run is not looked
    /// at); with ``whole``, every row of every table that has one (`PRAGMA foreign_key_check`).
    public enum StoreCheck: Sendable {
        /// The whole file under 16 MB; above, the header and every page the run touches.
        case inProportion
        /// `PRAGMA quick_check` of every page, whatever the store's size (overlapped with the run on a large store).
        case whole
    }

    /// Options of a run.
    public struct Options: Sendable {
        /// What a conflict does: keep the user's value (the default), or fail the run.
        public var onConflict: ConflictPolicy
        /// Keys and refs by table; when nil, the store's `_seedkit_tables` are used.
        public var tables: [TableSpec]?
        /// Extra checks of rows about to be written (the tooling's manifest rules).
        package var validator: (any RowValidator)?
        /// How rows are written; when nil, ``CoreDataDialect`` for a Core Data store, else plain SQLite.
        package var dialect: (any StoreDialect)?
        /// The time recorded for applied migrations.
        public var now: Date
        /// What the Core Data model says (renamed entities, deletion rules, one-to-one pairs,
        /// defaults, UUID attributes), on top of what the seed recorded; nil: the seed's alone.
        package var coreDataFacts: CoreDataModelFacts?
        /// Write into a Core Data store that tracks persistent history without history entries.
        ///
        /// By default such a store gets them, as Core Data writes them (one transaction by the
        /// author `seedkit` per run), or the run is refused where they cannot be vouched for
        /// (`docs/swiftdata.md`); without them the app's history consumers never see the rows.
        public var allowsMissingHistory = false
        /// Write history into a store mirrored to CloudKit (`ANSCK…` tables).
        ///
        /// Refused by default: every device that migrates its store would export the same rows,
        /// which would duplicate.
        public var allowsCloudKit = false
        /// The keys the release provides (its fixtures and migrations).
        ///
        /// With it, a ref to a key the store lacks and the release does not provide is an error
        /// (the author's typo); without it, as in an app, every missing parent is a conflict (the
        /// user deleted it).
        package var releaseKeys: (any ReleaseKeys)?
        /// At most this many events of each kind the update applied (inserted, updated, deleted,
        /// up to date) are listed per migration in the report (the first settled); the rest are
        /// only counted (``MigrationOutcome/unlisted``), so a 100,000-row data update does not hold
        /// 100,000 events.
        ///
        /// Every row it did not apply (already present, missing, a conflict, a denied delete) is
        /// listed with its key and why, and so is SQL. Nil (the default): every event.
        public var eventsPerKind: Int?
        /// Asked before each migration and before committing; when it says true the run stops
        /// and is rolled back (``SeedError`` of kind `.io`).
        ///
        /// The CLI sets it on SIGINT/SIGTERM.
        package var shouldStop: (@Sendable () -> Bool)?
        /// Inserts rows with SQLite's C API alone, not through GRDB's statement execution: faster
        /// for a big migration, but GRDB's transaction observers (an app's ValueObservation) do not
        /// see those rows.
        ///
        /// Only for a connection nobody observes: the CLI's, or one an installer opened itself. Off
        /// by default.
        package var writesDirectly = false
        /// With ``writesDirectly``, inserts rows by multi-row INSERTs where that gives what one
        /// by one would (see MigrationRun+Bulk.swift).
        ///
        /// On by default; tests turn it off to compare the two.
        package var multiRowInserts = true
        /// With ``writesDirectly``, finds, checks and deletes a big delete's rows a batch at a
        /// time where that gives what one by one would (see MigrationRun+BatchDelete.swift).
        ///
        /// On by default; tests turn it off to compare the two.
        package var batchedChanges = true
        /// How much of the store is checked for damage before a run commits (see ``StoreCheck``).
        public var storeCheck: StoreCheck = .inProportion
        /// Seconds each statement of a `.sql` migration may run before SQLite stops it and the run
        /// is rolled back (``SeedError/Kind/timeLimit``): `SEEDKIT_SQL_TIMEOUT` when set, else 60.
        public var sqlTimeLimit: Double = SQLStepBound.defaultSeconds
        /// Whether the run reconciles its report with SQLite's own account of the rows it changed
        /// (ChangeAccounting.swift).
        ///
        /// On; off only to measure what it costs (`make bench`).
        package var accountsChanges = true

        /// Options: conflict policy, table keys and refs (nil: the store's catalog), the time recorded.
        public init(onConflict: ConflictPolicy = .keep, tables: [TableSpec]? = nil, now: Date = Date()) {
            self.init(onConflict: onConflict, tables: tables, validator: nil, now: now)
        }

        /// Options with extra row checks (the tooling's manifest rules).
        package init(
            onConflict: ConflictPolicy = .keep, tables: [TableSpec]? = nil, validator: (any RowValidator)?,
            now: Date = Date()
        ) {
            self.onConflict = onConflict
            self.tables = tables
            self.validator = validator
            self.dialect = nil
            self.now = now
            self.releaseKeys = nil
        }
    }

    /// - throws: ``SeedError`` (configuration) when two migrations share a number.
    public init(migrations: [Migration]) throws {
        var seen: [Int: String] = [:]
        for migration in migrations {
            if let other = seen[migration.number] {
                throw SeedError(
                    .configuration, file: migration.file,
                    "migration number \(migration.number) is used twice: \(other) and \(migration.file)")
            }
            seen[migration.number] = migration.file
        }
        self.migrations = migrations.sorted { $0.number < $1.number }
    }

    /// The large JSON files among the migrations (``DeferredJSONMigration``), in number order.
    private var deferredFiles: [DeferredJSONMigration] {
        migrations.compactMap { if case .changes(let changes) = $0.body { changes.deferred } else { nil } }
    }

    /// Starts reading the first large JSON file on another thread (``DeferredJSONMigration/readAhead()``),
    /// for a caller about to run or check the migrations that has other work first (the CLI reads
    /// its manifest and opens the store; ``SeedInstaller`` opens the store): the run, or the
    /// ledger's check, then finds it read.
    ///
    /// Only the first: each file read stays in memory until a run ends (``migrate(_:options:)``
    /// lets them go) or finds it applied. A run starts it itself.
    package func readAhead() {
        deferredFiles.first?.readAhead()
    }

    /// Lets go of the bytes of the large JSON files read for a run (their digests and checksums
    /// stay, so a later check reads nothing).
    package func releaseBytes() {
        for file in deferredFiles { file.releaseBytes() }
    }

    // MARK: - Asking

    /// Every migration's state in the store, known and recorded, in number order.
    ///
    /// Read-only.
    public func states(_ db: Database) throws -> [MigrationState] {
        try SeedCatalog.requireWellFormed(db)
        let entries = try MigrationLedger.entries(db)
        let recorded = Dictionary(entries.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let digests = try MigrationLedger.fileDigests(db)
        var states: [MigrationState] = []
        for migration in migrations {
            if let entry = recorded[migration.number] {
                // A large JSON file whose bytes are the ones this store applied has the checksum it
                // recorded then: hashing the bytes spares scanning them at every launch.
                if let digest = digests[migration.number], case .changes(let changes) = migration.body,
                    let deferred = changes.deferred,
                    deferred.bytesDigest == digest
                {
                    deferred.adopt(checksum: entry.checksum)
                }
                if entry.checksum != migration.checksum {
                    states.append(.changed(entry, migration))
                } else {
                    states.append(entry.origin == .seed ? .fromSeed(entry, migration) : .applied(entry, migration))
                }
                // Applied: its bytes are not read again (the checksum is kept).
                if case .changes(let changes) = migration.body { changes.deferred?.releaseBytes() }
            } else {
                states.append(.pending(migration))
            }
        }
        let known = Set(migrations.map(\.number))
        for entry in entries where !known.contains(entry.number) { states.append(.missing(entry)) }
        return states.sorted { $0.number < $1.number }
    }

    /// The migrations still to apply.
    ///
    /// Read-only.
    ///
    /// - throws: ``SeedError`` (refused) when a recorded migration's file changed or is missing,
    ///   so that a store is never migrated by migrations that disagree with its history.
    public func pending(_ db: Database) throws -> [Migration] {
        var problems: [Diagnostic] = []
        var pending: [Migration] = []
        let latest = migrations.last.map(\.id) ?? "none"
        for state in try states(db) {
            switch state {
            case .pending(let migration): pending.append(migration)
            case .applied, .fromSeed: break
            case .changed(let entry, let migration):
                problems.append(
                    Diagnostic(
                        file: migration.file, code: .storeRefused,
                        message:
                            "migration \(migration.id) (\(migration.file)) changed after it was applied to this store (store has \(entry.checksum), file has \(migration.checksum)); shipped migrations must not be edited: restore the file and put the change in a new migration"
                    ))
            case .missing(let entry):
                let id = entry.id
                let newer = entry.number > (migrations.last?.number ?? 0)
                problems.append(
                    Diagnostic(
                        code: .storeRefused,
                        message: newer
                            ? "the store is newer than these migrations: it has \(id) applied, the latest here is \(latest); use the migrations of the release that wrote it"
                            : "the store has \(id) applied but no migration file has number \(entry.number); restore the file"
                    ))
            }
        }
        if !problems.isEmpty { throw SeedError(.refused, problems) }
        return pending
    }

    // MARK: - Writing

    /// Applies every pending migration in one `BEGIN IMMEDIATE` transaction: all or nothing.
    ///
    /// - throws: ``SeedError``: `.refused` for a store that disagrees with these migrations or is
    ///   not a database, `.invalidData` for bad migration data (or conflicts under
    ///   ``ConflictPolicy/fail``), `.configuration` for migrations that name unknown tables or
    ///   columns, `.io` when the store is locked past its busy timeout, read-only or full.
    ///   In every case the store is unchanged.
    public func migrate(_ writer: some DatabaseWriter, options: Options = Options()) throws -> MigrationReport {
        readAhead()
        defer { releaseBytes() }
        do {
            return try writer.writeWithoutTransaction { db in
                var report = MigrationReport(migrations: [], dryRun: false)
                try db.inTransaction(.immediate) {
                    report = try apply(db, options: options)
                    return .commit
                }
                return report
            }
        } catch let error as SeedError {
            throw error
        } catch {
            // After a failed write (disk full, I/O error) SQLite can leave the rollback to the next
            // reader, as a hot journal beside a grown file. Read once now, so that the store is
            // back to its exact bytes when we return, not only when someone next opens it.
            _ = try? writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            throw SeedError(databaseError: error, store: writer.path)
        }
    }

    /// Computes what ``migrate(_:options:)`` would do, writing nothing: the store is copied
    /// into memory (SQLite's backup API) and migrated there.
    ///
    /// Memory use is the store's size.
    public func dryRun(_ reader: some DatabaseReader, options: Options = Options()) throws -> MigrationReport {
        readAhead()
        defer { releaseBytes() }
        do {
            let copy = try DatabaseQueue()
            try reader.backup(to: copy)
            var report = try copy.writeWithoutTransaction { db in
                var report = MigrationReport(migrations: [], dryRun: true)
                try db.inTransaction(.immediate) {
                    report = try apply(db, options: options)
                    return .rollback
                }
                return report
            }
            report.dryRun = true
            return report
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(databaseError: error)
        }
    }

    /// Applies the pending migrations inside the caller's transaction.
    ///
    /// - precondition: a write transaction is open on `db`.
    package func apply(_ db: Database, options: Options) throws -> MigrationReport {
        do {
            return try applyPending(db, options: options)
        } catch let error as DatabaseError {
            // A collation or function only the app registers: refused, naming what uses it.
            throw AppExtensions.refusal(error, in: db) ?? error
        }
    }

    private func applyPending(_ db: Database, options: Options) throws -> MigrationReport {
        let pending = try pending(db)
        guard !pending.isEmpty else { return MigrationReport(migrations: [], dryRun: false) }
        // SQL that would end seedkit's transaction or reach outside the store is refused before anything runs.
        try SQLScript.refuseTransactionControl(in: pending, schema: db)
        let damage = try DamageCheck(db, whole: options.storeCheck == .whole)
        try Self.refuseForeignStore(db, pending: pending)
        var run = try MigrationRun(db: db, options: options)
        if run.coreData?.writesHistory == true,
            let sql = pending.first(where: { if case .sql = $0.body { true } else { false } })
        {
            throw SeedError(
                .refused, file: sql.file,
                "the store tracks Core Data persistent history, and seedkit cannot tell what a SQL migration changes to record it there; nothing was written. Write this change as data (insert, update, delete), or pass --without-history to write without history entries"
            )
        }
        let timestamp = MigrationLedger.timestamp(options.now)
        let stopped = SeedError(.io, "interrupted: the migration was rolled back; nothing was written")
        let events: [[RowEvent]]
        // Every row SQLite changes below seedkit's own writes fails the run (ChangeAccounting.swift).
        let accounting = ChangeAccounting(db, enabled: options.accountsChanges)
        defer { accounting.stop() }
        try accounting.refresh(db)
        do {
            for (index, migration) in pending.enumerated() {
                if options.shouldStop?() == true { throw stopped }
                accounting.migration = index
                if case .sql = migration.body { accounting.isCounting = false } else { accounting.isCounting = true }
                try run.apply(migration)
                try accounting.check(db, file: migration.file)
                if !accounting.isCounting {
                    accounting.isCounting = true
                    try accounting.refresh(db)
                }
                try MigrationLedger.record(
                    LedgerEntry(
                        number: migration.number, name: migration.name, checksum: migration.checksum,
                        appliedAt: timestamp, origin: .applied),
                    in: db)
                if case .changes(let changes) = migration.body, let digest = changes.deferred?.bytesDigest {
                    try MigrationLedger.recordFileDigest(number: migration.number, sha256: digest, in: db)
                }
            }
            // Events are known once the run is settled: a row may wait for a parent a later migration inserts.
            events = try run.finish(wholeStore: options.storeCheck == .whole)
            // The history of what the run wrote, in its transaction: it commits or rolls back with the rows.
            try run.writeHistory()
            try accounting.check(db, file: nil)
        } catch {
            // A damaged store is refused as such, whatever the run tripped over first.
            try damage.refuseDamage(db, failure: error)
            throw error
        }
        try damage.refuseDamage(db)
        var outcomes: [MigrationOutcome] = []
        for (index, (migration, events)) in zip(pending, events).enumerated() {
            var outcome = MigrationOutcome(
                number: migration.number, name: migration.name, file: migration.file,
                events: events + accounting.insertEvents(db, migration: index, file: migration.file))
            outcome.changedRows = run.changedRows[index]
            outcome.unlisted = run.slots[index].unlisted
            outcomes.append(outcome)
        }
        if options.shouldStop?() == true { throw stopped }
        return MigrationReport(migrations: outcomes, dryRun: false)
    }
}

extension SeedMigrator {
    /// Applies declarative changes with the migrator's rules (insert if missing, update where
    /// `from` holds, …) inside the caller's transaction, without recording a migration.
    ///
    /// Tools use it to simulate what users do to their stores.
    ///
    /// - precondition: a write transaction is open on `db`.
    package static func applyUnrecorded(_ changes: DataChanges, in db: Database, options: Options) throws -> [RowEvent]
    {
        var run = try MigrationRun(db: db, options: options)
        try run.apply(Migration(number: 0, name: "unrecorded", file: "", checksum: "", body: .changes(changes)))
        return try run.finish(wholeStore: true).first ?? []
    }
}

extension DatabaseError {
    /// Whether the store or the system failed (damaged pages, I/O, a full disk, a lock, a
    /// read-only file or folder, memory, an interrupt) rather than the statement itself (its
    /// SQL, a constraint, a type): such a failure is reported as the store's, with its own exit
    /// code, never as the query's or the migration's fault.
    package var isStoreFailure: Bool {
        switch resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_READONLY, .SQLITE_CANTOPEN,
            .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_NOMEM, .SQLITE_INTERRUPT, .SQLITE_PROTOCOL, .SQLITE_NOLFS:
            return true
        default:
            return false
        }
    }
}

extension SeedMigrator {
    /// Refuses a store whose pages are damaged before anything is written to it: a write could
    /// spread the damage, and the user's data should be recovered from it first.
    ///
    /// Runs `PRAGMA quick_check` (every page and record, without the index cross-checks of
    /// `integrity_check`), only when migrations are pending: an up-to-date launch pays nothing.
    ///
    /// - throws: ``SeedError`` of kind `.refused` naming what SQLite found.
    package static func refuseDamagedStore(_ db: Database) throws {
        let problems: [String]
        do { problems = try quickCheck(db, limit: 5) } catch let error as DatabaseError
            where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
        {
            problems = [error.message ?? "database disk image is malformed"]
        }
        guard problems != ["ok"] else { return }
        throw SeedError(
            .refused,
            "the store is damaged (PRAGMA quick_check: \(problems.joined(separator: "; "))); nothing was written. Recover its data first (sqlite3 STORE .recover), then migrate the recovered store"
        )
    }

    /// ``refuseDamagedStore(_:)`` for a migration run, overlapped with it on a large store: there
    /// `PRAGMA quick_check` reads every page (0.16 s of a 0.26 s run on a 90 MB store), so it runs
    /// on a second, read-only connection on another thread while the run works in its
    /// transaction, and ``refuseDamage(_:)`` waits for it before anything commits.
    ///
    /// The run's writes are uncommitted until then, so a damaged store is still refused with
    /// nothing written.
    ///
    /// Only the second connection's "ok" is trusted: any finding, or any failure to open or read
    /// the store there (an encrypted store whose key only the app's connection has, a VFS), makes
    /// ``refuseDamage(_:)`` run the check on the run's own connection, which decides as before.
    /// Small stores, and in-memory copies (dry runs), are checked at once on the run's connection.
    final class DamageCheck: @unchecked Sendable {
        /// Below this size the check runs at once: a thread and a connection cost more than it.
        static let overlapFrom: Int64 = 16 << 20
        /// How much of a large store the check's connection maps into memory (address space, not RSS).
        static let mappedBytes: Int64 = 1 << 30

        private let done = DispatchSemaphore(value: 0)
        /// The second connection's verdict, written once before `done` is signalled.
        private var sound = false

        /// Whether the run's connection checks each page it loads (``StoreCheck/inProportion`` on a large store).
        private var checksPagesOnTheWay = false
        /// The connection's `cell_size_check` before the run turned it on (an app's connection may have its own).
        private var cellSizeCheckBefore = false

        /// Checks a small store at once (throwing if it is damaged); starts the check of a large
        /// one, whole or in proportion to the run (see ``StoreCheck``).
        init(_ db: Database, whole: Bool) throws {
            // The main database's file ("" in memory, as a dry run's copy is).
            let path = try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'") ?? ""
            let size = path.isEmpty ? nil : FileFacts.size(path).map(Int64.init)
            guard let size, size >= Self.overlapFrom else {
                try SeedMigrator.refuseDamagedStore(db)
                sound = true
                done.signal()
                return
            }
            if !whole {
                try Self.refuseDamagedHeader(db, fileSize: size)
                // Every b-tree page SQLite loads for the run gets its cells' sizes checked too:
                // a damaged page on the run's path is SQLITE_CORRUPT, and the run is refused.
                cellSizeCheckBefore = try Bool.fetchOne(db, sql: "PRAGMA cell_size_check") ?? false
                try db.execute(sql: "PRAGMA cell_size_check = ON")
                checksPagesOnTheWay = true
                sound = true
                done.signal()
                return
            }
            var configuration = db.configuration
            configuration.readonly = true
            configuration.label = "seedkit.quick_check"
            // The check reads every page once: mapped, they need no read() call and copy each
            // (a fifth of its time on a 90 MB store). The migration holds the write lock, so no
            // SQLite writer can shrink the file while it is mapped.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA mmap_size = \(Self.mappedBytes)") }
            // A thread of its own, whose failure to start is an error: a libdispatch block that never
            // ran would leave refuseDamage(_:failure:) waiting forever with the write lock held.
            try DetachedThread.start("check the store for damage") { [self, configuration] in
                defer { done.signal() }
                guard let reader = try? DatabaseQueue(path: path, configuration: configuration) else { return }
                sound = (try? reader.read { db in try SeedMigrator.quickCheck(db, limit: 5) }) == ["ok"]
                try? reader.close()
            }
        }

        /// Throws ``refuseDamagedStore(_:)``'s error when the store is damaged; waits for the second
        /// connection first.
        ///
        /// `failure` is what stopped the run, if anything: SQLite finding a damaged page on the
        /// run's path refuses the store as damaged.
        func refuseDamage(_ db: Database, failure: (any Error)? = nil) throws {
            done.wait()
            done.signal()  // a second call (after a failed run) does not wait forever
            if checksPagesOnTheWay {
                if !cellSizeCheckBefore { try? db.execute(sql: "PRAGMA cell_size_check = OFF") }
                if let error = failure as? DatabaseError,
                    error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
                {
                    throw SeedError(
                        .refused,
                        "the store is damaged (SQLite, on a page this migration read: \(error.message ?? "database disk image is malformed")); nothing was written. Recover its data first (sqlite3 STORE .recover), then migrate the recovered store"
                    )
                }
            }
            if !sound { try SeedMigrator.refuseDamagedStore(db) }
        }

        /// Refuses a store whose header does not fit its file: more pages than the file holds,
        /// or a freelist longer than the store or starting past its end (a truncated or overwritten file).
        static func refuseDamagedHeader(_ db: Database, fileSize: Int64) throws {
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            var problems: [String] = []
            if pageSize < 512 || pageSize > 65536 || pageSize & (pageSize - 1) != 0 {
                problems.append("page size \(pageSize)")
            }
            if pageSize > 0, pages * pageSize > fileSize {
                problems.append(
                    "the header counts \(pages) pages of \(pageSize) bytes, the file holds \(fileSize) bytes")
            }
            if free >= pages { problems.append("the freelist counts \(free) pages of \(pages)") }
            guard !problems.isEmpty else { return }
            throw SeedError(
                .refused,
                "the store is damaged (\(problems.joined(separator: "; "))); nothing was written. Recover its data first (sqlite3 STORE .recover), then migrate the recovered store"
            )
        }
    }

    /// Refuses a store that is not one of these migrations' (docs/reference.md's exit code 3, a foreign store: a wrong
    /// path, another app's file): no seedkit ledger, not a Core Data store, and none of the
    /// tables the pending data migrations write.
    ///
    /// A store without a ledger that has them (an app's own store) is migrated; a pending SQL
    /// migration may create tables, so then nothing is judged.
    static func refuseForeignStore(_ db: Database, pending: [Migration]) throws {
        guard try !db.tableExists(SeedCatalog.ledgerTable), try !CoreDataDialect.isStore(db) else { return }
        var tables: Set<String> = []
        for migration in pending {
            switch migration.body {
            case .sql: return
            case .changes(let changes): tables.formUnion(changes.operations.map(\.table))
            }
        }
        guard !tables.isEmpty, try tables.allSatisfy({ try !db.tableExists($0) }) else { return }
        let present = try TableInfo.userTables(db)
        throw SeedError(
            .refused,
            "not a store of these migrations: it has no seedkit ledger (\(SeedCatalog.ledgerTable)) and none of the tables they write (\(tables.sorted().joined(separator: ", "))); it has \(present.isEmpty ? "no tables" : present.joined(separator: ", ")). Check the path: seedkit migrates the stores this project's seed started; nothing was written"
        )
    }

    /// `PRAGMA quick_check`'s findings, one per line (a row can hold several lines and a
    /// heading), at most `limit`; `["ok"]` for a sound store.
    package static func quickCheck(_ db: Database, limit: Int) throws -> [String] {
        let rows = try String.fetchAll(db, sql: "PRAGMA quick_check(\(limit))")
        guard rows != ["ok"] else { return rows }
        let lines: [String] = rows.flatMap { $0.split(separator: "\n").map(String.init) }
        return Array(lines.filter { !$0.hasPrefix("*** in database ") }.prefix(limit))
    }
}
