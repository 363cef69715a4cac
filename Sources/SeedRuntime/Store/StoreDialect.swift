import GRDB

/// How rows are written into a kind of store.
///
/// This is the seam between plain SQLite and Core Data: the migrator decides *what* changes; the
/// dialect decides what tables and columns the names in migrations mean, and how a row is inserted,
/// updated or deleted in the store's own terms (``CoreDataDialect`` allocates `Z_PK`, sets `Z_ENT`,
/// bumps `Z_OPT`).
package protocol StoreDialect: Sendable {
    /// A short name for reports: `sqlite`, `coredata`.
    var name: String { get }
    /// The SQL table a migration's table (or entity) name means.
    func tableName(_ name: String) -> String
    /// The SQL column a migration's column (or attribute) name means in `table`: the table (or
    /// entity) name the migration used, or the SQL table (a Core Data column depends on the
    /// entity's other properties: ``CoreDataDialect/columnLayout(_:)``).
    func columnName(_ name: String, in table: String) -> String
    /// How values are converted for a column.
    func columnType(_ column: ColumnInfo) -> ColumnType
    /// A table's facts with its columns typed as the store keeps them (a Core Data UUID attribute's BLOB column: `.uuid`).
    func adjusted(_ info: TableInfo) -> TableInfo
    /// A SQL condition selecting the rows of `name` (a Core Data entity and its sub-entities)
    /// in a table it may share with other entities; nil when all the table's rows are `name`'s.
    func rowFilter(_ name: String) -> String?
    /// Inserts one row. `name` is the table (or entity) name the migration used; `references`
    /// maps the row's relationship columns to their parent tables.
    ///
    /// Every write names its conflict algorithm (`INSERT OR ABORT`, `UPDATE OR ABORT`), so that
    /// a schema's `ON CONFLICT REPLACE` or `IGNORE` never deletes or drops a row unseen (see
    /// ``ConflictClauses``). Returns the rows SQLite changed (`sqlite3_changes`): 0 when a
    /// trigger vetoed the write with `RAISE(IGNORE)`.
    @discardableResult
    func insert(
        _ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)],
        references: [String: String]
    ) throws -> Int
    /// Sets `values` on the row whose key columns equal `key`; returns the rows SQLite changed.
    @discardableResult
    func update(
        _ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)],
        values: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int
    /// Deletes the row whose key columns equal `key`; returns the rows SQLite deleted.
    @discardableResult
    func delete(
        _ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int
    /// The INSERT that ``insert(_:into:name:values:references:)`` runs for `columns`, when the dialect
    /// writes rows as they are, so that a caller inserting many rows prepares it once; nil when the
    /// dialect writes each row its own way (Core Data numbers and bumps).
    func plainInsertSQL(into table: TableInfo, columns: [String]) -> String?
}

extension StoreDialect {
    package func tableName(_ name: String) -> String { name }
    package func columnName(_ name: String, in table: String) -> String { name }
    package func columnType(_ column: ColumnInfo) -> ColumnType { column.type }
    package func adjusted(_ info: TableInfo) -> TableInfo { info }
    package func rowFilter(_ name: String) -> String? { nil }
    package func plainInsertSQL(into table: TableInfo, columns: [String]) -> String? { nil }
}

/// Plain SQLite: names are SQL names, and rows are written as they are.
package struct PlainSQLiteDialect: StoreDialect {
    package init() {}
    package var name: String { "sqlite" }

    @discardableResult
    package func insert(
        _ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)],
        references: [String: String]
    ) throws -> Int {
        try db.cachedStatement(sql: insertSQL(into: table, columns: values.map { $0.column }))
            .execute(binding: values.lazy.map { $0.value })
        return db.changesCount
    }

    package func plainInsertSQL(into table: TableInfo, columns: [String]) -> String? {
        insertSQL(into: table, columns: columns)
    }

    private func insertSQL(into table: TableInfo, columns: [String]) -> String {
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return
            "INSERT OR ABORT INTO \(quoteIdentifier(table.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(marks))"
    }

    @discardableResult
    package func update(
        _ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)],
        values: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int {
        let assignments = values.map { "\(quoteIdentifier($0.column)) = ?" }.joined(separator: ", ")
        try db.cachedStatement(
            sql: "UPDATE OR ABORT \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(keyPredicate(key))"
        )
        .execute(binding: (values + key).lazy.map { $0.value })
        return db.changesCount
    }

    @discardableResult
    package func delete(
        _ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int {
        try db.cachedStatement(sql: "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))")
            .execute(binding: key.lazy.map { $0.value })
        return db.changesCount
    }
}

/// `"a" IS ? AND "b" IS ?`: matches NULLs too, as a natural key comparison should.
package func keyPredicate(_ key: [(column: String, value: SQLValue)]) -> String {
    key.map { "\(quoteIdentifier($0.column)) IS ?" }.joined(separator: " AND ")
}
