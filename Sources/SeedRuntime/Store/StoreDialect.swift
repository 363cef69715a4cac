import GRDB

/// How rows are written into a kind of store. This is the seam between plain SQLite
/// and Core Data: the migrator decides *what* changes; the dialect decides what tables and
/// columns the names in migrations mean, and how a row is inserted, updated or deleted in the
/// store's own terms (``CoreDataDialect`` allocates `Z_PK`, sets `Z_ENT`, bumps `Z_OPT`).
package protocol StoreDialect: Sendable {
    /// A short name for reports: `sqlite`, `coredata`.
    var name: String { get }
    /// The SQL table a migration's table (or entity) name means.
    func tableName(_ name: String) -> String
    /// The SQL column a migration's column (or attribute) name means.
    func columnName(_ name: String) -> String
    /// How values are converted for a column.
    func columnType(_ column: ColumnInfo) -> ColumnType
    /// A table's facts with its columns typed as the store keeps them (a Core Data UUID attribute's BLOB column: `.uuid`).
    func adjusted(_ info: TableInfo) -> TableInfo
    /// A SQL condition selecting the rows of `name` (a Core Data entity and its sub-entities)
    /// in a table it may share with other entities; nil when all the table's rows are `name`'s.
    func rowFilter(_ name: String) -> String?
    /// Inserts one row. `name` is the table (or entity) name the migration used; `references`
    /// maps the row's relationship columns to their parent tables.
    func insert(_ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)], references: [String: String]) throws
    /// Sets `values` on the row whose key columns equal `key`.
    func update(_ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)], values: [(column: String, value: SQLValue)], references: [String: String]) throws
    /// Deletes the row whose key columns equal `key`.
    func delete(_ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]) throws
}

extension StoreDialect {
    package func tableName(_ name: String) -> String { name }
    package func columnName(_ name: String) -> String { name }
    package func columnType(_ column: ColumnInfo) -> ColumnType { column.type }
    package func adjusted(_ info: TableInfo) -> TableInfo { info }
    package func rowFilter(_ name: String) -> String? { nil }
}

/// Plain SQLite: names are SQL names, and rows are written as they are.
package struct PlainSQLiteDialect: StoreDialect {
    package init() {}
    package var name: String { "sqlite" }

    package func insert(_ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)], references: [String: String]) throws {
        let columns = values.map { quoteIdentifier($0.column) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO \(quoteIdentifier(table.name)) (\(columns)) VALUES (\(marks))")
            .execute(arguments: StatementArguments(values.map(\.value)))
    }

    package func update(_ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)], values: [(column: String, value: SQLValue)], references: [String: String]) throws {
        let assignments = values.map { "\(quoteIdentifier($0.column)) = ?" }.joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(keyPredicate(key))")
            .execute(arguments: StatementArguments(values.map(\.value) + key.map(\.value)))
    }

    package func delete(_ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]) throws {
        try db.cachedStatement(sql: "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))")
            .execute(arguments: StatementArguments(key.map(\.value)))
    }
}

/// `"a" IS ? AND "b" IS ?`: matches NULLs too, as a natural key comparison should.
package func keyPredicate(_ key: [(column: String, value: SQLValue)]) -> String {
    key.map { "\(quoteIdentifier($0.column)) IS ?" }.joined(separator: " AND ")
}
