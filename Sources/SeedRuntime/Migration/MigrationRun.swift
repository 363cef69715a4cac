import GRDB
import Foundation

/// One run of the migrator inside an open transaction: resolves keys and refs against
/// the store, decides what each row change does, and has the dialect write it.
///
/// Decisions (SPEC §7): an insert whose key exists is left alone; an update applies only
/// where the row still holds `from`, is done where it holds `to`, and is otherwise a
/// conflict; a delete removes only an unchanged row that nothing references.
struct MigrationRun {
    let db: Database
    let options: SeedMigrator.Options
    let dialect: any StoreDialect
    /// The dialect as its type, found once (not cast again for each row).
    private let coreData: CoreDataDialect?
    private let plainSQLite: Bool
    /// Table specs by SQL table name, in SQL column names (refs name their parent as written).
    private var specs: [String: TableSpec] = [:]
    /// The same by the name migrations use: sub-entities sharing a Core Data table each have their own.
    private var specsByName: [String: TableSpec] = [:]
    /// The name the operation being applied uses for its table (an entity, for Core Data).
    var operationName = ""
    private var tables: [String: TableInfo] = [:]
    private var referenceCache: [String: [String: TableSpec.Reference]] = [:]
    /// Per-table facts worked out once, not once per row (see MigrationRun+Memo.swift).
    var memo = RunMemo()
    /// SQL table name → the name migrations use for it.
    private var writtenTableNames: [String: String] = [:]
    /// Problems that stop the run; thrown together at the end so that all are reported.
    var errors: [Diagnostic] = []
    /// Refs as the migration names them, by SQL table and lower-cased SQL column: what a
    /// to-many relationship (which has no column) needs to find its Core Data join table.
    private var writtenRefs: [String: [String: (relationship: String, reference: TableSpec.Reference)]] = [:]
    /// Join tables found so far, by entity and relationship (nil: none), so the schema is searched once per relationship.
    private var joinTables: [String: CoreDataDialect.JoinTable?] = [:]
    /// SQL table → lower-cased SQL column → the name migrations use for it (key and ref columns), for reports.
    private var writtenColumnNames: [String: [String: String]] = [:]
    /// Each migration's events: one slot per row change in the order written, filled when its
    /// row settles (a row waiting for a parent later), put in slot order by ``finish()``. Only
    /// filled slots take memory: a row not written because of an error, or only counted (see
    /// ``SeedMigrator/Options/eventsPerKind``), leaves nothing.
    var slots: [SlotEvents] = []
    struct SlotEvents {
        var count = 0
        var filled: [(index: Int, event: RowEvent)] = []
        /// Events kept and left out, by kind, under ``SeedMigrator/Options/eventsPerKind``.
        var listed: [RowEvent.Kind: Int] = [:]
        var unlisted: [RowEvent.Kind: Int] = [:]
    }
    /// For each SQL migration (by position in the run), the rows it changed.
    private(set) var changedRows: [Int: Int] = [:]
    /// Row changes waiting for a parent row that a later change of the run may insert.
    var queue = WaitQueue()
    /// Deletes of the migration being applied that a row still refers to, retried once its other changes are done.
    private var blockedDeletes: [BlockedDelete] = []
    /// The updates of the operation being applied that come after the one being applied: a
    /// rename whose new key one of them renames away is a swap or rotation (see ``update(_:in:file:slot:)``).
    private var laterUpdates: ArraySlice<DataChanges.RowChange> = []

    init(db: Database, options: SeedMigrator.Options) throws {
        self.db = db
        self.options = options
        self.dialect = try options.dialect ?? CoreDataDialect.detect(db, facts: options.coreDataFacts, allowingMissingHistory: options.allowsMissingHistory) ?? PlainSQLiteDialect()
        coreData = dialect as? CoreDataDialect
        plainSQLite = dialect is PlainSQLiteDialect
        memo = try RunMemo.reading(db)
        try readSpecs()
    }

    /// Reads the table specs (again, after a schema step: a `.sql` migration may have added
    /// tables and recorded their keys and refs in `_seedkit_tables`).
    private mutating func readSpecs() throws {
        // Specs speak the migration's language (entities and attributes for Core Data): translate once.
        let written = try options.tables ?? SeedCatalog.tableSpecs(db) ?? []
        let dialect = self.dialect
        let specs = written.map { dialect.storeSpec($0, keepingReferencedTables: true) }
        self.specs = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.specsByName = Dictionary(zip(written.map(\.name), specs).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        writtenRefs = [:]
        writtenColumnNames = [:]
        for spec in written {
            for column in spec.key + Array(spec.refs.keys) {
                writtenColumnNames[dialect.tableName(spec.name), default: [:]][dialect.columnName(column).lowercased()] = column
            }
            for (column, reference) in spec.refs {
                writtenRefs[dialect.tableName(spec.name), default: [:]][dialect.columnName(column).lowercased()] = (column, reference)
            }
        }
    }

    /// Applies one migration. Row changes whose parents are not in the store yet wait for them
    /// (see ``finish()``), so refs resolve in any order within the run.
    mutating func apply(_ migration: Migration) throws {
        slots.append(SlotEvents())
        let index = slots.count - 1
        switch migration.body {
        case .sql(let sql):
            let changes = try SQLScript(sql).run(in: db, file: migration.file)
            changedRows[index] = changes.total
            // The SQL may have changed the schema (re-read it, and the catalog), or inserted rows others wait for.
            tables.removeAll()
            referenceCache.removeAll()
            joinTables.removeAll()
            memo = try RunMemo.reading(db)
            try readSpecs()
            let events = changes.events(file: migration.file)
            slots[index] = SlotEvents(count: events.count, filled: events.enumerated().map { ($0.offset, $0.element) })
            try retryAll()
        case .changes(let changes):
            if let deferred = changes.deferred {
                // Read while applied: an insert arrives in chunks of rows, each with its operation's index.
                var failedOperation: Int?
                try deferred.stream { operation, position in
                    guard failedOperation != position else { return }
                    if !(try apply(operation, of: migration, slots: index)) { failedOperation = position }
                }
            } else {
                for operation in changes.operations { _ = try apply(operation, of: migration, slots: index) }
            }
            try settleBlockedDeletes()
        }
    }

    /// Applies one operation (or a chunk of an insert's rows) of `migration`, whose events go to
    /// `slots[index]`. False when its table is unknown (reported once; the caller skips the
    /// operation's other chunks).
    private mutating func apply(_ operation: DataChanges.Operation, of migration: Migration, slots index: Int) throws -> Bool {
        let table: TableInfo
        do { table = try tableInfo(operation.table, file: migration.file) } catch let error as SeedError {
            errors += error.diagnostics
            return false
        }
        operationName = operation.table
        switch operation {
        case .insert(let name, let rows):
            for row in rows {
                let slot = newSlot(index)
                try settle(.insert(row: row, table: name), slot: slot, try insert(row, named: name, slot: slot, validate: true))
            }
        case .update(let name, let changes):
            defer { laterUpdates = [] }
            for (position, change) in changes.enumerated() {
                laterUpdates = changes[(position + 1)...]
                let slot = newSlot(index)
                try settle(.update(change: change, table: name, file: migration.file), slot: slot, try update(change, in: table, file: migration.file, slot: slot))
            }
        case .delete(_, let changes):
            for change in changes {
                let slot = newSlot(index)
                switch try delete(change, from: table, file: migration.file) {
                case .done(let event): fill(slot, event)
                case .blocked(var blocked): blocked.slot = slot; blockedDeletes.append(blocked)
                }
            }
        }
        return true
    }

    /// Retries the deletes that something still referenced once the migration's other changes
    /// are done, in a loop while one of them goes (a migration may list a parent before the
    /// children it also deletes, in any order); what is still referenced then is denied (1600).
    ///
    /// A retry deletes the row the first attempt found and checked against `from` (the
    /// migration's own later changes do not make it a conflict), under the name its operation
    /// used (a Core Data sub-entity's key and `Z_ENT`). Each pass goes from the last blocked to
    /// the first, so that a chain listed parents first goes in one pass.
    private mutating func settleBlockedDeletes() throws {
        let operation = operationName
        defer { operationName = operation }
        var progress = true
        while progress && !blockedDeletes.isEmpty {
            progress = false
            var still: [BlockedDelete] = []
            for blocked in blockedDeletes.reversed() {
                operationName = blocked.operationName
                let rows = try fetch(blocked.table, blocked.key)
                guard rows.count == 1, let current = rows.first else {
                    // Gone meanwhile (the migration deleted it twice): nothing left to delete.
                    fill(blocked.slot, RowEvent(kind: .missing, table: blocked.denied.table, key: blocked.denied.key, detail: "not in the store; nothing to delete", file: blocked.file, line: blocked.line))
                    progress = true
                    continue
                }
                switch try deleteUnlessReferenced(current, key: blocked.key, fields: blocked.denied.key, in: blocked.table, file: blocked.file, line: blocked.line) {
                case .done(let event): fill(blocked.slot, event); progress = true
                case .blocked(var again): again.slot = blocked.slot; still.append(again)
                }
            }
            blockedDeletes = still.reversed()
        }
        for blocked in blockedDeletes {
            fill(blocked.slot, blocked.denied)
            if options.onConflict == .fail { errors.append(blocked.error) }
        }
        blockedDeletes = []
    }

    /// Settles what is still waiting (inserting rows that wait on each other, reporting those
    /// whose parent nobody inserts), throws everything collected, then checks foreign keys
    /// before the caller commits. Returns each migration's events.
    mutating func finish() throws -> [[RowEvent]] {
        try settleWaiting()
        var errors = self.errors
        if errors.isEmpty {
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0]
                let parent: String = row[2]
                errors.append(Diagnostic(code: .unresolvedReference, message: "after the migrations, a row of \(table) (rowid \(row[1] as Int64? ?? 0)) references a missing row of \(parent); nothing was written", table: table))
            }
        }
        if !errors.isEmpty { throw SeedError(errors.contains { $0.code == .configuration || $0.code == .unknownColumn } ? .configuration : .invalidData, errors) }
        return slots.map { migration in
            var filled = migration.filled
            if !zip(filled, filled.dropFirst()).allSatisfy({ $0.index < $1.index }) { filled.sort { $0.index < $1.index } }
            return filled.map(\.event)
        }
    }

    // MARK: - Operations

    /// Inserts a row if its key is missing. A row whose parent is not in the store yet waits
    /// for it (``Attempt/waiting``); `later` names nullable ref columns inserted as NULL and
    /// linked once their parent arrives (how a cycle of refs is broken).
    mutating func insert(_ original: DataChanges.RowValues, named name: String, slot: Slot?, validate: Bool, later: Set<String> = []) throws -> Attempt {
        let table = try tableInfo(name, file: original.file)
        var row = original
        let errorCount = errors.count
        let links = try takeManyToMany(&row, table: table, entity: name)
        let resolution = try resolve(row, in: table)
        let unwritable = errors.count > errorCount
        var values = resolution.values
        let linkLater = resolution.missing.filter { later.contains($0.column.lowercased()) }
        // Members of a many-to-many relationship `later` names are linked once they are in (a cycle broken).
        let linksMissing = links.isEmpty ? [] : links.flatMap { $0.missing }
        let membersLater = linksMissing.filter { later.contains($0.column.lowercased()) }
        let missing = (resolution.missing + linksMissing).filter { !later.contains($0.column.lowercased()) }
        // The table's spec, once per row (each ask copies it).
        let tableSpec = spec(table)
        let keyColumns = try Self.keyColumns(table, spec: tableSpec, file: row.file, line: row.line)
        let missingColumns = Set(missing.map { dialect.columnName($0.column).lowercased() })
        var key: [(column: String, value: SQLValue)] = []
        var keyResolved = true
        let naturalKey = tableSpec?.key.isEmpty == false
        for column in keyColumns {
            let wanted = column.lowercasedName
            if let value = values.first(where: { sameName($0.column, wanted) }), value.value != .null || !naturalKey {
                key.append((column, value.value))
            } else if missingColumns.contains(wanted) {
                key.append((column, .null))  // shown by its parent's key
                keyResolved = false
            } else {
                // A natural key must be there: a row without one could never be found again, and
                // NULLs are never equal, so nothing would stop a second such row.
                errors.append(Diagnostic(file: row.file, line: row.line, code: naturalKey ? .missingRequired : .configuration,
                    message: "this row for \(table.name) has no value for its key column '\(column)'\(naturalKey ? "; a natural key must have one" : "")", table: table.name))
                return .done
            }
        }
        // The key as reports show it: worked out when a report needs it (most rows of a big
        // update are only counted, see ``SeedMigrator/Options/eventsPerKind``).
        var shownKey: [RowEvent.KeyValue]?
        func fields() throws -> [RowEvent.KeyValue] {
            if let shownKey { return shownKey }
            let fields = try keyFields(key, in: table, input: row)
            shownKey = fields
            return fields
        }
        if validate, let validator = options.validator {
            // A row that breaks a rule is still written (the run fails anyway), so that the
            // duplicate keys and refs of the rows after it are checked against it too.
            errors += validator.validate(table: written(table), values: written(values, as: row), file: row.file, line: row.line)
        }
        if unwritable {
            // Not written, but its key still counts as provided: no child is reported for it again.
            queue.broken.formUnion(providedKeys(table, values))
            return .done
        }
        // Whether the INSERT itself can skip a row whose key is there (one probe of the key's index, not two).
        // `keyColumns` are the key's columns, in order (each one is in `key`, or the row was refused above).
        let unlessPresent = try keyResolved && missing.isEmpty && !key.contains { $0.value == .null }
            && insertsUnlessPresent(table, name: name, key: keyColumns)
        if keyResolved, !unlessPresent, try count(table, key) > 0 {
            fill(slot, event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
            return .done
        }
        if !missing.isEmpty { return .waiting(key: try fields(), missing: missing, provides: providedKeys(table, values)) }
        // What the row does not name gets its default, as Core Data gives every new object.
        for (column, value) in (tableSpec?.defaults ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let info = table.column(column), !values.contains(where: { $0.column.lowercased() == info.name.lowercased() }) else { continue }
            values.append((info.name, value))
        }
        do {
            if unlessPresent {
                guard try writeUnlessPresent(values, into: table, name: name, key: keyColumns) else {
                    fill(slot, event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
                    return .done
                }
            } else if try write(values, into: table, name: name) == 0 {
                // SQLite made no row: a trigger's RAISE(IGNORE). Never reported as inserted.
                fill(slot, conflict(table, line: row.line, file: row.file, key: try fields(), "not inserted: \(try TriggerVeto.reason(db, table: table.name, event: "INSERT"))"))
                return .done
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // SQLite checks NOT NULL and CHECK before the key's index: a row whose key is there stays "already present".
            if unlessPresent, try count(table, key) > 0 {
                fill(slot, event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
                return .done
            }
            if let collision = try schemaCollision(error, in: table, values: values) {
                fill(slot, conflict(table, line: row.line, file: row.file, key: try fields(), "not inserted: \(collision)"))
                return .done
            }
            errors.append(Diagnostic(file: row.file, line: row.line, code: constraintCode(error), message: "cannot insert \(RowEvent.describe(key: try fields())) into \(table.name): \(error.message ?? "constraint failed")", table: table.name))
            queue.broken.formUnion(providedKeys(table, values))
            return .done
        }
        for link in links { try self.link(link, table: table, key: key) }
        if lists(.inserted, in: slot) { fill(slot, event(.inserted, table, row: row, key: try fields(), "inserted")) } else { unlist(.inserted, in: slot) }
        for parent in linkLater {
            queue.add(.link(table: name, key: key, row: row, column: parent.column), slot: nil, key: try fields(), missing: [parent], provides: [])
        }
        for member in membersLater {
            let only = DataChanges.RowValues(values: [(member.column, member.input)], line: row.line, file: row.file)
            queue.add(.link(table: name, key: key, row: only, column: member.column), slot: nil, key: try fields(), missing: [member], provides: [])
        }
        queue.appeared(table.name, values)
        return .done
    }

    /// Sets a ref column that was inserted as NULL (a cycle broken), now that its parent is in the store.
    mutating func link(table name: String, key: [(column: String, value: SQLValue)], row: DataChanges.RowValues, column: String) throws -> Attempt {
        let table = try tableInfo(name, file: row.file)
        if dialect is CoreDataDialect, table.column(dialect.columnName(column)) == nil {
            // A member of a many-to-many relationship: its join row.
            var member = row
            let links = try takeManyToMany(&member, table: table, entity: name)
            if let missing = links.first?.missing, !missing.isEmpty { return .waiting(key: try keyFields(key, in: table, input: row), missing: missing, provides: []) }
            for link in links { try self.link(link, table: table, key: key) }
            return .done
        }
        guard let input = row.values.first(where: { $0.column.lowercased() == column.lowercased() }) else { return .done }
        let resolution = try resolve(DataChanges.RowValues(values: [input], line: row.line, file: row.file), in: table)
        if !resolution.missing.isEmpty { return .waiting(key: try keyFields(key, in: table, input: row), missing: resolution.missing, provides: []) }
        memo.changedRows()
        try dialect.update(db, table: table, key: key, values: resolution.values, references: parentTables(of: table))
        return .done
    }

    /// The keys a row provides to refs that wait for it: each of its plain column values.
    private mutating func providedKeys(_ table: TableInfo, _ values: [(column: String, value: SQLValue)]) -> [ParentKey] {
        let refs = references(of: table.name)
        return values.filter { refs[$0.column.lowercased()] == nil && $0.value != .null }.map { ParentKey(table: table.name, column: $0.column, value: $0.value) }
    }

    /// An input value as the text or number it reads as, for messages.
    static func sqlText(_ input: InputValue) -> SQLValue {
        switch input {
        case .null: return .null
        case .bool(let flag): return .text(flag ? "true" : "false")
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text), .json(let text): return .text(text)
        }
    }

    /// A many-to-many relationship set on an inserted row: its join table and the members' `Z_PK`s (nil when one is missing).
    private struct ManyToMany {
        var join: CoreDataDialect.JoinTable
        var destination: String
        var members: [SQLValue]
        /// Members not in the store (yet).
        var missing: [MissingParent]
    }

    /// Takes the values of `row` that name many-to-many relationships (Core Data: no column, a
    /// join table) out of it, with their members resolved by key.
    private mutating func takeManyToMany(_ row: inout DataChanges.RowValues, table: TableInfo, entity: String) throws -> [ManyToMany] {
        guard let coreData else { return [] }
        var links: [ManyToMany] = []
        var kept: [(column: String, value: InputValue)] = []
        for (column, input) in row.values {
            guard table.column(dialect.columnName(column)) == nil, let ref = writtenRefs[table.name]?[dialect.columnName(column).lowercased()],
                  let join = try joinTable(coreData, entity: entity, ref: ref) else {
                kept.append((column, input))
                continue
            }
            let destination = try tableInfo(ref.reference.table, file: row.file)
            guard let keyColumn = destination.column(dialect.columnName(ref.reference.column)) else {
                errors.append(Diagnostic(file: row.file, line: row.line, code: .configuration, message: "ref \(entity).\(column) → \(ref.reference) names a column \(destination.name) lacks", table: table.name))
                continue
            }
            var members: [SQLValue] = []
            var missing: [MissingParent] = []
            for item in input.listItems {
                guard case .success(let key) = dialect.columnType(keyColumn).convert(item) else {
                    errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(entity).\(column): \(item) is not a key of \(ref.reference)", table: table.name))
                    continue
                }
                let entityRows = dialect.rowFilter(ref.reference.table).map { " AND \($0)" } ?? ""
                let found = try SQLValue.fetchOne(db.cachedStatement(sql: coreData.primaryKeySQL(from: destination.name, where: "\(quoteIdentifier(keyColumn.name)) IS ?\(entityRows)") + " LIMIT 1"), arguments: [key])
                if let found { members.append(found) } else {
                    missing.append(MissingParent(key: ParentKey(table: destination.name, column: keyColumn.name, value: key), column: column, reference: ref.reference,
                                                 input: item, type: dialect.columnType(keyColumn), nullable: true))  // linked once it is in
                }
            }
            links.append(ManyToMany(join: join, destination: destination.name, members: members, missing: missing))
        }
        row.values = kept
        return links
    }

    private mutating func joinTable(_ coreData: CoreDataDialect, entity: String, ref: (relationship: String, reference: TableSpec.Reference)) throws -> CoreDataDialect.JoinTable? {
        let id = entity + "." + ref.relationship
        if let known = joinTables[id] { return known }
        let found = try coreData.joinTable(db, entity: entity, relationship: ref.relationship, destination: ref.reference.table)
        joinTables[id] = found
        return found
    }

    /// Writes the join rows of a newly inserted row (the dialect numbers and bumps as Core Data does).
    private mutating func link(_ link: ManyToMany, table: TableInfo, key: [(column: String, value: SQLValue)]) throws {
        guard let coreData = dialect as? CoreDataDialect,
              let owner = try SQLValue.fetchOne(db, sql: coreData.primaryKeySQL(from: table.name, where: predicate(table, key)), arguments: StatementArguments(values: key)) else { return }
        memo.changedRows()
        try coreData.link(db, join: link.join, owner: owner, members: link.members, memberTable: link.destination)
    }

    /// Updates a row where it still holds `from`. An update may change key columns (a rename):
    /// the row keeps its identity, and rows that store the renamed value follow it.
    mutating func update(_ change: DataChanges.RowChange, in table: TableInfo, file: String, slot: Slot?) throws -> Attempt {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else { return .done }
        let keyText = RowEvent.describe(key: fields)
        if dialect is CoreDataDialect, let column = change.to.values.map(\.column).first(where: { table.column(dialect.columnName($0)) == nil && writtenRefs[table.name]?[dialect.columnName($0).lowercased()] != nil }) {
            errors.append(Diagnostic(file: file, line: change.line, code: .configuration, message: "update of \(written(table)) \(keyText) changes the many-to-many relationship '\(column)', which seedkit does not change in updates yet; nothing was written", table: table.name))
            return .done
        }
        for column in change.to.values.map(\.column) where change.from[column] == nil {
            errors.append(Diagnostic(file: file, line: change.line, code: .configuration, message: "update of \(table.name) \(keyText) sets '\(column)' without a 'from' value; add what the previous seed shipped, so that a user's edit is never overwritten", table: table.name))
            return .done
        }
        let errorCount = errors.count
        let fromResolution = try resolve(change.from, in: table)
        let toResolution = try resolve(change.to, in: table)
        if errors.count > errorCount { return .done }
        // A new parent that a later change of the run inserts: wait for it.
        if !toResolution.missing.isEmpty { return .waiting(key: fields, missing: toResolution.missing, provides: []) }
        if let parent = fromResolution.missing.first {
            fill(slot, conflict(table, line: change.line, file: file, key: fields, "its 'from' \(missingText(parent)); row not updated"))
            return .done
        }
        let from = fromResolution.values, to = toResolution.values
        let newKey = key.map { part in to.first { $0.column.lowercased() == part.column.lowercased() }.map { (column: part.column, value: $0.value) } ?? part }
        let renames = !zip(key, newKey).allSatisfy { $0.value.isSame(as: $1.value) }
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            if rows.isEmpty, renames, let renamed = try fetch(table, newKey).first, matches(renamed, to) {
                fill(slot, event(.upToDate, table, line: change.line, file: file, key: fields, "already up to date (renamed to \(try describeKey(newKey, in: table, input: change.to)))"))
                return .done
            }
            fill(slot, rows.isEmpty
                ? event(.missing, table, line: change.line, file: file, key: fields, "not in the store (deleted by the user?); nothing to update")
                : event(.conflict, table, line: change.line, file: file, key: fields, "\(rows.count) rows have this key; none updated"))
            return .done
        }
        if matches(current, to) {
            fill(slot, event(.upToDate, table, line: change.line, file: file, key: fields, "already up to date"))
            return .done
        }
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false, in: table)
            fill(slot, conflict(table, line: change.line, file: file, key: fields, changes: changes, "changed in the store (\(changed)); the store's values are kept"))
            return .done
        }
        if renames, try count(table, newKey) > 0 {
            if let later = try renamedAwayLater(newKey, in: table, file: file) {
                // A swap or rotation: SQLite holds one row per key at every step, so applying these
                // one by one would leave each a conflict and record the migration as applied.
                let target = try describeKey(newKey, in: table, input: change.to)
                errors.append(Diagnostic(file: file, line: change.line, code: .configuration, message: """
                    update of \(written(table)) \(keyText) renames it to \(target), which the update at line \(later.line) renames away later in this migration: \
                    a key is held by one row at every step. List that update first; for a swap or a rotation, rename through a key no row has \
                    (A → A-old, B → A, A-old → B); nothing was written
                    """, table: table.name))
                return .done
            }
            let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false, in: table)
            fill(slot, conflict(table, line: change.line, file: file, key: fields, changes: changes,
                                "the new key \(try describeKey(newKey, in: table, input: change.to)) is already taken by another row; not renamed"))
            return .done
        }
        if let validator = options.validator {
            errors += validator.validate(table: written(table), values: written(to, as: change.to), file: file, line: change.to.line)
        }
        memo.changedRows()
        do {
            // The row first, then what refers to it by value: nothing of theirs moves unless the row did.
            if renames { try db.execute(sql: "PRAGMA defer_foreign_keys = ON") }
            guard try dialect.update(db, table: table, key: key, values: to, references: parentTables(of: table)) > 0 else {
                let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false, in: table)
                fill(slot, conflict(table, line: change.line, file: file, key: fields, changes: changes, "not updated: \(try TriggerVeto.reason(db, table: table.name, event: "UPDATE"))"))
                return .done
            }
            if renames { try followRename(of: table, row: current, to: to) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            var merged = current.map { (column: $0.key, value: $0.value) }
            merged.removeAll { row in to.contains { $0.column.lowercased() == row.column.lowercased() } }
            if let collision = try schemaCollision(error, in: table, values: merged + to) {
                let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false, in: table)
                fill(slot, conflict(table, line: change.line, file: file, key: fields, changes: changes, "not updated: \(collision)"))
                return .done
            }
            errors.append(Diagnostic(file: file, line: change.line, code: constraintCode(error), message: "cannot update \(table.name) \(keyText): \(error.message ?? "constraint failed")", table: table.name))
            return .done
        }
        var described: [String] = []
        for (column, value) in to {
            described.append("\(column) \(try shown(current[column.lowercased()] ?? .null, column: column, in: table)) → \(try shown(value, column: column, in: table))")
        }
        let description = described.joined(separator: ", ")
        let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: true, in: table)
        fill(slot, event(.updated, table, line: change.line, file: file, key: fields, changes: changes, description))
        if renames {
            var values = current.filter { $0.key != Self.rowidKey }.map { (column: $0.key, value: $0.value) }
            values += to
            queue.appeared(table.name, values)
        }
        return .done
    }
    /// The later update of the operation being applied whose key is `key` and which changes it
    /// (renames that row away), if one does.
    private mutating func renamedAwayLater(_ key: [(column: String, value: SQLValue)], in table: TableInfo, file: String) throws -> DataChanges.RowChange? {
        let errorCount = errors.count
        defer { errors.removeSubrange(errorCount...) }  // a later update's own problems are reported when it is applied
        for later in laterUpdates {
            guard let (laterKey, _) = try resolveKey(later.key, in: table, file: file, line: later.line),
                  zip(laterKey, key).allSatisfy({ $0.value.isSame(as: $1.value) }) else { continue }
            let renamed = laterKey.contains { part in
                later.to.values.contains { $0.column.lowercased() == part.column.lowercased() || dialect.columnName($0.column).lowercased() == part.column.lowercased() }
            }
            if renamed { return later }
        }
        return nil
    }

    private mutating func describeKey(_ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues) throws -> String {
        RowEvent.describe(key: try keyFields(key, in: table, input: input))
    }

    /// Rows that store a renamed column's value (a FOREIGN KEY or a manifest ref to that column,
    /// not to the row's id) are changed to the new value, so that they still point at the row.
    private mutating func followRename(of table: TableInfo, row current: [String: SQLValue], to: [(column: String, value: SQLValue)]) throws {
        let changed = to.filter { !(current[$0.column.lowercased()] ?? .null).isSame(as: $0.value) }
        var followers: [(child: String, column: String, old: SQLValue, new: SQLValue)] = []
        for childName in try TableInfo.userTables(db) {
            let child = try tableInfo(childName, file: "")
            var columns = Set<String>()
            for key in child.foreignKeys where key.columns.count == 1 && key.parent.lowercased() == table.name.lowercased() { columns.insert(key.columns[0]) }
            for (column, reference) in references(of: childName) where reference.table.lowercased() == table.name.lowercased() {
                columns.insert(child.column(column)?.name ?? column)
            }
            for column in columns.sorted() {
                guard let target = child.referencedColumn(of: column, in: table)?.lowercased(),
                      let new = changed.first(where: { $0.column.lowercased() == target }), let old = current[target], old != .null else { continue }
                followers.append((child.name, column, old, new.value))
            }
        }
        guard !followers.isEmpty else { return }
        // The parent and its children change one after the other: check foreign keys at commit.
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        for follower in followers {
            try db.execute(sql: "UPDATE \(quoteIdentifier(follower.child)) SET \(quoteIdentifier(follower.column)) = ? WHERE \(quoteIdentifier(follower.column)) IS ?",
                           arguments: [follower.new, follower.old])
        }
    }

    /// A delete's outcome: done (deleted, missing, a conflict, or nothing on an error), or blocked
    /// by a row that still refers to it.
    enum DeleteOutcome {
        case done(RowEvent?)
        case blocked(BlockedDelete)
    }

    /// A delete a row still refers to: the row it found (by its resolved key), and what to report if it stays blocked.
    struct BlockedDelete {
        var slot = Slot(migration: 0, index: 0)
        var operationName: String
        var table: TableInfo
        var key: [(column: String, value: SQLValue)]
        var file: String
        var line: Int
        var denied: RowEvent
        var error: Diagnostic
    }

    private mutating func delete(_ change: DataChanges.RowChange, from table: TableInfo, file: String) throws -> DeleteOutcome {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else { return .done(nil) }
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            return .done(rows.isEmpty
                ? event(.missing, table, line: change.line, file: file, key: fields, "not in the store; nothing to delete")
                : event(.conflict, table, line: change.line, file: file, key: fields, "\(rows.count) rows have this key; none deleted"))
        }
        let errorCount = errors.count
        let resolution = try resolve(change.from, in: table)
        if errors.count > errorCount { return .done(nil) }
        if let parent = resolution.missing.first {
            return .done(conflict(table, line: change.line, file: file, key: fields, "its 'from' \(missingText(parent)); row not deleted"))
        }
        let from = resolution.values
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(from: written(from, as: change.from), to: [], current: current, applied: false, in: table)
            return .done(conflict(table, line: change.line, file: file, key: fields, changes: changes, "changed in the store (\(changed)); not deleted"))
        }
        return try deleteUnlessReferenced(current, key: key, fields: fields, in: table, file: file, line: change.line)
    }

    /// Deletes `current` (found by `key`, checked against `from`) unless a row still refers to it.
    private mutating func deleteUnlessReferenced(_ current: [String: SQLValue], key: [(column: String, value: SQLValue)], fields: [RowEvent.KeyValue],
                                                 in table: TableInfo, file: String, line: Int) throws -> DeleteOutcome {
        // Many-to-many links follow the relationships' deletion rules (Nullify: they go with the row).
        let joined = try (dialect as? CoreDataDialect)?.manyToManyDeleteBlock(db, entityNumber: current["z_ent"] ?? .null, primaryKey: current["z_pk"] ?? .null)
        if let reason = try joined ?? referrer(of: current, in: table).map({ "still referenced by \($0)" }) {
            return .blocked(BlockedDelete(
                operationName: operationName, table: table, key: key, file: file, line: line,
                denied: RowEvent(kind: .deleteDenied, table: written(table), key: fields, detail: "\(reason); not deleted", file: file, line: line),
                error: Diagnostic(file: file, line: line, code: .deleteDenied, message: "cannot delete \(written(table)) \(RowEvent.describe(key: fields)): \(reason)", table: table.name)))
        }
        memo.changedRows()
        guard try dialect.delete(db, from: table, key: key, references: parentTables(of: table)) > 0 else {
            return .done(conflict(table, line: line, file: file, key: fields, "not deleted: \(try TriggerVeto.reason(db, table: table.name, event: "DELETE"))"))
        }
        return .done(event(.deleted, table, line: line, file: file, key: fields, "deleted"))
    }

    // MARK: - Resolving

    mutating func tableInfo(_ name: String, file: String) throws -> TableInfo {
        if let info = tables[name] { return info }
        writtenTableNames[dialect.tableName(name)] = writtenTableNames[dialect.tableName(name)] ?? name
        guard !SeedCatalog.isInternal(name), let info = try TableInfo.read(db, table: dialect.tableName(name)) else {
            throw SeedError(.configuration, file: file, "unknown table '\(name)': the store has \(try TableInfo.userTables(db).joined(separator: ", "))")
        }
        let adjusted = dialect.adjusted(info)
        tables[name] = adjusted
        return adjusted
    }

    private mutating func keyColumns(_ table: TableInfo, file: String, line: Int) throws -> [String] {
        try Self.keyColumns(table, spec: spec(table), file: file, line: line)
    }

    /// The natural key `spec` gives `table`, or else its primary key.
    private static func keyColumns(_ table: TableInfo, spec: TableSpec?, file: String, line: Int) throws -> [String] {
        if let key = spec?.key, !key.isEmpty { return key }
        let primaryKey = table.primaryKey
        guard !primaryKey.isEmpty else {
            throw SeedError(.configuration, file: file, line: line, "table \(table.name) has no primary key and no natural key; give it a `key:` in the manifest")
        }
        return primaryKey
    }

    /// A change's key, resolved (refs → parent ids) for finding the row, and as the report shows it.
    private mutating func resolveKey(_ key: DataChanges.Key, in table: TableInfo, file: String, line: Int) throws -> ([(column: String, value: SQLValue)], [RowEvent.KeyValue])? {
        let columns = try keyColumns(table, file: file, line: line)
        let row: DataChanges.RowValues
        switch key {
        case .single(let value):
            guard columns.count == 1 else {
                errors.append(Diagnostic(file: file, line: line, code: .configuration, message: "\(table.name) has a composite key (\(columns.joined(separator: ", "))); write the key as a map of column: value", table: table.name))
                return nil
            }
            row = DataChanges.RowValues(values: [(columns[0], value)], line: line, file: file)
        case .columns(let values):
            let given = Set(values.values.map { dialect.columnName($0.column).lowercased() })
            guard given == Set(columns.map { $0.lowercased() }) else {
                errors.append(Diagnostic(file: file, line: line, code: .configuration, message: "the key of \(table.name) is (\(columns.joined(separator: ", "))), but this key names (\(values.values.map(\.column).joined(separator: ", ")))", table: table.name))
                return nil
            }
            row = values
        }
        let errorCount = errors.count
        let resolution = try resolve(row, in: table)
        if let parent = resolution.missing.first {
            errors.append(Diagnostic(file: file, line: line, code: .unresolvedReference, message: "the key of this \(table.name) row: \(missingText(parent))", table: table.name))
            return nil
        }
        if errors.count > errorCount { return nil }
        if let empty = resolution.values.first(where: { $0.value == .null }) {
            errors.append(Diagnostic(file: file, line: line, code: .missingRequired, message: "the key of this \(table.name) row has no value for '\(empty.column)'; a key must have one", table: table.name))
            return nil
        }
        return (resolution.values, try keyFields(resolution.values, in: table, input: row))
    }

    /// A row's values converted to the columns' types, refs to the parents' ids.
    struct Resolution {
        var values: [(column: String, value: SQLValue)] = []
        /// Refs whose parent row is not in the store.
        var missing: [MissingParent] = []
    }

    /// Converts a row's values to the columns' types and refs to the parents' ids. Parents not
    /// in the store are listed in ``Resolution/missing``; other problems go to `errors`.
    private mutating func resolve(_ row: DataChanges.RowValues, in table: TableInfo) throws -> Resolution {
        var result = Resolution()
        result.values.reserveCapacity(row.values.count)  // rows of a big migration: no regrowing
        let plan = columnPlan(for: row, in: table)
        for (index, (column, input)) in row.values.enumerated() {
            guard let info = plan[index].info, let type = plan[index].type else {
                errors.append(Diagnostic(file: row.file, line: row.line, code: .unknownColumn, message: "\(table.name) has no column '\(column)' (it has \(table.columns.map(\.name).joined(separator: ", ")))", table: table.name))
                continue
            }
            if let reference = plan[index].reference, input != .null {
                switch try resolveReference(reference, from: table, column: info, written: column, input: input, row: row) {
                case .found(let id): result.values.append((info.name, id))
                case .missing(let parent): result.missing.append(parent)
                case .failed: break
                }
                continue
            }
            switch type.convert(input) {
            case .success(let value): result.values.append((info.name, value))
            case .failure(let failure):
                errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(table.name).\(info.name): \(input) is not \(failure.expected) (the column is \(info.declaredType.isEmpty ? "untyped" : info.declaredType))", table: table.name))
            }
        }
        return result
    }

    /// The columns `row` names in `table`: what ``resolve(_:in:)`` looks up, once per row shape.
    private mutating func columnPlan(for row: DataChanges.RowValues, in table: TableInfo) -> [ColumnPlan] {
        if let last = memo.columns, last.value.table == table.name, last.value.operation == operationName,
           last.value.names.count == row.values.count, zip(last.value.names, row.values).allSatisfy({ $0 == $1.column }) {
            return last.value.plan
        }
        let references = references(of: table.name)
        let plan = row.values.map { column, _ in
            let info = table.column(dialect.columnName(column))
            return ColumnPlan(info: info, type: info.map(dialect.columnType), reference: info.flatMap { references[$0.name.lowercasedName] })
        }
        memo.columns = RunMemo.Box((table.name, operationName, row.values.map(\.column), plan))
        return plan
    }

    private enum ReferenceResolution {
        case found(SQLValue)
        case missing(MissingParent)
        /// A problem already in `errors`.
        case failed
    }

    private mutating func resolveReference(_ reference: TableSpec.Reference, from table: TableInfo, column: ColumnInfo, written: String, input: InputValue, row: DataChanges.RowValues) throws -> ReferenceResolution {
        // The rows of a big migration name the same few parents at the same site: an id found
        // there before needs neither the parent's facts nor a lookup.
        if let last = memo.lastReference, last.value.site.table == table.name, last.value.site.column == column.name, last.value.site.reference == reference,
           case .success(let keyValue) = last.value.type.convert(input), let id = last.value.ids.ids[keyValue] {
            return .found(id)
        }
        let parent = try tableInfo(reference.table, file: row.file)
        guard let parentKey = parent.column(reference.column) else {
            errors.append(Diagnostic(file: row.file, line: row.line, code: .configuration, message: "ref \(table.name).\(column.name) → \(reference) names a column \(parent.name) lacks", table: table.name))
            return .failed
        }
        let keyValue: SQLValue
        let type = dialect.columnType(parentKey)
        switch type.convert(input) {
        case .success(let value): keyValue = value
        case .failure(let failure):
            errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(table.name).\(column.name): \(input) is not \(failure.expected) (a key of \(reference))", table: table.name))
            return .failed
        }
        let site = RunMemo.ParentLookupSite(table: table.name, column: column.name, reference: reference)
        let known = memo.parentIDs(at: site, parent: parent.name)
        memo.lastReference = known.map { RunMemo.Box((site, type, $0)) }
        if let id = known?.ids[keyValue] { return .found(id) }
        let memoKey = RunMemo.Key(kind: .lookup, table: table.name, operation: "", columns: [column.name, reference.table, reference.column])
        let lookup: Statement
        if let known = memo.statements[memoKey] { lookup = known } else {
            let target = table.referenceTarget(of: column.name, in: parent)
            // A ref to a Core Data entity matches only that entity's rows (and its sub-entities').
            let entityRows = dialect.rowFilter(reference.table).map { " AND \($0)" } ?? ""
            lookup = try prepare(memoKey, sql: "SELECT \(target) FROM \(quoteIdentifier(parent.name)) WHERE \(quoteIdentifier(parentKey.name)) IS ?\(entityRows) LIMIT 1")
        }
        if let id = try lookup.firstValue(binding: CollectionOfOne(keyValue)), id != .null {  // NULL: no parent, as GRDB's fetchOne says
            known?.ids[keyValue] = id
            return .found(id)
        }
        let isKey = spec(table)?.key.contains { $0.lowercased() == column.name.lowercased() } ?? false
        return .missing(MissingParent(
            key: ParentKey(table: parent.name, column: parentKey.name, value: keyValue), column: written,
            reference: writtenRefs[table.name]?[column.name.lowercased()]?.reference ?? reference, input: input, type: type,
            nullable: !column.notNull && column.primaryKeyIndex == 0 && !isKey))
    }

    /// `parent_id 'NO-03' matches no subdivisions.code in the store`: a missing parent, for messages.
    func missingText(_ parent: MissingParent) -> String {
        "\(parent.column) \(describe(Self.sqlText(parent.input))) matches no \(parent.reference) in the store"
    }

    /// Who still references `row` (through a FOREIGN KEY or a manifest ref), or nil.
    private mutating func referrer(of row: [String: SQLValue], in table: TableInfo) throws -> String? {
        for childName in try TableInfo.userTables(db) {
            let child = try tableInfo(childName, file: "")
            for key in child.foreignKeys where key.parent.lowercased() == table.name.lowercased() {
                let parentColumns = key.parentColumns.isEmpty ? table.primaryKey : key.parentColumns
                guard parentColumns.count == key.columns.count, !parentColumns.isEmpty else { continue }
                let values = parentColumns.map { row[$0.lowercased()] ?? .null }
                if values.contains(.null) { continue }
                if try count(child, zip(key.columns, values).map { (column: $0.0, value: $0.1) }) > 0 {
                    return "\(child.name).\(key.columns.joined(separator: ", "))"
                }
            }
            // Refs the manifest declares without a FOREIGN KEY in the schema.
            for (column, reference) in references(of: childName) where dialect.tableName(reference.table).lowercased() == table.name.lowercased()
                && child.column(column) != nil  // a many-to-many relationship has no column: its join table is checked by the dialect
                && !child.foreignKeys.contains(where: { $0.columns.count == 1 && $0.columns[0].lowercased() == column }) {
                let target = child.referencedColumn(of: column, in: table)?.lowercased() ?? Self.rowidKey
                let value = row[target] ?? .null
                if value != .null, try count(child, [(column, value)]) > 0 { return "\(childName).\(column)" }
            }
        }
        return nil
    }

    // MARK: - Helpers

    /// The name the migration used for a table (an entity, for Core Data), for validators that speak the manifest's language.
    func written(_ table: TableInfo) -> String {
        dialect.tableName(operationName) == table.name ? operationName : writtenTableNames[table.name] ?? table.name
    }

    /// Resolved values with the column names the migration wrote.
    private func written(_ values: [(column: String, value: SQLValue)], as row: DataChanges.RowValues) -> [(column: String, value: SQLValue)] {
        // Plain SQLite and every column written as the schema spells it: the names are the ones written.
        if plainSQLite, values.count == row.values.count, zip(values, row.values).allSatisfy({ $0.column == $1.column }) { return values }
        return values.map { value in
            // The last name written for the column (rows are a handful of columns: no dictionary per row).
            let lowered = value.column.lowercasedName
            var name: String?
            for (column, _) in row.values where sameName(dialect.columnName(column), lowered) { name = column }
            return (name ?? value.column, value.value)
        }
    }

    /// A table's relationship columns → their parent tables, for the dialect's bookkeeping.
    mutating func parentTables(of table: TableInfo) -> [String: String] {
        if let last = memo.parentTables, last.table == table.name, last.operation == operationName { return last.value }
        var result: [String: String] = [:]
        // A to-many relationship named in refs has no column (its links live in a join table).
        for (column, reference) in spec(table)?.refs ?? [:] {
            if let name = table.column(column)?.name { result[name] = dialect.tableName(reference.table) }
        }
        for key in table.foreignKeys where key.columns.count == 1 { result[key.columns[0]] = result[key.columns[0]] ?? key.parent }
        memo.parentTables = (table.name, operationName, result)
        return result
    }

    /// A table's refs by lower-cased column name.
    private mutating func references(of table: String) -> [String: TableSpec.Reference] {
        if let last = memo.references, last.table == table, last.operation == operationName { return last.value }
        let own = dialect.tableName(operationName) == table
        let id = own ? "\(table)/\(operationName)" : table
        var result: [String: TableSpec.Reference] = [:]
        if let cached = referenceCache[id] { result = cached } else {
            for (column, reference) in (own ? ownSpec(table) : specs[table])?.refs ?? [:] { result[column.lowercased()] = reference }
            referenceCache[id] = result
        }
        memo.references = (table, operationName, result)
        return result
    }

    /// The spec of `table` as the current operation names it (a sub-entity's own, for Core Data).
    /// A Core Data sub-entity the manifest does not list takes its nearest listed ancestor's spec, never a sibling's.
    private mutating func spec(_ table: TableInfo) -> TableSpec? {
        if let last = memo.spec, last.value.table == table.name, last.value.operation == operationName { return last.value.value }
        let spec = dialect.tableName(operationName) == table.name ? ownSpec(table.name) : specs[table.name]
        memo.spec = RunMemo.Box((table.name, operationName, spec))
        return spec
    }

    private func ownSpec(_ table: String) -> TableSpec? {
        guard let coreData = dialect as? CoreDataDialect, coreData.entity(named: operationName) != nil else { return specsByName[operationName] ?? specs[table] }
        return coreData.lineageNames(of: operationName).lazy.compactMap { self.specsByName[$0] }.first
    }

    /// `Z_ENT IN (…)` when `table` is the table of the operation's Core Data entity: its rows only.
    private func rowFilter(_ table: TableInfo) -> String? {
        dialect.tableName(operationName) == table.name ? dialect.rowFilter(operationName) : nil
    }

    /// `keyPredicate(key)`, restricted to the rows of the operation's entity.
    private func predicate(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) -> String {
        keyPredicate(key) + (rowFilter(table).map { " AND \($0)" } ?? "")
    }

    private mutating func count(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> Int {
        let statement = try memo.statement(.count, table: table.name, operation: operationName, columns: key.lazy.map { $0.column })
            ?? prepare(RunMemo.Key(kind: .count, table: table.name, operation: operationName, columns: key.map { $0.column }),
                       sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key))")
        guard case .integer(let count)? = try statement.firstValue(binding: key.lazy.map { $0.value }) else { return 0 }
        return Int(count)
    }

    /// Where ``fetch(_:_:)`` puts a row's rowid.
    static let rowidKey = "_seedkit_rowid"

    /// The rows with `key`, each as lower-cased column name → value (and the rowid under ``rowidKey``).
    private func fetch(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> [[String: SQLValue]] {
        let rowid = table.withoutRowID ? "" : ", rowid AS \(quoteIdentifier(Self.rowidKey))"
        return try Row.fetchAll(db.cachedStatement(sql: "SELECT *\(rowid) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key)) LIMIT 2"), arguments: StatementArguments(values: key)).map { row in
            var values: [String: SQLValue] = [:]
            for (column, dbValue) in row { values[column.lowercased()] = SQLValue.fromDatabaseValue(dbValue) ?? .null }
            return values
        }
    }

    private func matches(_ current: [String: SQLValue], _ values: [(column: String, value: SQLValue)]) -> Bool {
        values.allSatisfy { (current[$0.column.lowercased()] ?? .null).isSame(as: $0.value) }
    }

    /// `price is 13, expected 10` for each column that differs (refs by the parent's key).
    private mutating func mismatches(_ current: [String: SQLValue], _ values: [(column: String, value: SQLValue)], in table: TableInfo) throws -> String {
        var found: [String] = []
        for (column, expected) in values {
            let actual = current[column.lowercased()] ?? .null
            if !actual.isSame(as: expected) {
                found.append("\(column) is \(try shown(actual, column: column, in: table)), expected \(try shown(expected, column: column, in: table))")
            }
        }
        return found.joined(separator: "; ")
    }

    /// The parent row a stored ref value names, by its natural key; nil for columns that are not
    /// refs, NULL, and ids no parent row has (shown as stored).
    private mutating func parent(of value: SQLValue?, column: String, in table: TableInfo) throws -> RowEvent.Reference? {
        let lowered = dialect.columnName(column).lowercased()
        guard let value, value != .null, let reference = references(of: table.name)[lowered] ?? references(of: table.name)[column.lowercased()],
              let sqlColumn = table.column(dialect.columnName(column)) ?? table.column(column) else { return nil }
        let parentTable = try tableInfo(reference.table, file: "")
        guard let keyColumn = parentTable.column(reference.column),
              let key = try SQLValue.fetchOne(db.cachedStatement(sql: table.parentKeyLookupSQL(of: sqlColumn.name, parent: parentTable, keyColumn: keyColumn.name)), arguments: [value]) else { return nil }
        let shown = writtenRefs[table.name]?[sqlColumn.name.lowercased()]?.reference
        return RowEvent.Reference(table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name, value: key)
    }

    /// A value as the report shows it: a ref by its parent's key.
    private mutating func shown(_ value: SQLValue, column: String, in table: TableInfo) throws -> String {
        RowEvent.describe(value, parent: try parent(of: value, column: column, in: table))
    }

    mutating func conflict(_ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue], changes: [RowEvent.ColumnChange] = [], _ detail: String) -> RowEvent {
        if options.onConflict == .fail {
            // The detail ends with what `keep` does ("; the store's values are kept"); under `fail` nothing is written.
            let reason = detail.range(of: "; ", options: .backwards).map { String(detail[..<$0.lowerBound]) } ?? detail
            errors.append(Diagnostic(file: file, line: line, code: .conflict, message: "conflict on \(written(table)) \(RowEvent.describe(key: key)): \(reason); --on-conflict fail: nothing was written", table: table.name))
        }
        return RowEvent(kind: .conflict, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    mutating func event(_ kind: RowEvent.Kind, _ table: TableInfo, row: DataChanges.RowValues, key: [RowEvent.KeyValue], _ detail: String) -> RowEvent {
        event(kind, table, line: row.line, file: row.file, key: key, detail)
    }

    mutating func event(_ kind: RowEvent.Kind, _ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue], changes: [RowEvent.ColumnChange] = [], _ detail: String) -> RowEvent {
        kind == .conflict
            ? conflict(table, line: line, file: file, key: key, changes: changes, detail)
            : RowEvent(kind: kind, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    /// A resolved key as a report shows it: columns by the names migrations use, and each ref
    /// column with its parent's natural key (converted from what the migration wrote).
    mutating func keyFields(_ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues) throws -> [RowEvent.KeyValue] {
        var fields: [RowEvent.KeyValue] = []
        fields.reserveCapacity(key.count)
        let shapes = keyFieldShapes(key, in: table, input: input)
        for ((column, value), shape) in zip(key, shapes) {
            var parent: RowEvent.Reference?
            if let reference = shape.reference, let given = shape.given, case let writtenKey = input.values[given].value, writtenKey != .null {
                let parentTable = try tableInfo(reference.table, file: input.file)
                if let keyColumn = parentTable.column(reference.column), case .success(let parentKey) = dialect.columnType(keyColumn).convert(writtenKey) {
                    let shown = writtenRefs[table.name]?[column.lowercasedName]?.reference
                    parent = RowEvent.Reference(table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name, value: parentKey)
                }
            }
            fields.append(RowEvent.KeyValue(column: shape.name, value: value, parent: parent))
        }
        return fields
    }

    /// For each key column, as ``keyFields(_:in:input:)`` shows it: the name migrations use, the
    /// position of the value the row wrote for it, and its ref. Worked out once per row shape.
    private mutating func keyFieldShapes(_ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues) -> [KeyFieldShape] {
        if let last = memo.keyFields, last.table == table.name, last.operation == operationName,
           last.key.elementsEqual(key.lazy.map(\.column)), last.names.elementsEqual(input.values.lazy.map(\.column)) {
            return last.shapes
        }
        let shapes = key.map { column, _ in
            let lowered = column.lowercasedName
            // What the migration wrote for the column: the last value under a name that maps to it,
            // else the first under its own name.
            var given: Int?
            for (index, (name, _)) in input.values.enumerated() {
                if sameName(dialect.columnName(name), lowered) { given = index }
                else if given == nil, sameName(name, lowered) { given = index }
            }
            let name = writtenColumnNames[table.name]?[lowered] ?? given.map { input.values[$0].column } ?? column
            return KeyFieldShape(name: name, given: given, reference: references(of: table.name)[lowered])
        }
        memo.keyFields = (table.name, operationName, key.map(\.column), input.values.map(\.column), shapes)
        return shapes
    }

    /// Each column of `from` and `to` (in `to`'s order, then `from`'s), with what the store holds after the run.
    /// Ref columns carry their parents' keys.
    private mutating func columnChanges(from: [(column: String, value: SQLValue)], to: [(column: String, value: SQLValue)], current: [String: SQLValue], applied: Bool, in table: TableInfo) throws -> [RowEvent.ColumnChange] {
        var changes: [RowEvent.ColumnChange] = []
        for (column, value) in to {
            let old = from.first { $0.column.lowercased() == column.lowercased() }?.value
            changes.append(RowEvent.ColumnChange(column: column, old: old, new: value, kept: applied ? value : current[dialect.columnName(column).lowercased()] ?? current[column.lowercased()] ?? .null))
        }
        for (column, value) in from where !to.contains(where: { $0.column.lowercased() == column.lowercased() }) {
            changes.append(RowEvent.ColumnChange(column: column, old: value, new: nil, kept: current[dialect.columnName(column).lowercased()] ?? current[column.lowercased()] ?? .null))
        }
        for index in changes.indices {
            let column = changes[index].column
            changes[index].oldParent = try parent(of: changes[index].old, column: column, in: table)
            changes[index].newParent = try parent(of: changes[index].new, column: column, in: table)
            changes[index].keptParent = try parent(of: changes[index].kept, column: column, in: table)
        }
        return changes
    }

    func describe(_ value: SQLValue) -> String { RowEvent.describe(value) }

    /// Why a write SQLite refused as a UNIQUE or PRIMARY KEY failure is a collision the schema
    /// expects, not a broken migration: another row holds the value, and the schema declares
    /// `ON CONFLICT REPLACE` (which would have deleted that row) or `IGNORE` (which would have
    /// dropped this one) for the constraint. seedkit's statements name `OR ABORT`, so neither
    /// happened; the row is reported as not applied, with the row that holds the value. Nil for
    /// other failures (an error, as ever).
    private mutating func schemaCollision(_ error: DatabaseError, in table: TableInfo, values: [(column: String, value: SQLValue)]) throws -> String? {
        guard error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY,
              let columns = ConflictClauses.columns(inConstraintMessage: error.message ?? ""),
              let clause = try ConflictClauses.read(db, table: table.name).uniqueClause(on: columns),
              clause.algorithm == "REPLACE" || clause.algorithm == "IGNORE" else { return nil }
        let held = columns.map { column in values.last { $0.column.lowercased() == column.lowercased() }?.value ?? .null }
        let heldText = zip(columns, held).map { "\($0) \(RowEvent.describe($1))" }.joined(separator: ", ")
        let keyColumns = (spec(table)?.key.isEmpty == false ? spec(table)?.key.map { dialect.columnName($0) } : nil) ?? (table.primaryKey.isEmpty ? ["rowid"] : table.primaryKey)
        let holder = try Row.fetchOne(db, sql: "SELECT \(keyColumns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table.name)) WHERE \(columns.map { "\(quoteIdentifier($0)) IS ?" }.joined(separator: " AND "))",
                                      arguments: StatementArguments(held.map { $0.databaseValue }))
        var holderText = "another row"
        if let holder {
            holderText = "the store's row " + holder.databaseValues.map { RowEvent.describe(SQLValue.fromDatabaseValue($0) ?? .null) }.joined(separator: " / ")
        }
        let constraint = "\(written(table)).\(columns.joined(separator: ", "))"
        if clause.algorithm == "REPLACE" {
            return "its \(heldText) is held by \(holderText); the schema's ON CONFLICT REPLACE on \(constraint) would delete that row, so it is kept and this one is not written"
        }
        return "ignored by the schema's ON CONFLICT IGNORE on \(constraint): its \(heldText) is held by \(holderText)"
    }

    private func constraintCode(_ error: DatabaseError) -> DiagnosticCode {
        let message = error.message ?? ""
        if message.hasPrefix("NOT NULL") { return .missingRequired }
        if message.hasPrefix("UNIQUE") { return .duplicateKey }
        if message.hasPrefix("FOREIGN KEY") { return .unresolvedReference }
        return .otherRule
    }
}
