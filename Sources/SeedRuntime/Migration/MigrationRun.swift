import Foundation
import GRDB
import GRDBSQLite

/// One run of the migrator inside an open transaction: resolves keys and refs against
/// the store, decides what each row change does, and has the dialect write it.
///
/// Decisions (docs/releases.md, "Shipping a data update"): an insert whose key exists is left alone; an update applies only
/// where the row still holds `from`, is done where it holds `to`, and is otherwise a
/// conflict; a delete removes only an unchanged row that nothing references.
struct MigrationRun {
    let db: Database
    let options: SeedMigrator.Options
    let dialect: any StoreDialect
    /// The dialect as its type, found once (not cast again for each row).
    let coreData: CoreDataDialect?
    let plainSQLite: Bool
    /// The table specs, by SQL name and by the name migrations use.
    var specs = RunSpecs()
    /// The name the operation being applied uses for its table (an entity, for Core Data).
    var operationName = ""
    var tables: [String: TableInfo] = [:]
    var referenceCache: [String: [SQLName: TableSpec.Reference]] = [:]
    /// Per-table facts worked out once, not once per row (see RunMemo.swift).
    var memo = RunMemo()
    /// SQL table name → the name migrations use for it.
    var writtenTableNames: [String: String] = [:]
    /// Problems that stop the run; thrown together at the end so that all are reported.
    var errors: [Diagnostic] = []
    /// Rows the store refused (a required one-to-one side left empty, a derived attribute): the
    /// run goes on to name every one, then rolls back whole (exit 3).
    var refusals: [(diagnostic: Diagnostic, rows: [String])] = []
    /// Join tables found so far, by entity and relationship (nil: none), so the schema is searched once per relationship.
    var joinTables: [String: CoreDataDialect.JoinTable?] = [:]
    /// Each migration's events: one slot per row change in the order written, filled when its
    /// row settles (a row waiting for a parent later), put in slot order by ``finish()``.
    ///
    /// Only filled slots take memory: a row not written because of an error, or only counted (see
    /// ``SeedMigrator/Options/eventsPerKind``), leaves nothing.
    var slots: [SlotEvents] = []
    struct SlotEvents {
        var count = 0
        /// The filled slots' indexes and their events, in the order filled (apart: ``finish()``
        /// hands `events` on as they are when that is slot order, as it nearly always is).
        var indexes: [Int] = []
        var events: [RowEvent] = []
        /// Events kept and left out, by kind, under ``SeedMigrator/Options/eventsPerKind``.
        var listed: [RowEvent.Kind: Int] = [:]
        var unlisted: [RowEvent.Kind: Int] = [:]
    }
    /// For each SQL migration (by position in the run), the rows it changed.
    private(set) var changedRows: [Int: Int] = [:]
    /// Row changes waiting for a parent row that a later change of the run may insert.
    var queue = WaitQueue()
    /// Rows held for a multi-row INSERT (see MigrationRun+Bulk.swift).
    var held = HeldInserts()
    /// Deletes held for a batch (see MigrationRun+BatchDelete.swift).
    var heldDeletes = HeldDeletes()
    /// Updates held for a batch (see MigrationRun+BatchUpdate.swift).
    var heldUpdates = HeldUpdates()
    /// The array ``insertQuickly(_:into:named:slot:)`` makes each row's values in, kept for the next row.
    var quickValues: [(column: String, value: SQLValue)] = []
    /// Deletes of the migration being applied that a row still refers to, retried once its other changes are done.
    var blockedDeletes: [BlockedDelete] = []
    /// The columns that refer to rows a delete removes, by child table and columns: whether an
    /// index finds their rows, or how often they were read without one (see MigrationRun+Referrers.swift).
    var referrerColumns = ReferrerColumns()
    var deferredDeletes: [DeferredDelete] = []
    var deferredUpdates: [DeferredUpdate] = []
    /// Whether an update whose `from` names a missing parent waits for the end of the run (see ``retryDeferredUpdates()``).
    var deferringUpdates = true
    /// The updates of the operation being applied that come after the one being applied: a
    /// rename whose new key one of them renames away is a swap or rotation (see ``update(_:in:file:slot:)``).
    var laterUpdates: ArraySlice<DataChanges.RowChange> = []

    init(db: Database, options: SeedMigrator.Options) throws {
        self.db = db
        self.options = options
        self.dialect =
            try options.dialect ?? CoreDataDialect.detect(
                db, facts: options.coreDataFacts, allowingMissingHistory: options.allowsMissingHistory,
                allowingCloudKit: options.allowsCloudKit) ?? PlainSQLiteDialect()
        coreData = dialect as? CoreDataDialect
        plainSQLite = dialect is PlainSQLiteDialect
        memo = try RunMemo.reading(db)
        // Specs speak the migration's language (entities and attributes for Core Data): translated once.
        specs = try RunSpecs.read(db, options: options, dialect: dialect)
    }

    /// Applies one migration.
    ///
    /// Row changes whose parents are not in the store yet wait for them (see ``finish()``), so refs
    /// resolve in any order within the run.
    mutating func apply(_ migration: Migration) throws {
        slots.append(SlotEvents())
        let index = slots.count - 1
        switch migration.body {
        case .sql(let sql):
            try flushInserts()
            try retryDeferredUpdates(settling: false)
            try retryDeferredDeletes()
            try settleBlockedDeletes(final: true)
            let runSpecs = specs
            let changes = try SQLScript(sql).run(
                in: db, file: migration.file, keys: { table in runSpecs.spec(sqlTable: table)?.key },
                listing: options.eventsPerKind, timeLimit: options.sqlTimeLimit)
            changedRows[index] = changes.total
            // The SQL may have changed the schema (re-read it, and the catalog), or inserted rows others wait for.
            tables.removeAll()
            referenceCache.removeAll()
            joinTables.removeAll()
            // Whether a table's changes may be batched (a trigger or a foreign-key action it added says no).
            heldDeletes.tables.removeAll()
            memo = try RunMemo.reading(db)
            specs = try RunSpecs.read(db, options: options, dialect: dialect)
            let events = changes.events(file: migration.file)
            slots[index] = SlotEvents(
                count: events.count, indexes: Array(events.indices), events: events,
                unlisted: changes.unlistedDeletes > 0 ? [.deleted: changes.unlistedDeletes] : [:])
            try retryAll()
        case .changes(let changes):
            if let deferred = changes.deferred {
                // Read while applied: each operation arrives in chunks of items, each with its
                // operation's index. An update that may rename a row asks the operation's later
                // updates about its new key (``renamedAwayLater(_:in:file:)``): from such a chunk
                // on, the operation's chunks are gathered and applied as one.
                var failedOperation: Int?
                var gathered: (operation: DataChanges.Operation, position: Int)?
                func applyGathered() throws {
                    guard let (operation, position) = gathered else { return }
                    gathered = nil
                    if !(try apply(operation, of: migration, slots: index)) { failedOperation = position }
                }
                try deferred.stream { operation, position in
                    if let (held, heldPosition) = gathered {
                        guard heldPosition != position else {
                            gathered = (
                                DataChanges.Operation(
                                    held.kind, table: held.table, rows: [], changes: held.changes + operation.changes),
                                position
                            )
                            return
                        }
                        try applyGathered()
                    }
                    guard failedOperation != position else { return }
                    if mayRename(operation) {
                        gathered = (operation, position)
                        return
                    }
                    if !(try apply(operation, of: migration, slots: index)) { failedOperation = position }
                }
                try applyGathered()
            } else {
                for operation in changes.operations { _ = try apply(operation, of: migration, slots: index) }
            }
            try settleBlockedDeletes(final: false)
            try dropReferrerIndexes()
        }
    }

    /// Whether `operation` is an update whose `to` may set a key column (a rename; see
    /// ``apply(_:)``); true when its table or key does not read (the operation reports that).
    mutating func mayRename(_ operation: DataChanges.Operation) -> Bool {
        guard case .update(let name, let changes) = operation else { return false }
        guard let table = try? tableInfo(name, file: ""), let key = try? keyColumns(table, file: "", line: 0) else {
            return true
        }
        let keyNames = Set(key.flatMap { [SQLName($0), SQLName(dialect.columnName($0, in: name))] })
        return changes.contains { change in
            change.to.values.contains {
                keyNames.contains(SQLName($0.column))
                    || keyNames.contains(SQLName(dialect.columnName($0.column, in: name)))
            }
        }
    }

    /// Applies one operation (or a chunk of its items) of `migration`, whose events go to
    /// `slots[index]`.
    ///
    /// False when its table is unknown (reported once; the caller skips the operation's other
    /// chunks).
    mutating func apply(_ operation: DataChanges.Operation, of migration: Migration, slots index: Int) throws -> Bool {
        let table: TableInfo
        do { table = try tableInfo(operation.table, file: migration.file) } catch let error as SeedError {
            errors += error.diagnostics
            return false
        }
        operationName = operation.table
        // Composites given in the Swift type's shape become their stored elements (SwiftShape.swift).
        switch expandingSwiftShapes(operation) {
        case .insert(let name, let rows):
            for row in rows {
                let slot = newSlot(index)
                if try insertQuickly(row, into: table, named: name, slot: slot) {
                    try drain()  // as settle(_:slot:_:) does for a row that is done
                    continue
                }
                do {
                    try settle(
                        .insert(row: row, table: name), slot: slot,
                        try insert(row, named: name, slot: slot, validate: true))
                } catch let error as SeedError where error.kind == .refused {
                    keep(refusal: error, file: migration.file, line: row.line)
                }
            }
            try flushInserts()
        case .update(let name, let changes):
            defer { laterUpdates = [] }
            // Many rows: found, checked and written a batch at a time (MigrationRun+BatchUpdate.swift).
            let batching =
                changes.count > 1 && options.validator == nil
                ? deleteBatching(table) : (batched: false, selfRefs: [], key: [])
            for (position, change) in changes.enumerated() {
                laterUpdates = changes[(position + 1)...]
                let slot = newSlot(index)
                if batching.batched,
                    try holdUpdate(
                        change, in: table, name: name, file: migration.file, slot: slot, batching: batching)
                {
                    continue
                }
                do {
                    try settle(
                        .update(change: change, table: name, file: migration.file), slot: slot,
                        try update(change, in: table, file: migration.file, slot: slot))
                } catch let error as SeedError where error.kind == .refused {
                    keep(refusal: error, file: migration.file, line: change.line)
                }
            }
            try flushUpdates()
        case .delete(_, let changes):
            // Many rows: found, checked and deleted a batch at a time (MigrationRun+BatchDelete.swift).
            let batching = changes.count > 1 ? deleteBatching(table) : (batched: false, selfRefs: [], key: [])
            for change in changes {
                let slot = newSlot(index)
                if batching.batched {
                    try holdDelete(change, from: table, file: migration.file, slot: slot, batching: batching)
                    continue
                }
                settleDelete(
                    try delete(change, from: table, file: migration.file), change, table: table, file: migration.file,
                    slot: slot)
            }
            try flushDeletes()
        }
        return true
    }

    /// Keeps a row's refusal (exit 3): the run goes on so that every refusal of a migration is
    /// named, not only the first (issue 42).
    ///
    /// A reason is said once, with the lines of the rows it refused when there are several. Nothing
    /// is written: ``finish(wholeStore:)`` throws them, and the caller rolls the run back.
    mutating func keep(refusal error: SeedError, file: String, line: Int) {
        for diagnostic in error.diagnostics {
            if let index = refusals.firstIndex(where: { $0.diagnostic.message == diagnostic.message }) {
                refusals[index].rows.append("\(file):\(line)")
            } else {
                refusals.append((diagnostic, ["\(file):\(line)"]))
            }
        }
    }

    /// The kept refusals, each once; one that refused several rows lists them (the first ten).
    var refusalDiagnostics: [Diagnostic] {
        refusals.map { refusal in
            var diagnostic = refusal.diagnostic
            let rows = refusal.rows
            if rows.count > 1 {
                let listed = rows.prefix(10).joined(separator: ", ") + (rows.count > 10 ? ", …" : "")
                diagnostic.message += " (\(rows.count) rows refused for this: \(listed))"
            }
            return diagnostic
        }
    }

    /// Whether the store must be read for rows whose foreign key finds no parent.
    ///
    /// `PRAGMA foreign_key_check` reads every row of every table with a foreign key (0.11 s for one
    /// inserted row on a 1M-row table with one). With foreign keys enforced, as seedkit's and
    /// GRDB's connections have them, a statement that breaks an immediate constraint has already
    /// failed, and SQLite counts the deferred ones this transaction left unresolved
    /// (`SQLITE_DBSTATUS_DEFERRED_FKS`): the check runs when that count is not zero, to name the
    /// rows. (The count is the transaction's: a caller's own steps before the run, such as GRDB's
    /// DatabaseMigrator recreating a table, can leave it above zero with no row to name; the check
    /// then finds nothing, as it would have had it always run.) Not seen then: a row of the user's
    /// that broke its foreign key before the run (the whole-store check,
    /// ``SeedMigrator/StoreCheck/whole``, refuses the run for it; `seedkit verify` reports it).
    func foreignKeysNeedChecking(wholeStore: Bool) throws -> Bool {
        guard !wholeStore, try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true else { return true }
        var unresolved: Int32 = 0
        var highest: Int32 = 0
        guard
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_DEFERRED_FKS, &unresolved, &highest, 0) == SQLITE_OK
        else { return true }
        return unresolved != 0
    }

    /// Writes what the run changed into the store's persistent history, when it tracks it (see
    /// ``CoreDataDialect/writeHistory(_:transaction:)``): one transaction, at the run's time.
    func writeHistory() throws {
        try coreData?.writeHistory(db, transaction: CoreDataHistory.Transaction(timestamp: options.now))
    }

    /// Settles what is still waiting (inserting rows that wait on each other, reporting those
    /// whose parent nobody inserts), throws everything collected, then checks foreign keys
    /// before the caller commits (the whole store when `wholeStore`, else in proportion to the
    /// run: ``foreignKeysNeedChecking(wholeStore:)``).
    ///
    /// Returns each migration's events.
    mutating func finish(wholeStore: Bool) throws -> [[RowEvent]] {
        try flushInserts()
        try settleWaiting()
        // Updates and deletes whose `from` named a row a waiting change brought, and deletes a
        // row of the run referred to: that row may have waited for a parent until now.
        try retryDeferredUpdates()
        try retryDeferredDeletes()
        try settleBlockedDeletes(final: true)
        try dropReferrerIndexes()
        if !refusals.isEmpty { throw SeedError(.refused, refusalDiagnostics + errors) }
        var errors = self.errors
        if errors.isEmpty, try foreignKeysNeedChecking(wholeStore: wholeStore) {
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0]
                let parent: String = row[2]
                errors.append(
                    Diagnostic(
                        code: .unresolvedReference,
                        message:
                            "after the migrations, a row of \(table) (rowid \(row[1] as Int64? ?? 0)) references a missing row of \(parent); nothing was written",
                        table: table))
            }
        }
        if !errors.isEmpty {
            throw SeedError(
                errors.contains { $0.code == .configuration || $0.code == .unknownColumn }
                    ? .configuration : .invalidData, errors)
        }
        return slots.map { migration in
            if zip(migration.indexes, migration.indexes.dropFirst()).allSatisfy({ $0 < $1 }) { return migration.events }
            var filled = Array(zip(migration.indexes, migration.events))
            filled.sort { $0.0 < $1.0 }
            return filled.map(\.1)
        }
    }
}
