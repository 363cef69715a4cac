import GRDB

/// What a run works out once per table (as the current operation names it) and reuses for each
/// row: a big migration writes the same table 100,000 times in a row, and building SQL text,
/// hashing it for GRDB's statement cache and lower-casing names for every row cost more than
/// SQLite's own work. Reset when the schema may have changed (after a SQL migration).
struct RunMemo {
    /// A prepared statement's purpose and what its SQL depends on.
    struct Key: Hashable {
        enum Kind: Hashable { case count, lookup, insert, insertUnlessPresent }
        var kind: Kind
        var table: String
        var operation: String
        var columns: [String]
    }

    var statements: [Key: Statement] = [:]
    /// The last statement found for each kind, looked at before ``statements``: a big migration
    /// asks for the same one 100,000 times in a row, and a key to hash is an array of names.
    var last: [Key.Kind: (key: Key, statement: Statement)] = [:]

    /// The statement for the kind, table, operation and columns, if one was prepared.
    mutating func statement(_ kind: Key.Kind, table: String, operation: String, columns: some Collection<String>) -> Statement? {
        if let last = last[kind], last.key.table == table, last.key.operation == operation, last.key.columns.elementsEqual(columns) {
            return last.statement
        }
        let key = Key(kind: kind, table: table, operation: operation, columns: Array(columns))
        guard let statement = statements[key] else { return nil }
        last[kind] = (key, statement)
        return statement
    }
    /// The last row shape's columns (``MigrationRun/columnPlan(for:in:)``), by table, operation and names written.
    /// (This and the other per-row memos are boxed: checking one retains one object, not each of its strings.)
    var columns: Box<(table: String, operation: String, names: [String], plan: [ColumnPlan])>?
    /// The last table's spec (``MigrationRun/spec(_:)``), by table and operation.
    var spec: Box<(table: String, operation: String, value: TableSpec?)>?
    /// The last table's refs (``MigrationRun/references(of:)``), by table and operation.
    var references: (table: String, operation: String, value: [String: TableSpec.Reference])?
    /// The last row shape's key fields (``MigrationRun/keyFields(_:in:input:)``), by table,
    /// operation, key columns and the names the row wrote.
    var keyFields: (table: String, operation: String, key: [String], names: [String], shapes: [KeyFieldShape])?
    /// The last table's relationship columns → parent tables, by table and operation.
    var parentTables: (table: String, operation: String, value: [String: String])?
    /// Parent ids refs found, by lookup site (the child's table and ref column, and the ref),
    /// then by the parent's key value: a big migration names the same few parents (a category by
    /// name) in 100,000 rows. An entry holds while nothing else writes the parent's table: an
    /// insert into a table forgets its entries; an update or delete (which may rename or remove a
    /// parent, or change other rows through foreign keys) forgets them all. Nil when the store has
    /// triggers, which may change any table on any write.
    var parentIDs: [ParentLookupSite: ParentIDs]?
    /// The last site a ref was looked up at, with the parent key's type and the ids found there
    /// (cleared in place with them): what the next row's same ref checks first.
    var lastReference: Box<(site: ParentLookupSite, type: ColumnType, ids: ParentIDs)>?

    /// An immutable value behind one reference.
    final class Box<Value> {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
    /// The boxes of ``parentIDs`` by parent table, and the last site asked about (rows of a big
    /// migration ask about the same one in a row: no hashing then).
    private var parentIDsByTable: [String: [ParentIDs]] = [:]
    private var lastSite: (site: ParentLookupSite, box: ParentIDs)?

    /// Where a ref is looked up: the child's table and ref column, and the ref.
    struct ParentLookupSite: Hashable {
        var table: String
        var column: String
        var reference: TableSpec.Reference
    }

    /// The parent ids found at one site (a class: the memo hands it out and clears it in place).
    final class ParentIDs {
        var ids: [SQLValue: SQLValue] = [:]
    }

    /// The parent ids found at `site` (looking up `parent`), or nil when they are not kept.
    mutating func parentIDs(at site: ParentLookupSite, parent: String) -> ParentIDs? {
        if let lastSite, lastSite.site == site { return lastSite.box }
        guard parentIDs != nil else { return nil }
        let box: ParentIDs
        if let known = parentIDs?[site] { box = known } else {
            box = ParentIDs()
            parentIDs?[site] = box
            parentIDsByTable[parent, default: []].append(box)
        }
        lastSite = (site, box)
        return box
    }

    /// Forgets the parent ids found in `table` (see ``parentIDs``).
    mutating func wrote(_ table: String) {
        guard let boxes = parentIDsByTable[table] else { return }
        for box in boxes where !box.ids.isEmpty { box.ids.removeAll() }
    }

    /// Forgets every parent id found (see ``parentIDs``).
    mutating func changedRows() {
        for box in parentIDs?.values ?? [:].values where !box.ids.isEmpty { box.ids.removeAll() }
    }

    /// By table and key columns: the conflict target (`"isbn"`) an insert names to skip a row
    /// whose key is there in the same statement, or nil where counting first is needed (see
    /// ``MigrationRun/insertsUnlessPresent(_:name:key:)``).
    var conflictTargets: [[String]: String?] = [:]
    /// The last of ``conflictTargets`` asked about (a big migration asks about one table 100,000 times).
    var lastConflictTarget: (id: [String], target: String?)?

    /// A memo for `db`'s schema: parent ids are kept unless a trigger, or a REPLACE conflict clause
    /// (an insert that deletes rows), could change a table seedkit does not write itself.
    static func reading(_ db: Database) throws -> RunMemo {
        var memo = RunMemo()
        let hidden = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' OR sql LIKE '%replace%')") ?? true
        memo.parentIDs = hidden ? nil : [:]
        return memo
    }
}

/// A key column as reports show it, worked out once per row shape: the name migrations use, the
/// position of the row's value for it, and the ref it is, if any.
struct KeyFieldShape {
    var name: String
    var given: Int?
    var reference: TableSpec.Reference?
}

/// A column a row names, worked out once per row shape: the column (nil: the table has none so
/// named), how values convert for it, and the ref it is, if any.
struct ColumnPlan {
    var info: ColumnInfo?
    var type: ColumnType?
    var reference: TableSpec.Reference?
}

extension MigrationRun {
    /// Inserts a row through the dialect; a plain SQLite INSERT is prepared once per table and
    /// column list. Returns the rows SQLite inserted: 0 when a trigger vetoed it (`RAISE(IGNORE)`).
    mutating func write(_ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String) throws -> Int {
        let changed: Int
        if let statement = memo.statement(.insert, table: table.name, operation: name, columns: values.lazy.map { $0.column }) {
            changed = try execute(statement, binding: values)
        } else if let sql = dialect.plainInsertSQL(into: table, columns: values.map { $0.column }) {
            changed = try execute(prepare(RunMemo.Key(kind: .insert, table: table.name, operation: name, columns: values.map { $0.column }), sql: sql), binding: values)
        } else {
            changed = try dialect.insert(db, into: table, name: name, values: values, references: parentTables(of: table))
        }
        if changed > 0 { memo.wrote(table.name) }
        return changed
    }

    /// Whether a row of `table` can be inserted unless its `key` is there in one statement
    /// (`INSERT … ON CONFLICT (key) DO NOTHING`) with the same outcome as counting rows with the
    /// key first: plain SQLite, a UNIQUE index or primary key on exactly the key's columns (no
    /// WHERE, no expression, a collation the conflict target matches), no triggers (a BEFORE
    /// INSERT trigger would fire for a row that is then not inserted) and no REPLACE clause.
    /// A big migration then probes the key's index once per row, not twice.
    mutating func insertsUnlessPresent(_ table: TableInfo, name: String, key: [String]) throws -> Bool {
        if let last = memo.lastConflictTarget, last.id.count == key.count + 2, last.id[0] == table.name, last.id[1] == name,
           last.id.dropFirst(2).elementsEqual(key) {
            return last.target != nil
        }
        let id = [table.name, name] + key
        if let known = memo.conflictTargets[id] {
            memo.lastConflictTarget = (id, known)
            return known != nil
        }
        var target: String?
        if memo.parentIDs != nil, !key.isEmpty, let sql = dialect.plainInsertSQL(into: table, columns: key) {
            let wanted = Set(key.map { $0.lowercased() })
            for index in try Row.fetchAll(db, sql: "SELECT name, \"unique\" AS isUnique, partial FROM pragma_index_list(?)", arguments: [table.name]) {
                guard index["isUnique"] as Int? == 1, index["partial"] as Int? == 0, let indexName = index["name"] as String? else { continue }
                let columns = try String?.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [indexName])
                guard columns.count == wanted.count, Set(columns.compactMap { $0?.lowercased() }) == wanted else { continue }
                let named = key.map { quoteIdentifier(table.column($0)?.name ?? $0) }.joined(separator: ", ")
                // SQLite refuses a target whose collation no index has: then count first.
                if (try? db.makeStatement(sql: sql + " ON CONFLICT (\(named)) DO NOTHING")) != nil { target = named }
                break
            }
        }
        memo.conflictTargets[id] = .some(target)
        return target != nil
    }

    /// Inserts a row unless its key is there (see ``insertsUnlessPresent(_:name:key:)``, which
    /// must have said yes); true when it was inserted.
    mutating func writeUnlessPresent(_ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String, key: [String]) throws -> Bool {
        let statement: Statement
        if let known = memo.statement(.insertUnlessPresent, table: table.name, operation: name, columns: values.lazy.map { $0.column }) {
            statement = known
        } else {
            guard let sql = dialect.plainInsertSQL(into: table, columns: values.map { $0.column }), let target = memo.conflictTargets[[table.name, name] + key] ?? nil else {
                throw SeedError(.configuration, "internal: no conflict target for \(table.name)")
            }
            statement = try prepare(RunMemo.Key(kind: .insertUnlessPresent, table: table.name, operation: name, columns: values.map { $0.column }),
                                    sql: sql + " ON CONFLICT (\(target)) DO NOTHING")
        }
        guard try execute(statement, binding: values) > 0 else { return false }
        memo.wrote(table.name)
        return true
    }

    /// Runs an INSERT with `values` bound: with SQLite's C API alone when the run may
    /// (``SeedMigrator/Options/writesDirectly``), else through GRDB, whose observers see it.
    /// Returns the rows it changed.
    @discardableResult
    private func execute(_ statement: Statement, binding values: [(column: String, value: SQLValue)]) throws -> Int {
        if options.writesDirectly {
            // As GRDB does before each statement: a constraint resolved by ROLLBACK (ON CONFLICT
            // ROLLBACK, a trigger's RAISE(ROLLBACK)) ended the run's transaction, and a row written
            // now would be committed on its own, in a store the failed run must leave unchanged.
            guard db.isInsideTransaction else { throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql) }
            return try statement.executeDirectly(binding: values)
        }
        try statement.execute(binding: values.lazy.map { $0.value })
        return db.changesCount
    }

    /// Prepares `sql` as the statement for `key` (see ``RunMemo/statements``, where callers look first).
    mutating func prepare(_ key: RunMemo.Key, sql: String) throws -> Statement {
        let statement = try db.makeStatement(sql: sql)
        memo.statements[key] = statement
        return statement
    }
}

/// Whether `name`, lower-cased, is `lowered` (already lower-cased), without lower-casing a copy of
/// `name` when both are ASCII (names usually are: SQLite itself folds only ASCII).
package func sameName(_ name: String, _ lowered: String) -> Bool {
    if name == lowered { return true }
    var a = name.utf8.makeIterator(), b = lowered.utf8.makeIterator()
    while true {
        switch (a.next(), b.next()) {
        case (nil, nil): return true
        case let (x?, y?) where x < 0x80 && y < 0x80:
            // Lower-casing keeps an ASCII prefix in place, byte for byte.
            if (x >= 65 && x <= 90 ? x | 0x20 : x) != y { return false }
        case (nil, _?), (_?, nil):
            // Different lengths: only lower-casing beyond ASCII could make them equal.
            return (name.utf8.contains { $0 >= 0x80 } || lowered.utf8.contains { $0 >= 0x80 }) && name.lowercased() == lowered
        default:
            return name.lowercased() == lowered
        }
    }
}

extension String {
    /// `lowercased()`, without a new string when the name is already lower-case ASCII (the common
    /// case for table and column names, looked up once per row of a big migration).
    package var lowercasedName: String {
        utf8.contains { $0 >= 0x80 || ($0 >= 65 && $0 <= 90) } ? lowercased() : self
    }
}
