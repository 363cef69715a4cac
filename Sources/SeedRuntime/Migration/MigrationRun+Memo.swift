import GRDB

/// What a run works out once per table (as the current operation names it) and reuses for each
/// row: a big migration writes the same table 100,000 times in a row, and building SQL text,
/// hashing it for GRDB's statement cache and lower-casing names for every row cost more than
/// SQLite's own work. Reset when the schema may have changed (after a SQL migration).
struct RunMemo {
    /// A prepared statement's purpose and what its SQL depends on.
    struct Key: Hashable {
        enum Kind: Hashable { case count, lookup, insert }
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
    var columns: (table: String, operation: String, names: [String], plan: [ColumnPlan])?
    /// The last table's spec (``MigrationRun/spec(_:)``), by table and operation.
    var spec: (table: String, operation: String, value: TableSpec?)?
    /// The last table's refs (``MigrationRun/references(of:)``), by table and operation.
    var references: (table: String, operation: String, value: [String: TableSpec.Reference])?
    /// The last table's relationship columns → parent tables, by table and operation.
    var parentTables: (table: String, operation: String, value: [String: String])?
    /// Parent ids refs found, by the parent's SQL table, then by lookup and the parent's key value:
    /// a big migration names the same few parents (a category by name) in 100,000 rows. An entry
    /// holds while nothing else writes the parent's table: an insert into a table forgets its
    /// entries; an update or delete (which may rename or remove a parent, or change other rows
    /// through foreign keys) forgets them all. Nil when the store has triggers, which may change
    /// any table on any write.
    var parentIDs: [String: [ParentLookup: SQLValue]]?

    /// A lookup of a parent's id: the child's table and ref column, the ref, the parent's key value.
    struct ParentLookup: Hashable {
        var table: String
        var column: String
        var reference: TableSpec.Reference
        var value: SQLValue
    }

    /// Forgets the parent ids found in `table` (see ``parentIDs``).
    mutating func wrote(_ table: String) {
        if parentIDs?[table] != nil { parentIDs?[table] = nil }
    }

    /// Forgets every parent id found (see ``parentIDs``).
    mutating func changedRows() {
        if parentIDs != nil { parentIDs = [:] }
    }

    /// A memo for `db`'s schema: parent ids are kept unless a trigger, or a REPLACE conflict clause
    /// (an insert that deletes rows), could change a table seedkit does not write itself.
    static func reading(_ db: Database) throws -> RunMemo {
        var memo = RunMemo()
        let hidden = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' OR sql LIKE '%replace%')") ?? true
        memo.parentIDs = hidden ? nil : [:]
        return memo
    }
}

/// A column a row names, worked out once per row shape: the column (nil: the table has none so
/// named), how values convert for it, and the ref it is, if any.
struct ColumnPlan {
    var info: ColumnInfo?
    var type: ColumnType?
    var reference: TableSpec.Reference?
}

extension MigrationRun {
    /// Inserts a row through the dialect; a plain SQLite INSERT is prepared once per table and column list.
    mutating func write(_ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String) throws {
        if let statement = memo.statement(.insert, table: table.name, operation: name, columns: values.lazy.map { $0.column }) {
            try statement.execute(binding: values.lazy.map { $0.value })
        } else if let sql = dialect.plainInsertSQL(into: table, columns: values.map { $0.column }) {
            try prepare(RunMemo.Key(kind: .insert, table: table.name, operation: name, columns: values.map { $0.column }), sql: sql).execute(binding: values.lazy.map { $0.value })
        } else {
            try dialect.insert(db, into: table, name: name, values: values, references: parentTables(of: table))
        }
        memo.wrote(table.name)
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
