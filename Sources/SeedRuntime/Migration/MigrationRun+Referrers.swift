import GRDB
import GRDBSQLite

/// Whether a row a delete removes is still referenced, found by an index (issue 45).
///
/// A delete asks each column that can refer to the row whether a row holds its key (seedkit's own
/// check, and SQLite's when a FOREIGN KEY declares the column); a column no index leads with is
/// read whole each time, so deleting k rows of a hierarchy whose parent column has no index read k
/// times the table (20k of 100k rows: 212 s). Once a run has asked about such a column
/// ``ReferrerColumns/scansBeforeIndex`` times, it indexes it for the rest of the migration
/// (`_seedkit_referrers_N`, in the run's transaction) and drops the index before the migration's
/// end, so the store keeps its own schema; the pages it took are free pages of the file afterwards.
struct ReferrerColumns {
    /// Reads of a column without an index allowed before it gets one: an index costs about as
    /// much as a few reads of the table, and a small delete never changes the schema.
    static let scansBeforeIndex = 32
    /// By child table and columns (lower-cased): true once an index finds their rows, else the reads so far.
    var state: [String: Int] = [:]
    /// The indexes this run made, dropped at the end of each migration.
    var made: [String] = []
    /// Numbers the indexes of a run.
    var next = 0
}

/// A column (or columns) that can refer to a row of a table a delete removes: the child table,
/// its columns, the parent's columns they hold, and the name a denied delete gives.
struct ReferrerCheck {
    var child: TableInfo
    var columns: [String]
    var targets: [SQLName]
    var name: String
    /// The child and its columns, lower-cased: ``ReferrerColumns/state``'s key.
    var id: String

    init(child: TableInfo, columns: [String], targets: [SQLName], name: String) {
        self.child = child
        self.columns = columns
        self.targets = targets
        self.name = name
        id = ([child.name] + columns).map(\.lowercasedName).joined(separator: "\u{0}")
    }
}

extension MigrationRun {
    /// Marks a read of `columns` of `child` (`id`: ``ReferrerCheck/id``) for a referring row;
    /// indexes them once they have been read without an index ``ReferrerColumns/scansBeforeIndex`` times.
    mutating func findReferrersByIndex(_ child: TableInfo, _ columns: [String], id: String) throws {
        let reads = referrerColumns.state[id] ?? 0
        if reads < 0 { return }  // indexed
        if reads == 0, try Self.hasIndex(db, child, columns) {
            referrerColumns.state[id] = -1
            return
        }
        referrerColumns.state[id] = reads + 1
        guard reads + 1 >= ReferrerColumns.scansBeforeIndex else { return }
        let name = "_seedkit_referrers_\(referrerColumns.next)"
        referrerColumns.next += 1
        try db.execute(
            sql:
                "CREATE INDEX \(quoteIdentifier(name)) ON \(quoteIdentifier(child.name)) (\(columns.map(quoteIdentifier).joined(separator: ", ")))"
        )
        referrerColumns.made.append(name)
        referrerColumns.state[id] = -1
    }

    /// Drops the indexes ``findReferrersByIndex(_:_:id:)`` made, before the migration ends.
    mutating func dropReferrerIndexes() throws {
        guard !referrerColumns.made.isEmpty else { return }
        // A statement left stepping holds the schema: every one is reset first (none is in use here).
        var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(db.sqliteConnection, current)
        }
        for name in referrerColumns.made { try db.execute(sql: "DROP INDEX \(quoteIdentifier(name))") }
        referrerColumns = ReferrerColumns(next: referrerColumns.next)
    }

    /// Whether an index of `table` (or its primary key) starts with `columns`, in any order.
    static func hasIndex(_ db: Database, _ table: TableInfo, _ columns: [String]) throws -> Bool {
        let wanted = Set(columns.map(\.lowercasedName))
        if Set(table.primaryKey.prefix(columns.count).map(\.lowercasedName)) == wanted { return true }
        for index in try db.sqlRows("SELECT name FROM pragma_index_list(?)", binding: [.text(table.name)]) {
            guard case .text(let name)? = index.first else { continue }
            let leading = try db.sqlRows(
                "SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT ?",
                binding: [.text(name), .integer(Int64(columns.count))]
            ).compactMap { row -> String? in
                if case .text(let column)? = row.first { return column.lowercasedName }
                return nil
            }
            if Set(leading) == wanted && leading.count == columns.count { return true }
        }
        return false
    }
}
