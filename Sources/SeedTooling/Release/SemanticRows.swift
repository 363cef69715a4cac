import Foundation
import GRDB
import SeedRuntime

/// Reads rows of a manifest's tables in the app's terms: refs as the parent's natural key,
/// without the ids SQLite assigns.
///
/// Shared by `new-migration` and `check-upgrade`.
struct SemanticRows {
    /// The table's spec in the store's names (for Core Data: `ZBOOK`, `ZTITLE`).
    let spec: TableSpec
    /// The same spec as the manifest writes it (for Core Data: `Book`, `title`).
    let written: TableSpec
    let table: TableInfo
    let semantics: StoreDiff.Semantics
    /// Store column → the manifest's name for it (identity for plain SQLite).
    let writtenColumns: [String: String]
    /// The natural key's columns, in store names.
    let keyColumns: [String]
    /// The natural key's columns as the manifest writes them (asked once per row of a release).
    let writtenKeyColumns: [String]
    /// Core Data's date columns (seconds since 2001-01-01), which a migration gives as a fixture does.
    let dateColumns: Set<String>

    init(
        spec: TableSpec, written: TableSpec, table: TableInfo, semantics: StoreDiff.Semantics,
        writtenColumns: [String: String], dateColumns: Set<String> = []
    ) {
        self.spec = spec
        self.written = written
        self.table = table
        self.semantics = semantics
        self.writtenColumns = writtenColumns
        self.dateColumns = dateColumns
        keyColumns = spec.key.isEmpty ? table.primaryKey : spec.key.compactMap { table.column($0)?.name }
        writtenKeyColumns = keyColumns.map { writtenColumns[$0] ?? $0 }
    }

    /// The manifest's name for a store column.
    func writtenName(_ column: String) -> String { writtenColumns[column] ?? column }

    /// `value` of store column `column` as a migration gives it: a Core Data date as a fixture
    /// does (ISO 8601, UTC, for a whole second; its seconds since 2001 only with a fraction:
    /// docs/core-data.md), where new-migration wrote seconds for every date (pegase's -978300000).
    func writtenValue(_ value: SQLValue, column: String) -> SQLValue {
        guard dateColumns.contains(column) else { return value }
        let seconds: Double
        switch value {
        case .real(let number): seconds = number
        case .integer(let number): seconds = Double(number)
        default: return value
        }
        // A fraction of a second stays the number it is (as the fixtures give it): ISO 8601 text
        // read back can be off in the last digit.
        guard seconds == seconds.rounded(), let text = CoreDataStoreExport.isoDate(seconds), text.hasSuffix("Z")
        else { return value }
        return .text(text)
    }

    /// The store's name for a column the manifest (or a migration) names.
    func storeName(_ column: String) -> String {
        writtenColumns.first { $0.value.isSameName(as: column) }?.key ?? table.column(column)?.name ?? column
    }

    /// The columns compared and written: all but ignored ids, key first.
    var columns: [String] {
        let ignored = semantics.ignored[spec.name] ?? []
        let key = keyColumns
        return key + table.columns.map(\.name).filter { !ignored.contains($0) && !key.contains($0) }
    }

    /// A key as a migration gives it, in the form ``row(_:key:storedOnly:)`` reads the store's
    /// keys: a UUID attribute's text in either case as `UUID.uuidString` prints it.
    func readable(_ key: [SQLValue]) -> [SQLValue] {
        zip(keyColumns, key).map { column, value in
            guard table.column(column)?.type == .uuid, case .text(let text) = value, let uuid = UUID(uuidString: text)
            else { return value }
            return .text(uuid.uuidString)
        }
    }

    /// `value`, given for store column `column`, as ``row(_:key:storedOnly:)`` reads it back: a
    /// UUID column's text as `UUID.uuidString` prints it, other values converted by the column's type.
    func readBack(_ value: InputValue, column: String) -> SQLValue {
        guard let info = table.column(column) else { return UpgradeChecker.sqlValue(value) }
        if info.type == .uuid, case .string(let text) = value, let uuid = UUID(uuidString: text) {
            return .text(uuid.uuidString)
        }
        return (try? info.type.convert(value).get()) ?? .null
    }

    private func expression(_ column: String) -> String {
        semantics.expressions[spec.name]?[column] ?? quoteIdentifier(column)
    }

    /// The row whose key equals `key`, store column → value, or nil.
    ///
    /// With `storedOnly`, only the columns this store has are read (an old seed may lack the
    /// release's new ones).
    func row(_ db: Database, key: [SQLValue], storedOnly: Bool = false) throws -> [(column: String, value: SQLValue)]? {
        let keyColumns = self.keyColumns
        let key = readable(key)
        var columns = self.columns
        if storedOnly {
            guard let stored = try TableInfo.read(db, table: spec.name) else { return nil }
            columns = columns.filter { stored.column($0) != nil }
        }
        let predicate = keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND ")
        let sql =
            "SELECT \(columns.map(expression).joined(separator: ", ")) FROM \(quoteIdentifier(spec.name)) WHERE \(predicate) LIMIT 1"
        guard let row = try db.sqlRow(sql, binding: key) else { return nil }
        return Array(zip(columns, row))
    }

    /// The rows whose keys are `keys`, each as ``row(_:key:storedOnly:)`` reads it, in their order
    /// (nil for a key no row has): one statement, prepared once, for a release's thousands of rows.
    func rows(_ db: Database, keys: [[SQLValue]]) throws -> [[(column: String, value: SQLValue)]?] {
        guard !keys.isEmpty else { return [] }
        let columns = self.columns
        let predicate = keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND ")
        let statement = try db.makeStatement(
            sql:
                "SELECT \(columns.map(expression).joined(separator: ", ")) FROM \(quoteIdentifier(spec.name)) WHERE \(predicate) LIMIT 1"
        )
        return try keys.map { key in
            var found: [SQLValue]?
            try statement.forEachRow(binding: readable(key)) { found = $0 }
            return found.map { Array(zip(columns, $0)) }
        }
    }

    /// The SQL finding the row whose key equals `key` (``row(_:key:storedOnly:)``'s predicate) and its arguments.
    func keyPredicate(_ key: [SQLValue]) -> (sql: String, arguments: [SQLValue]) {
        (keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND "), readable(key))
    }

    /// The table's first row (by rowid), store column → value, or nil when it is empty.
    ///
    /// Only the columns this store has are read (an old seed may lack the release's new ones).
    func firstRow(_ db: Database) throws -> [(column: String, value: SQLValue)]? {
        guard let stored = try TableInfo.read(db, table: spec.name) else { return nil }
        let columns = self.columns.filter { stored.column($0) != nil }
        let order = table.withoutRowID ? keyColumns.map { quoteIdentifier($0) }.joined(separator: ", ") : "rowid"
        let sql =
            "SELECT \(columns.map(expression).joined(separator: ", ")) FROM \(quoteIdentifier(spec.name)) ORDER BY \(order) LIMIT 1"
        guard let row = try db.sqlRow(sql) else { return nil }
        return Array(zip(columns, row))
    }

    /// Every row's key (as ``row(_:key:)`` reads it) with the stored value of `column`.
    func keys(_ db: Database, with column: String) throws -> [(key: [SQLValue], value: SQLValue)] {
        let keyColumns = self.keyColumns
        let sql =
            "SELECT \((keyColumns.map(expression) + [quoteIdentifier(column)]).joined(separator: ", ")) FROM \(quoteIdentifier(spec.name))"
        return try db.sqlRows(sql).map { row in (Array(row[..<keyColumns.count]), row[keyColumns.count]) }
    }

    /// The column SQLite assigns when a row gives none (a single-column INTEGER PRIMARY KEY that
    /// is not the natural key); nil when the table has none.
    var assignedID: String? {
        let primaryKey = table.primaryKey
        guard primaryKey.count == 1, (semantics.ignored[spec.name] ?? []).contains(primaryKey[0]) else { return nil }
        return primaryKey[0]
    }

    /// The ref of a column (store names), if it is one.
    func reference(_ column: String) -> TableSpec.Reference? {
        spec.refs.first { $0.key.isSameName(as: column) }?.value
    }

    /// Whether a row has `key`: one statement per table, prepared once (a release names
    /// thousands of keys).
    ///
    /// ``KeyFinder`` asks the same without building its SQL each time.
    func contains(_ db: Database, key: [SQLValue]) throws -> Bool {
        try db.cachedStatement(sql: containsSQL).firstValue(binding: readable(key)) != nil
    }

    /// The statement of ``contains(_:key:)``: one row with the key, its values bound in order.
    var containsSQL: String {
        "SELECT 1 FROM \(quoteIdentifier(spec.name)) WHERE \(keyPredicate([]).sql) LIMIT 1"
    }

    /// How many rows have `key`.
    func count(_ db: Database, key: [SQLValue]) throws -> Int {
        let key = readable(key)
        let predicate = keyColumns.map { "\(expression($0)) IS ?" }.joined(separator: " AND ")
        guard
            case .integer(let count)? = try db.sqlRow(
                "SELECT count(*) FROM \(quoteIdentifier(spec.name)) WHERE \(predicate)", binding: key)?.first
        else { return 0 }
        return Int(count)
    }

    static func make(_ manifest: Manifest, in db: Database) throws -> (
        rows: [SemanticRows], semantics: StoreDiff.Semantics
    ) {
        let written = manifest.tables.map(\.spec)
        // The manifest's model says which columns are UUID attributes (a build in progress has not recorded it yet).
        let facts = manifest.model?.facts
        let semantics = try StoreDiff.Semantics.of(written, in: db, facts: facts)
        let coreData = try CoreDataDialect.read(db, facts: facts)
        var rows: [SemanticRows] = []
        for (writtenSpec, spec) in zip(written, try StoreDiff.storeSpecs(written, in: db, facts: facts)) {
            guard let read = try TableInfo.read(db, table: spec.name) else { continue }
            let table = coreData?.adjusted(read) ?? read
            var names: [String: String] = [:]
            if let coreData {
                // Attributes and to-one relationships by their Z column; the model names them when there is one.
                let entity = manifest.model?.flattened(writtenSpec.name)
                let modelNames =
                    (entity?.attributes.map(\.name) ?? [])
                    + (entity?.relationships.filter { !$0.toMany }.map(\.name) ?? [])
                for name in modelNames + writtenSpec.key + Array(writtenSpec.refs.keys) {
                    names[coreData.columnName(name, in: writtenSpec.name)] = name
                }
            }
            let dates = Set(table.columns.filter { coreData?.columnType($0) == .referenceDate }.map(\.name))
            rows.append(
                SemanticRows(
                    spec: spec, written: writtenSpec, table: table, semantics: semantics, writtenColumns: names,
                    dateColumns: dates))
        }
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
        case .text(let value): return Self.yamlQuoted(value)
        case .blob(let bytes): return DocNode.quote(Data(bytes).base64EncodedString())
        }
    }

    /// `text` as a double-quoted YAML scalar: JSON's quoting (``DocNode/quote(_:)``), and escaped
    /// as `\uXXXX` each character YAML does not read raw as itself: NEL (U+0085), U+2028 and
    /// U+2029, line breaks to it (`"b<NEL>c"` was inserted as `b c`, `"x <LS> y"` as `x<LS>y`);
    /// DEL, U+0080–U+009F, U+FFFE and U+FFFF, which it refuses (the written file was refused).
    static func yamlQuoted(_ text: String) -> String {
        let quoted = DocNode.quote(text)
        // By bytes, each such character's UTF-8 found whole (a combining mark after one is its own).
        func escaped(_ utf8: [UInt8], _ index: Int) -> (width: Int, scalar: UInt32)? {
            let rest = utf8.count - index
            switch utf8[index] {
            case 0x7F: return (1, 0x7F)
            case 0xC2 where rest >= 2 && (0x80...0x9F).contains(utf8[index + 1]):
                return (2, UInt32(utf8[index + 1]))
            case 0xE2
            where rest >= 3 && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                return (3, 0x2000 | UInt32(utf8[index + 2] - 0x80))
            case 0xEF where rest >= 3 && utf8[index + 1] == 0xBF && utf8[index + 2] >= 0xBE:
                return (3, 0xFFC0 | UInt32(utf8[index + 2] - 0x80))
            default: return nil
            }
        }
        guard quoted.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xEF }) else {
            return quoted
        }
        let utf8 = Array(quoted.utf8)
        guard utf8.indices.contains(where: { escaped(utf8, $0) != nil }) else { return quoted }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 12)
        var index = 0
        while index < utf8.count {
            if let (width, scalar) = escaped(utf8, index) {
                let hex = String(scalar, radix: 16, uppercase: true)
                bytes += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
                index += width
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Finds rows by key in one store, as ``SemanticRows/contains(_:key:)`` does, with each table's
/// statement prepared once and its arguments bound through SQLite's C API: the release-time key
/// check asks once per key a release names (150k at issue 45's size), so the cost per question
/// is SQLite's index lookup, not building and hashing its SQL.
///
/// Use it inside the `read` that gave `db` only.
final class KeyFinder {
    private let db: Database
    /// By the table as the manifest names it: Core Data keeps a sub-entity in its parent's table
    /// (`Ebook` in `ZBOOK`), under a key of its own, so the store's table name is not enough.
    private var statements: [String: Statement] = [:]

    init(_ db: Database) { self.db = db }

    func contains(_ table: SemanticRows, key: [SQLValue]) throws -> Bool {
        let statement: Statement
        if let prepared = statements[table.written.name] {
            statement = prepared
        } else {
            statement = try db.makeStatement(sql: table.containsSQL)
            statements[table.written.name] = statement
        }
        return try statement.firstValue(binding: table.readable(key)) != nil
    }
}

extension [SemanticRows] {
    /// The table named `name` as a migration writes it, matched as SQLite matches names.
    func named(_ name: String) -> SemanticRows? { first { $0.written.name.isSameName(as: name) } }
}
