import GRDB

/// What a run works out once per table (as the current operation names it) and reuses for each
/// row: a big migration writes the same table 100,000 times in a row, and building SQL text,
/// hashing it for GRDB's statement cache and lower-casing names for every row cost more than
/// SQLite's own work.
///
/// Reset when the schema may have changed (after a SQL migration).
struct RunMemo {
    /// A prepared statement's purpose and what its SQL depends on.
    struct Key: Hashable {
        enum Kind: Hashable { case count, lookup, insert, insertUnlessPresent, insertMany, fetch, delete, update }
        var kind: Kind
        var table: String
        var operation: String
        var columns: [String]
    }

    var statements: [Key: Statement] = [:]
    /// The column names of each ``Key/Kind/fetch`` statement, as a row read by it is keyed.
    var fetchedNames: [ObjectIdentifier: [SQLName]] = [:]
    /// The last statement found for each kind, looked at before ``statements``: a big migration
    /// asks for the same one 100,000 times in a row, and a key to hash is an array of names.
    var last: [Key.Kind: (key: Key, statement: Statement)] = [:]

    /// The statement for the kind, table, operation and columns, if one was prepared.
    mutating func statement(_ kind: Key.Kind, table: String, operation: String, columns: some Collection<String>)
        -> Statement?
    {
        if let last = last[kind], last.key.table == table, last.key.operation == operation,
            last.key.columns.elementsEqual(columns)
        {
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
    /// The row shapes found before ``columns``, the latest first (an update resolves its key,
    /// its `from` and its `to` for each row: three shapes in turn).
    var earlierColumns: [Box<(table: String, operation: String, names: [String], plan: [ColumnPlan])>?] = [
        nil, nil, nil,
    ]
    /// The last row shape's facts for inserting rows the short way (``MigrationRun/insertQuickly(_:into:named:slot:)``;
    /// nil: such rows go the long way), by table, operation and names written.
    var quickInsert: Box<(table: String, operation: String, names: [String], shape: QuickInsertShape?)>?
    /// The last table's spec (``MigrationRun/spec(_:)``), by table and operation.
    var spec: Box<(table: String, operation: String, value: TableSpec?)>?
    /// The last table's refs (``MigrationRun/references(of:)``), by table and operation.
    var references: (table: String, operation: String, value: [SQLName: TableSpec.Reference])?
    /// The last row shape's key fields (``MigrationRun/keyFields(_:in:input:)``), by table,
    /// operation, key columns and the names the row wrote.
    var keyFields: (table: String, operation: String, key: [String], names: [String], shapes: [KeyFieldShape])?
    /// The last table's relationship columns → parent tables, by table and operation.
    var parentTables: (table: String, operation: String, value: [String: String])?
    /// The store's tables (``TableInfo/userTables(_:)``), read once: each delete asks every table
    /// whether a row refers to the one it removes.
    var userTables: [String]?
    /// The last table's referrer checks (``MigrationRun/referrerChecks(of:)``), by table and operation.
    var referrerChecks: (table: String, operation: String, checks: [ReferrerCheck])?
    /// Parent ids refs found, by lookup site (the child's table and ref column, and the ref),
    /// then by the parent's key value: a big migration names the same few parents (a category by
    /// name) in 100,000 rows.
    ///
    /// An entry holds while nothing else writes the parent's table: an insert, update or delete of
    /// a table forgets its entries (``wroteRows(_:)``); one that may change other rows (a foreign
    /// key's `ON DELETE`/`ON UPDATE` action, a rename followed by the rows that store the old key,
    /// Core Data's bookkeeping) forgets them all. Nil when the store or the connection (a temporary
    /// trigger) has triggers, which may change any table on any write.
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
        if let known = parentIDs?[site] {
            box = known
        } else {
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

    /// Whether a foreign key of the store has an action (`CASCADE`, `SET NULL`, `SET DEFAULT`): an
    /// update or delete of one table may then change rows of another (see ``wroteRows(_:)``; the
    /// run then fails on the row it did not write, ``ChangeAccounting``, but nothing it resolves
    /// before that may use an id such a change made wrong).
    var foreignKeyActions = true

    /// Forgets the parent ids an update or delete of `table`'s rows may have made wrong: those
    /// found in `table`, or all of them where a foreign key's action may change other tables
    /// (see ``parentIDs``).
    ///
    /// Keeping the others matters: a 100,000-row update or delete names the same few parents in its
    /// `from` (issue 45).
    mutating func wroteRows(_ table: String) {
        if foreignKeyActions { changedRows() } else { wrote(table) }
    }

    /// Forgets every parent id found (see ``parentIDs``).
    mutating func changedRows() {
        for box in parentIDs?.values ?? [:].values where !box.ids.isEmpty { box.ids.removeAll() }
    }

    /// By table: whether its rows may go in by multi-row INSERTs (see MigrationRun+Bulk.swift).
    var multiRowTables: [String: Bool] = [:]

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
        // The connection's temporary triggers too (a `.sql` step or the app can make them), but
        // not seedkit's own, which count a `.sql` step's rows in the temp schema.
        let hidden =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' OR sql LIKE '%replace%')
                        OR EXISTS (SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger'
                                   AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\')
                    """)
            ?? true
        memo.parentIDs = hidden ? nil : [:]
        memo.foreignKeyActions =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
                    WHERE m.type = 'table' AND (upper(f.on_delete) NOT IN ('NO ACTION', 'RESTRICT')
                    OR upper(f.on_update) NOT IN ('NO ACTION', 'RESTRICT')))
                    """) ?? true
        return memo
    }
}

/// A key column as reports show it, worked out once per row shape: the name migrations use, the
/// position of the row's value for it, and the ref it is, if any.
struct KeyFieldShape {
    var name: String
    var given: Int?
    var reference: TableSpec.Reference?
    /// Whether the column is a Core Data UUID attribute (shown in its text form).
    var uuid = false
}

/// A column a row names, worked out once per row shape: the column (nil: the table has none so
/// named), how values convert for it, and the ref it is, if any.
struct ColumnPlan {
    var info: ColumnInfo?
    var type: ColumnType?
    var reference: TableSpec.Reference?
}
