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
    /// For a Core Data store: each entity of Z_PRIMARYKEY with its rows (by Z_ENT).
    public var entities: [(name: String, rows: Int)] = []
    /// For a Core Data store that tracks persistent history: its history tables.
    public var persistentHistory: String?
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
        var summary = StoreSummary(
            path: path, kind: kind, fileSize: fileSize, pageSize: pageSize, pageCount: pageCount,
            journalMode: wal ? "wal" : "rollback journal", tables: tables, meta: meta,
            ledger: try MigrationLedger.entries(db), integrity: integrity)
        if let coreData = try CoreDataDialect.read(db) {
            summary.persistentHistory = try CoreDataDialect.historyTables(db)
            for entity in coreData.entities {
                let table = coreData.tableName(entity.name)
                guard try db.tableExists(table) else { continue }
                let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table)) WHERE Z_ENT = ?", arguments: [entity.number]) ?? 0
                summary.entities.append((entity.name, rows))
            }
        }
        return summary
    }

    /// Rows of a Core Data entity in the app's terms, as a fetch of the entity returns them:
    /// its rows and its sub-entities' (with an `entity` column then), attribute names (the
    /// model's when given, else the column names without `Z`), to-one relationships as the
    /// target's key when a ref names it (else its `Z_PK`), dates as ISO 8601; bookkeeping
    /// columns (`Z_OPT`, order keys, entity-type columns) left out. The row's `Z_PK` is `id`
    /// (`Z_PK` when an attribute is called `id`). `filter` is SQL over the store's columns (`ZPRICE > 10`).
    public static func entityRows(_ db: Database, entity name: String, model: CoreDataModel?, refs: [String: TableSpec.Reference], filter: String? = nil, limit: Int? = nil) throws -> Tabular? {
        guard let coreData = try CoreDataDialect.read(db, facts: model?.facts), let entity = coreData.entity(named: name),
              let info = try TableInfo.read(db, table: coreData.tableName(name)) else { return nil }
        let family = coreData.family(of: entity)
        var names: [String] = []
        var expressions: [String] = []
        if family.count > 1 {
            let cases = coreData.entities.filter { family.contains($0.number) }.map { "WHEN \($0.number) THEN '\(coreData.modelName(of: $0).replacingOccurrences(of: "'", with: "''"))'" }
            names.append("entity")
            expressions.append("CASE t.Z_ENT \(cases.joined(separator: " ")) END")
        }
        for column in info.columns where !CoreDataDialect.isBookkeeping(column.name) {
            var attribute = CoreDataModel.attributeName(column.name, entity: name, model: model, dialect: coreData)
            if names.contains(attribute) { attribute += " (\(column.name))" }
            names.append(attribute)
            if let reference = refs[attribute], let parent = try TableInfo.read(db, table: coreData.tableName(reference.table)) {
                expressions.append("(SELECT p.\(quoteIdentifier(coreData.columnName(reference.column))) FROM \(quoteIdentifier(parent.name)) AS p WHERE p.Z_PK = t.\(quoteIdentifier(column.name)))")
            } else if coreData.columnType(column) == .referenceDate {
                expressions.append("strftime('%Y-%m-%dT%H:%M:%SZ', t.\(quoteIdentifier(column.name)) + 978307200, 'unixepoch')")
            } else {
                expressions.append("t.\(quoteIdentifier(column.name))")
            }
        }
        names.insert(names.contains("id") ? "Z_PK" : "id", at: 0)
        expressions.insert("t.Z_PK", at: 0)
        let whereClause = " WHERE t.Z_ENT IN (\(family.map(String.init).joined(separator: ", ")))" + (filter.map { " AND (\($0))" } ?? "")
        do {
            let from = "FROM \(quoteIdentifier(info.name)) AS t\(whereClause)"
            let rows = try Row.fetchAll(db, sql: "SELECT \(expressions.joined(separator: ", ")) \(from) ORDER BY t.Z_PK" + (limit.map { " LIMIT \($0)" } ?? ""))
                .map { row in (0..<row.count).map { SQLValue.fromDatabaseValue(row[$0]) ?? .null } }
            var omitted = 0
            if let limit, rows.count == limit { omitted = (try Int.fetchOne(db, sql: "SELECT count(*) \(from)") ?? rows.count) - rows.count }
            return Tabular(columns: names, rows: rows, omitted: omitted)
        } catch let error as DatabaseError {
            throw SeedError(.configuration, "the query failed: \(error.message ?? "\(error)")\(filter.map { " (--where \($0))" } ?? "")")
        }
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
