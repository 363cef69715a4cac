import Foundation
import GRDB
import SeedRuntime

/// Reads rows of a manifest's tables in the app's terms: refs as the parent's natural key,
/// without the ids SQLite assigns. Shared by `new-migration` and `check-upgrade`.
struct SemanticRows {
    let spec: TableSpec
    let table: TableInfo
    let semantics: StoreDiff.Semantics

    /// The natural key's columns.
    var keyColumns: [String] { spec.key.isEmpty ? table.primaryKey : spec.key.compactMap { table.column($0)?.name } }

    /// The columns compared and written: all but ignored ids, key first.
    var columns: [String] {
        let ignored = semantics.ignored[spec.name] ?? []
        let key = keyColumns
        return key + table.columns.map(\.name).filter { !ignored.contains($0) && !key.contains($0) }
    }

    private func expression(_ column: String) -> String { semantics.expressions[spec.name]?[column] ?? quoteIdentifier(column) }

    /// The row whose key equals `key`, column → value, or nil.
    func row(_ db: Database, key: [SQLValue]) throws -> [(column: String, value: SQLValue)]? {
        let keyColumns = self.keyColumns
        let predicate = keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND ")
        let sql = "SELECT \(columns.map(expression).joined(separator: ", ")) FROM \(quoteIdentifier(spec.name)) WHERE \(predicate) LIMIT 1"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(key)) else { return nil }
        return columns.enumerated().map { index, column in (column, SQLValue.fromDatabaseValue(row[index]) ?? .null) }
    }

    /// How many rows have `key`.
    func count(_ db: Database, key: [SQLValue]) throws -> Int {
        let predicate = keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND ")
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(spec.name)) WHERE \(predicate)", arguments: StatementArguments(key)) ?? 0
    }

    static func make(_ manifest: Manifest, in db: Database) throws -> (rows: [SemanticRows], semantics: StoreDiff.Semantics) {
        let specs = manifest.tables.map(\.spec)
        let semantics = try StoreDiff.Semantics.of(specs, in: db)
        let rows = try specs.compactMap { spec in try TableInfo.read(db, table: spec.name).map { SemanticRows(spec: spec, table: $0, semantics: semantics) } }
        return (rows, semantics)
    }
}

extension SQLValue {
    /// The value as a migration file gives it.
    var inputValue: InputValue {
        switch self {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .string(value)
        case .blob(let bytes): return .string(Data(bytes).base64EncodedString())
        }
    }

    /// The value as YAML: JSON-style double-quoted strings, which YAML reads as written.
    var yaml: String {
        switch self {
        case .null: return "null"
        case .integer(let value): return String(value)
        case .real(let value): return SQLValue.format(value)
        case .text(let value): return DocNode.quote(value)
        case .blob(let bytes): return DocNode.quote(Data(bytes).base64EncodedString())
        }
    }
}
