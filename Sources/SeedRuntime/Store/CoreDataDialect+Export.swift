import GRDB

/// Reading a Core Data store's rows back out, and emptying a copy of it into a template: what
/// `seedkit init --coredata STORE` needs from the store's bookkeeping, kept in the dialect.
extension CoreDataDialect {
    /// The table of an entity whose lineage's root is `root`, as Core Data names it (`ZBOOK`).
    package static func storeTable(ofRoot root: String) -> String { "Z" + root.uppercased() }

    /// The column of a property (attribute or to-one relationship) as Core Data names it (`ZTITLE`);
    /// for an element of a composite attribute, named by its Swift path (`author.person`), the
    /// element's own name (`ZPERSON`), as SwiftData stores it (docs/swiftdata.md, "Composite attributes").
    package static func storeColumn(ofProperty property: String) -> String {
        "Z" + (property.split(separator: ".").last.map(String.init) ?? property).uppercased()
    }

    /// Each entity's number (`Z_ENT`) by the name `Z_PRIMARYKEY` gives it.
    package static func entityNumbers(_ db: Database) throws -> [String: Int64] {
        Dictionary(
            try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").compactMap { row -> (String, Int64)? in
                guard
                    let name: String = try SeedCatalog.optionalValue(
                        row, 0, "Z_PRIMARYKEY", "Z_NAME", writer: "Core Data"),
                    let number: Int64 = try SeedCatalog.optionalValue(
                        row, 1, "Z_PRIMARYKEY", "Z_ENT", writer: "Core Data")
                else { return nil }
                return (name, number)
            }, uniquingKeysWith: { first, _ in first })
    }

    /// The rows of entity `number` in `table`, in `Z_PK` order, each column (matched as SQLite
    /// matches names) → its value, text read whole (a NUL inside survives).
    package static func rows(_ db: Database, table: String, entity number: Int64) throws -> [[SQLName: SQLValue]] {
        let statement = try db.makeStatement(
            sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE Z_ENT = ? ORDER BY Z_PK")
        let names = statement.columnNames.map(SQLName.init)
        return try statement.rows(binding: [.integer(number)]).map {
            Dictionary(zip(names, $0), uniquingKeysWith: { first, _ in first })
        }
    }

    /// A row's `Z_PK`.
    package static func primaryKey(of row: [SQLName: SQLValue]) -> Int64? { row[SQLName("Z_PK")]?.integerValue }

    /// The value of `column` in the row of `table` whose `Z_PK` is `primaryKey` (nil: no such row).
    package static func value(_ db: Database, column: String, table: String, primaryKey: Int64) throws -> SQLValue? {
        try db.sqlRow(
            "SELECT \(column.quotedDatabaseIdentifier) FROM \(table.quotedDatabaseIdentifier) WHERE Z_PK = ?",
            binding: [.integer(primaryKey)])?.first
    }

    /// Empties a copy of a store into a template, the store as the app created it: every entity
    /// table, join table, history table and CloudKit mirroring table (`ANSCK…`: the developer's
    /// record metadata) loses its rows, `Z_MAX` goes back to 0, and seedkit's own tables (a
    /// store installed from a seed or migrated by seedkit keeps its ledger) are dropped;
    /// `Z_PRIMARYKEY`, `Z_METADATA` and `Z_MODELCACHE` are kept, so the app still opens the
    /// store and the model stays in it.
    package static func emptyIntoTemplate(_ db: Database) throws {
        let keep: Set = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for table in tables where !keep.contains(table.uppercased()) {
            try db.execute(
                sql: (SeedCatalog.isInternal(table) ? "DROP TABLE " : "DELETE FROM ") + table.quotedDatabaseIdentifier)
        }
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 0")
    }
}
