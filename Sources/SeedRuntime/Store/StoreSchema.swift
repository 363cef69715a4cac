import Foundation
import GRDB
import GRDBSQLite

/// A column as SQLite declares it.
package struct ColumnInfo: Sendable, Equatable {
    package var name: String
    package var declaredType: String
    package var type: ColumnType
    package var notNull: Bool
    /// 1-based position in the primary key; 0 when not part of it.
    package var primaryKeyIndex: Int
    /// The DEFAULT expression as written, or nil.
    package var defaultSQL: String?
    /// Position in the table, 0-based.
    package var position: Int
    /// The collating sequence SQLite compares the column's text with (`BINARY`, `NOCASE`,
    /// `RTRIM`, or an application's), as `sqlite3_table_column_metadata` reports it.
    package var collation: String = "BINARY"
}

/// A FOREIGN KEY from this table's columns to a parent's columns (empty: the parent's primary key).
package struct ForeignKeyInfo: Sendable, Equatable {
    package var columns: [String]
    package var parent: String
    package var parentColumns: [String]
}

/// One table's columns, primary key and foreign keys.
package struct TableInfo: Sendable, Equatable {
    package var name: String
    package var columns: [ColumnInfo]
    package var foreignKeys: [ForeignKeyInfo]
    package var withoutRowID: Bool
    /// Column name → position, for lookups that match as SQLite does (ASCII case folded, other
    /// bytes exact: a composed and a decomposed `é` are two columns).
    private var positions: [SQLName: Int] = [:]

    package init(name: String, columns: [ColumnInfo], foreignKeys: [ForeignKeyInfo], withoutRowID: Bool) {
        self.name = name
        self.columns = columns
        self.foreignKeys = foreignKeys
        self.withoutRowID = withoutRowID
        for (position, column) in columns.enumerated() where positions[SQLName(column.name)] == nil {
            positions[SQLName(column.name)] = position
        }
    }

    package var primaryKey: [String] {
        columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }.map(\.name)
    }

    /// A name that reaches the table's rowid from SQL: `rowid`, `_rowid_` or `oid`, the first no
    /// column has (a column named `rowid` hides the rowid behind that name); nil for a WITHOUT
    /// ROWID table, or one with columns of all three names.
    package var rowIDName: String? {
        withoutRowID ? nil : ["rowid", "_rowid_", "oid"].first { column($0) == nil }
    }

    /// The column named `name`, matched case-insensitively as SQLite does.
    package func column(_ name: String) -> ColumnInfo? {
        positions[SQLName(name)].map { columns[$0] }
    }

    /// The parent column this table's ref column stores: the column its FOREIGN KEY to `parent`
    /// names, else the parent's single-column primary key; nil means the parent's rowid.
    package func referencedColumn(of column: String, in parent: TableInfo) -> String? {
        if let key = foreignKeys.first(where: {
            $0.columns.count == 1 && $0.columns[0].lowercasedName == column.lowercasedName
                && $0.parent.isSameName(as: parent.name)
        }),
            let target = key.parentColumns.first
        {
            return target
        }
        let primaryKey = parent.primaryKey
        return primaryKey.count == 1 ? primaryKey[0] : nil
    }

    /// ``referencedColumn(of:in:)`` as SQL: the quoted column, or `rowid`.
    package func referenceTarget(of column: String, in parent: TableInfo) -> String {
        referencedColumn(of: column, in: parent).map(quoteIdentifier) ?? "rowid"
    }

    /// Reads a table's facts; nil when the store has no such table.
    package static func read(_ db: Database, table: String) throws -> TableInfo? {
        let rows = try Row.fetchAll(
            db, sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", arguments: [table])
        guard !rows.isEmpty else { return nil }
        var columns: [ColumnInfo] = []
        for (position, row) in rows.enumerated() {
            let declared: String = row[1] ?? ""
            columns.append(
                ColumnInfo(
                    name: row[0], declaredType: declared, type: ColumnType(declaredType: declared),
                    notNull: row[2], primaryKeyIndex: row[4], defaultSQL: row[3], position: position))
        }
        var keys: [Int: ForeignKeyInfo] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq",
            arguments: [table])
        {
            let id: Int = row[0]
            var key = keys[id] ?? ForeignKeyInfo(columns: [], parent: row[2], parentColumns: [])
            key.columns.append(row[3])
            if let to: String = row[4] { key.parentColumns.append(to) }
            keys[id] = key
        }
        for index in columns.indices {
            columns[index].collation = collation(db, table: table, column: columns[index].name)
        }
        let sql =
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) ?? ""
        let withoutRowID = Self.isWithoutRowID(createTableSQL: sql)
        return TableInfo(
            name: table, columns: columns, foreignKeys: keys.keys.sorted().compactMap { keys[$0] },
            withoutRowID: withoutRowID)
    }

    /// The column's collating sequence, as SQLite reports it (BINARY when it cannot say: a view's column).
    package static func collation(_ db: Database, table: String, column: String) -> String {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var primaryKey: Int32 = 0
        var autoincrement: Int32 = 0
        guard
            sqlite3_table_column_metadata(
                db.sqliteConnection, "main", table, column, &type, &collation, &notNull, &primaryKey, &autoincrement)
                == SQLITE_OK,
            let collation
        else { return "BINARY" }
        return String(cString: collation).uppercasedName
    }

    /// The names of the store's own tables (not SQLite's, not seedkit's), in schema order.
    ///
    /// Whether a `CREATE TABLE` statement's table options (after its column list) say WITHOUT
    /// ROWID, alone or among others (`WITHOUT ROWID, STRICT`), whatever the spacing and comments.
    package static func isWithoutRowID(createTableSQL sql: String) -> Bool {
        let tokens = ConflictClauses.tokens(sql).map { $0.uppercasedName }
        guard let open = tokens.firstIndex(of: "(") else { return false }
        var depth = 0
        for index in open..<tokens.count {
            if tokens[index] == "(" {
                depth += 1
            } else if tokens[index] == ")" {
                depth -= 1
                if depth == 0 {
                    let options = tokens[(index + 1)...]
                    return zip(options, options.dropFirst()).contains { $0 == "WITHOUT" && $1 == "ROWID" }
                }
            }
        }
        return false
    }

    package static func userTables(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
            .filter { !SeedCatalog.isInternal($0) }
    }
}

/// `"name"`, with embedded quotes doubled.
package func quoteIdentifier(_ name: String) -> String {
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
