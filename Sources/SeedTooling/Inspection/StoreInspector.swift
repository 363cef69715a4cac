import Foundation
public import GRDB
public import SeedRuntime

/// What `seedkit inspect STORE` reports.
public struct StoreSummary: Sendable {
    public enum Kind: String, Sendable {
        case plain = "plain SQLite"
        case seed = "seedkit seed"
        case coreData = "Core Data"
    }

    public struct Integrity: Sendable {
        /// `quick_check`, or `header` for large stores when a full check was not asked for.
        public var method: String
        public var ok: Bool
        public var detail: String
    }

    public var path: String
    public var kind: Kind
    public var fileSize: Int
    public var pageSize: Int
    public var pageCount: Int
    public var journalMode: String
    public var tables: [(name: String, rows: Int)]
    public var meta: [String: String]
    public var ledger: [LedgerEntry]
    public var integrity: Integrity
}

/// Read-only questions about a store: its summary and its rows.
public enum StoreInspector {
    /// Stores up to this size get a full `PRAGMA quick_check` by default.
    public static let fullCheckLimit = 64 << 20

    /// Summarises a store opened with ``StoreAccess/openReadOnly(_:)``.
    ///
    /// - parameter fullCheck: run `quick_check` whatever the size (true), never (false), or
    ///   only up to ``fullCheckLimit`` (nil), so that inspecting a big store stays fast.
    public static func summary(_ db: Database, path: String, fullCheck: Bool? = nil) throws -> StoreSummary {
        let fileSize = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let names = try TableInfo.userTables(db)
        var tables: [(String, Int)] = []
        for name in names {
            tables.append((name, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(name))") ?? 0))
        }
        let meta = try SeedCatalog.meta(db)
        let kind: StoreSummary.Kind
        if try db.tableExists("Z_PRIMARYKEY") && db.tableExists("Z_METADATA") { kind = .coreData }
        else if !meta.isEmpty { kind = .seed }
        else { kind = .plain }
        let wal = StoreAccess.isWALMode(path)
        let integrity: StoreSummary.Integrity
        if fullCheck ?? (fileSize <= fullCheckLimit) {
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
            integrity = .init(method: "quick_check", ok: problems == ["ok"], detail: problems.prefix(5).joined(separator: "; "))
        } else {
            // The header agrees with the file: every page is there (checked without reading them).
            let expected = pageSize * pageCount
            let ok = wal || expected == fileSize
            integrity = .init(method: "header", ok: ok, detail: ok
                ? "page count matches the file size; run with --check (or seedkit verify) for a full check"
                : "the header says \(expected) bytes, the file has \(fileSize)")
        }
        return StoreSummary(
            path: path, kind: kind, fileSize: fileSize, pageSize: pageSize, pageCount: pageCount,
            journalMode: wal ? "wal" : "rollback journal", tables: tables, meta: meta,
            ledger: try MigrationLedger.entries(db), integrity: integrity)
    }

    /// Rows of a table, in primary key (or rowid) order.
    ///
    /// - parameters:
    ///   - filter: a SQL expression for WHERE, as the user wrote it.
    ///   - limit: at most this many rows; ``Tabular/omitted`` says how many more matched.
    ///   - columns: the columns to show (default: all).
    /// - throws: ``SeedError`` (configuration) for an unknown table or column or a bad filter.
    public static func rows(_ db: Database, table: String, filter: String? = nil, limit: Int? = nil, columns: [String]? = nil) throws -> Tabular {
        guard let info = try TableInfo.read(db, table: table) else {
            throw SeedError(.configuration, "no table '\(table)' (the store has \(try TableInfo.userTables(db).joined(separator: ", ")))")
        }
        var selected = info.columns.map(\.name)
        if let columns {
            selected = []
            for name in columns {
                guard let column = info.column(name) else {
                    throw SeedError(.configuration, "table \(info.name) has no column '\(name)' (it has \(info.columns.map(\.name).joined(separator: ", ")))")
                }
                selected.append(column.name)
            }
        }
        let order = info.withoutRowID ? info.primaryKey.map(quoteIdentifier).joined(separator: ", ") : "rowid"
        let whereClause = filter.map { " WHERE \($0)" } ?? ""
        let list = selected.map(quoteIdentifier).joined(separator: ", ")
        do {
            var rows: [[SQLValue]] = []
            let limitClause = limit.map { " LIMIT \($0)" } ?? ""
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \(quoteIdentifier(info.name))\(whereClause) ORDER BY \(order)\(limitClause)")
            while let row = try cursor.next() {
                rows.append((0..<row.count).map { SQLValue.fromDatabaseValue(row[$0]) ?? .null })
            }
            var omitted = 0
            if let limit, rows.count == limit {
                let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(info.name))\(whereClause)") ?? rows.count
                omitted = total - rows.count
            }
            return Tabular(columns: selected, rows: rows, omitted: omitted)
        } catch let error as DatabaseError {
            throw SeedError(.configuration, "the query failed: \(error.message ?? "\(error)")\(filter.map { " (--where \($0))" } ?? "")")
        }
    }
}
