import Foundation
public import GRDB
import GRDBSQLite
public import SeedRuntime

/// The differences between two stores, table by table and row by row (SPEC §8).
public struct StoreDiff: Sendable {
    /// One table's differences. Rows are named by their key.
    public struct TableDiff: Sendable {
        public var table: String
        public var key: [String]
        public var added: [[SQLValue]] = []
        public var removed: [[SQLValue]] = []
        public var changed: [(key: [SQLValue], columns: [(column: String, old: SQLValue, new: SQLValue)])] = []

        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }
    }

    public var tables: [TableDiff]
    public var tablesOnlyInA: [String]
    public var tablesOnlyInB: [String]
    /// Table → columns that only one side has (rows are compared on the columns both have).
    public var columnsOnlyInA: [String: [String]]
    public var columnsOnlyInB: [String: [String]]

    public var isEmpty: Bool {
        tables.allSatisfy(\.isEmpty) && tablesOnlyInA.isEmpty && tablesOnlyInB.isEmpty && columnsOnlyInA.isEmpty && columnsOnlyInB.isEmpty
    }

    /// Compares the store opened as `main` on `db` with the one attached as `other`.
    ///
    /// Rows are matched by natural key: `keys[table]` when given (the manifest's), else the
    /// keys either store recorded (`_seedkit_tables`), else the primary key, else rowid. Both
    /// sides are read in key order and merged, so memory grows with the differences, not the rows.
    /// Values of different storage classes differ (`10` and `10.0` are reported).
    public static func compare(_ db: Database, other: String = "other", keys: [String: [String]] = [:], only: String? = nil) throws -> StoreDiff {
        let namesA = try TableInfo.userTables(db)
        let namesB = try String.fetchAll(db, sql: "SELECT name FROM \(other).sqlite_master WHERE type = 'table' ORDER BY rowid").filter { !SeedCatalog.isInternal($0) }
        let specsA = (try? SeedCatalog.tableSpecs(db)) ?? nil
        let specsB = try db.tableExists(SeedCatalog.tablesTable, in: other) ? try Row.fetchAll(db, sql: "SELECT name, key FROM \(other).\(SeedCatalog.tablesTable)") : []
        var recorded: [String: [String]] = [:]
        for row in specsB { recorded[row[0]] = (try? JSONDecoder().decode([String].self, from: Data((row[1] as String).utf8))) ?? [] }
        for spec in specsA ?? [] { recorded[spec.name] = spec.key }

        var result = StoreDiff(tables: [], tablesOnlyInA: namesA.filter { !namesB.contains($0) }, tablesOnlyInB: namesB.filter { !namesA.contains($0) },
                               columnsOnlyInA: [:], columnsOnlyInB: [:])
        for name in namesA where namesB.contains(name) && (only == nil || only == name) {
            guard let infoA = try TableInfo.read(db, table: name) else { continue }
            let columnsB = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, ?)", arguments: [name, other])
            let common = infoA.columns.map(\.name).filter { columnsB.contains($0) }
            let onlyA = infoA.columns.map(\.name).filter { !columnsB.contains($0) }
            let onlyB = columnsB.filter { !infoA.columns.map(\.name).contains($0) }
            if !onlyA.isEmpty { result.columnsOnlyInA[name] = onlyA }
            if !onlyB.isEmpty { result.columnsOnlyInB[name] = onlyB }
            var key = keys[name] ?? recorded[name].flatMap { $0.isEmpty ? nil : $0 } ?? infoA.primaryKey
            if key.isEmpty || !key.allSatisfy(common.contains) { key = infoA.withoutRowID ? common : ["rowid"] }
            result.tables.append(try compareTable(db, name: name, other: other, key: key, columns: common.filter { !key.contains($0) }))
        }
        return result
    }

    private static func compareTable(_ db: Database, name: String, other: String, key: [String], columns: [String]) throws -> TableDiff {
        let keyList = key.map { $0 == "rowid" ? "rowid" : quoteIdentifier($0) }
        let select = (keyList + columns.map(quoteIdentifier)).joined(separator: ", ")
        let order = keyList.map { "\($0) COLLATE BINARY" }.joined(separator: ", ")
        // The Statement objects own the handles: they must outlive the merge below.
        let statementA = try db.makeStatement(sql: "SELECT \(select) FROM main.\(quoteIdentifier(name)) ORDER BY \(order)")
        let statementB = try db.makeStatement(sql: "SELECT \(select) FROM \(other).\(quoteIdentifier(name)) ORDER BY \(order)")
        return try withExtendedLifetime((statementA, statementB)) {
            try merge(statementA.sqliteStatement, statementB.sqliteStatement, db, name: name, key: key, columns: columns)
        }
    }

    private static func merge(_ a: OpaquePointer, _ b: OpaquePointer, _ db: Database, name: String, key: [String], columns: [String]) throws -> TableDiff {
        var diff = TableDiff(table: name, key: key)
        let keyCount = Int32(key.count)
        let total = Int32(key.count + columns.count)
        // Each row's column types, read once per row (every SQLite API call costs).
        var typesA = [Int32](repeating: 0, count: Int(total))
        var typesB = [Int32](repeating: 0, count: Int(total))
        func load(_ statement: OpaquePointer, into types: inout [Int32]) {
            for index in 0..<total { types[Int(index)] = sqlite3_column_type(statement, index) }
        }
        var hasA = try step(a, db)
        var hasB = try step(b, db)
        if hasA { load(a, into: &typesA) }
        if hasB { load(b, into: &typesB) }
        while hasA || hasB {
            var order = 0
            if hasA && hasB {
                for index in 0..<keyCount {
                    order = compare(a, index, typesA[Int(index)], b, index, typesB[Int(index)])
                    if order != 0 { break }
                }
            } else {
                order = hasA ? -1 : 1
            }
            if order < 0 {
                diff.removed.append(values(a, 0..<keyCount))
                hasA = try step(a, db)
                if hasA { load(a, into: &typesA) }
            } else if order > 0 {
                diff.added.append(values(b, 0..<keyCount))
                hasB = try step(b, db)
                if hasB { load(b, into: &typesB) }
            } else {
                var changes: [(column: String, old: SQLValue, new: SQLValue)] = []
                for index in keyCount..<total {
                    let typeA = typesA[Int(index)], typeB = typesB[Int(index)]
                    if typeA != typeB || compare(a, index, typeA, b, index, typeB) != 0 {
                        changes.append((columns[Int(index - keyCount)], value(a, index), value(b, index)))
                    }
                }
                if !changes.isEmpty { diff.changed.append((values(a, 0..<keyCount), changes)) }
                hasA = try step(a, db)
                hasB = try step(b, db)
                if hasA { load(a, into: &typesA) }
                if hasB { load(b, into: &typesB) }
            }
        }
        return diff
    }

    private static func step(_ statement: OpaquePointer, _ db: Database) throws -> Bool {
        let result = sqlite3_step(statement)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: result), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// SQLite's ORDER BY … COLLATE BINARY order: NULL, then numbers, then text (bytes), then blobs.
    private static func compare(_ a: OpaquePointer, _ i: Int32, _ typeA: Int32, _ b: OpaquePointer, _ j: Int32, _ typeB: Int32) -> Int {
        func rank(_ type: Int32) -> Int {
            switch type {
            case SQLITE_NULL: return 0
            case SQLITE_INTEGER, SQLITE_FLOAT: return 1
            case SQLITE_TEXT: return 2
            default: return 3
            }
        }
        let rankA = rank(typeA), rankB = rank(typeB)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch rankA {
        case 0: return 0
        case 1:
            if typeA == SQLITE_INTEGER && typeB == SQLITE_INTEGER {
                let x = sqlite3_column_int64(a, i), y = sqlite3_column_int64(b, j)
                return x == y ? 0 : (x < y ? -1 : 1)
            }
            let x = sqlite3_column_double(a, i), y = sqlite3_column_double(b, j)
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            let pointerA = rankA == 2 ? UnsafeRawPointer(sqlite3_column_text(a, i)) : sqlite3_column_blob(a, i)
            let pointerB = rankA == 2 ? UnsafeRawPointer(sqlite3_column_text(b, j)) : sqlite3_column_blob(b, j)
            let countA = Int(sqlite3_column_bytes(a, i)), countB = Int(sqlite3_column_bytes(b, j))
            let common = min(countA, countB)
            if common > 0, let pointerA, let pointerB {
                let result = memcmp(pointerA, pointerB, common)
                if result != 0 { return result < 0 ? -1 : 1 }
            }
            return countA == countB ? 0 : (countA < countB ? -1 : 1)
        }
    }

    private static func value(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, index)))))
        default: return .null
        }
    }

    private static func values(_ statement: OpaquePointer, _ range: Range<Int32>) -> [SQLValue] {
        range.map { value(statement, $0) }
    }
}
