import Foundation
import GRDB

/// Reporting: events, conflicts, key fields and column changes as the migration wrote them, and why SQLite refused a write.
extension MigrationRun {
    /// An input value as the text or number it reads as, for messages.
    static func sqlText(_ input: InputValue) -> SQLValue {
        switch input {
        case .null: return .null
        case .bool(let flag): return .text(flag ? "true" : "false")
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text), .json(let text): return .text(text)
        }
    }

    /// The name the migration used for a table (an entity, for Core Data), for validators that speak the manifest's language.
    func written(_ table: TableInfo) -> String {
        dialect.tableName(operationName) == table.name ? operationName : writtenTableNames[table.name] ?? table.name
    }

    /// Resolved values with the column names the migration wrote.
    func written(_ values: [(column: String, value: SQLValue)], as row: DataChanges.RowValues) -> [(
        column: String, value: SQLValue
    )] {
        // Plain SQLite and every column written as the schema spells it: the names are the ones written.
        if plainSQLite, values.count == row.values.count, zip(values, row.values).allSatisfy({ $0.column == $1.column })
        {
            return values
        }
        return values.map { value in
            // The last name written for the column (rows are a handful of columns: no dictionary per row).
            let wanted = SQLName(value.column)
            var name: String?
            for (column, _) in row.values where wanted.matches(storeColumn(column)) { name = column }
            return (name ?? value.column, value.value)
        }
    }

    /// `price is 13, expected 10` for each column that differs (refs by the parent's key): the
    /// `from` check.
    ///
    /// A column compares as SQLite compares it: bytes, or its declared NOCASE or RTRIM collation
    /// (docs/reference.md, "How seedkit compares text and names").
    mutating func mismatches(_ current: StoredRow, _ values: [(column: String, value: SQLValue)], in table: TableInfo)
        throws -> String
    {
        var found: [String] = []
        for (column, expected) in values {
            let actual = current[SQLName(column)] ?? .null
            if !actual.isSame(as: expected, collation: table.column(column)?.collation ?? "BINARY") {
                let (isText, expectedText) = try shownSideBySide(actual, expected, column: column, in: table)
                found.append(
                    "\(shownName(column, in: table).escapingControls()) is \(isText), expected \(expectedText)")
            }
        }
        return found.joined(separator: "; ")
    }

    /// Two values of `column` as a report shows them side by side (``shown(_:column:in:)``); two
    /// texts whose bytes differ but that print alike (NFC and NFD) show their scalars.
    mutating func shownSideBySide(_ a: SQLValue, _ b: SQLValue, column: String, in table: TableInfo) throws -> (
        String, String
    ) {
        let pair = (try shown(a, column: column, in: table), try shown(b, column: column, in: table))
        guard pair.0 == pair.1, case .text(let x) = a, case .text(let y) = b else { return pair }
        return ("'" + x.escapingNonASCII + "'", "'" + y.escapingNonASCII + "'")
    }

    /// The parent row a stored ref value names, by its natural key; nil for columns that are not
    /// refs, NULL, and ids no parent row has (shown as stored).
    mutating func parent(of value: SQLValue?, column: String, in table: TableInfo) throws -> RowEvent.Reference? {
        guard let value, value != .null,
            let reference = references(of: table.name)[SQLName(storeColumn(column, in: table))]
                ?? references(of: table.name)[SQLName(column)],
            let sqlColumn = table.column(storeColumn(column, in: table)) ?? table.column(column)
        else { return nil }
        let parentTable = try tableInfo(reference.table, file: "")
        guard let keyColumn = parentTable.column(reference.column),
            let key = try db.cachedStatement(
                sql: table.parentKeyLookupSQL(of: sqlColumn.name, parent: parentTable, keyColumn: keyColumn.name)
            ).firstValue(binding: [value])
        else { return nil }
        let shown = specs.writtenRef(table.name, SQLName(sqlColumn.name))?.reference
        return RowEvent.Reference(
            table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name, value: key)
    }

    /// A value as the report shows it: a ref by its parent's key, a UUID attribute as its text.
    mutating func shown(_ value: SQLValue, column: String, in table: TableInfo) throws -> String {
        let type = (table.column(storeColumn(column, in: table)) ?? table.column(column))?.type
        return RowEvent.describe(value.readable(as: type), parent: try parent(of: value, column: column, in: table))
    }

    /// A store column as the model names it (`ZPAGES` → `pages`) for a Core Data entity; else as it is.
    func shownName(_ column: String, in table: TableInfo) -> String {
        guard let coreData, let entity = coreData.entity(named: written(table)) else { return column }
        return coreData.propertyName(ofColumn: column, entity: entity)
    }

    mutating func conflict(
        _ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue], changes: [RowEvent.ColumnChange] = [],
        _ detail: String
    ) -> RowEvent {
        if options.onConflict == .fail {
            // The detail ends with what `keep` does ("; the store's values are kept"); under `fail` nothing is written.
            let reason = detail.range(of: "; ", options: .backwards).map { String(detail[..<$0.lowerBound]) } ?? detail
            errors.append(
                Diagnostic(
                    file: file, line: line, code: .conflict,
                    message:
                        "conflict on \(written(table)) \(RowEvent.describe(key: key)): \(reason); --on-conflict fail: nothing was written",
                    table: table.name))
        }
        return RowEvent(
            kind: .conflict, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    mutating func event(
        _ kind: RowEvent.Kind, _ table: TableInfo, row: DataChanges.RowValues, key: [RowEvent.KeyValue],
        _ detail: String
    ) -> RowEvent {
        event(kind, table, line: row.line, file: row.file, key: key, detail)
    }

    mutating func event(
        _ kind: RowEvent.Kind, _ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue],
        changes: [RowEvent.ColumnChange] = [], _ detail: String
    ) -> RowEvent {
        kind == .conflict
            ? conflict(table, line: line, file: file, key: key, changes: changes, detail)
            : RowEvent(
                kind: kind, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    /// A resolved key as a report shows it: columns by the names migrations use, and each ref
    /// column with its parent's natural key (converted from what the migration wrote).
    mutating func keyFields(
        _ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues
    ) throws -> [RowEvent.KeyValue] {
        var fields: [RowEvent.KeyValue] = []
        fields.reserveCapacity(key.count)
        let shapes = keyFieldShapes(key, in: table, input: input)
        for ((column, value), shape) in zip(key, shapes) {
            var parent: RowEvent.Reference?
            if let reference = shape.reference, let given = shape.given,
                case let writtenKey = input.values[given].value, writtenKey != .null
            {
                let parentTable = try tableInfo(reference.table, file: input.file)
                if let keyColumn = parentTable.column(reference.column),
                    case .success(let parentKey) = dialect.columnType(keyColumn).convert(writtenKey)
                {
                    let shown = specs.writtenRef(table.name, SQLName(column))?.reference
                    parent = RowEvent.Reference(
                        table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name,
                        value: parentKey.readable(as: keyColumn.type))
                }
            }
            // A UUID attribute's 16 bytes as the migration writes them (reports would say `<16 bytes>`).
            let shown = parent == nil && shape.uuid ? value.readable(as: .uuid) : value
            fields.append(RowEvent.KeyValue(column: shape.name, value: shown, parent: parent))
        }
        return fields
    }

    /// For each key column, as ``keyFields(_:in:input:)`` shows it: the name migrations use, the
    /// position of the value the row wrote for it, and its ref.
    ///
    /// Worked out once per row shape.
    mutating func keyFieldShapes(
        _ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues
    ) -> [KeyFieldShape] {
        if let last = memo.keyFields, last.table == table.name, last.operation == operationName,
            last.key.elementsEqual(key.lazy.map(\.column)), last.names.elementsEqual(input.values.lazy.map(\.column))
        {
            return last.shapes
        }
        let shapes = key.map { column, _ in
            let wanted = SQLName(column)
            // What the migration wrote for the column: the last value under a name that maps to it,
            // else the first under its own name.
            var given: Int?
            for (index, (name, _)) in input.values.enumerated() {
                if wanted.matches(storeColumn(name, in: table)) {
                    given = index
                } else if given == nil, wanted.matches(name) {
                    given = index
                }
            }
            let name = specs.writtenColumn(table.name, wanted) ?? given.map { input.values[$0].column } ?? column
            return KeyFieldShape(
                name: name, given: given, reference: references(of: table.name)[wanted],
                uuid: table.column(column)?.type == .uuid)
        }
        memo.keyFields = (table.name, operationName, key.map(\.column), input.values.map(\.column), shapes)
        return shapes
    }

    /// Each column of `from` and `to` (in `to`'s order, then `from`'s), with what the store holds after the run.
    ///
    /// Ref columns carry their parents' keys.
    mutating func columnChanges(
        from: [(column: String, value: SQLValue)], to: [(column: String, value: SQLValue)], current: StoredRow,
        applied: Bool, in table: TableInfo
    ) throws -> [RowEvent.ColumnChange] {
        var changes: [RowEvent.ColumnChange] = []
        for (column, value) in to {
            let old = from.first { $0.column.isSameName(as: column) }?.value
            changes.append(
                RowEvent.ColumnChange(
                    column: column, old: old, new: value,
                    kept: applied
                        ? value : current[SQLName(storeColumn(column, in: table))] ?? current[SQLName(column)] ?? .null)
            )
        }
        for (column, value) in from where !to.contains(where: { $0.column.isSameName(as: column) }) {
            changes.append(
                RowEvent.ColumnChange(
                    column: column, old: value, new: nil,
                    kept: current[SQLName(storeColumn(column, in: table))] ?? current[SQLName(column)] ?? .null))
        }
        for index in changes.indices {
            let column = changes[index].column
            changes[index].oldParent = try parent(of: changes[index].old, column: column, in: table)
            changes[index].newParent = try parent(of: changes[index].new, column: column, in: table)
            changes[index].keptParent = try parent(of: changes[index].kept, column: column, in: table)
            // A UUID attribute's values as their text (two different UUIDs never print alike).
            let type = (table.column(storeColumn(column, in: table)) ?? table.column(column))?.type
            changes[index].old = changes[index].old?.readable(as: type)
            changes[index].new = changes[index].new?.readable(as: type)
            changes[index].kept = changes[index].kept?.readable(as: type)
        }
        return changes
    }

    func describe(_ value: SQLValue) -> String { RowEvent.describe(value) }

    /// Why a write SQLite refused as a UNIQUE or PRIMARY KEY failure is a collision the schema
    /// expects, not a broken migration: another row holds the value, and the schema declares
    /// `ON CONFLICT REPLACE` (which would have deleted that row) or `IGNORE` (which would have
    /// dropped this one) for the constraint.
    ///
    /// seedkit's statements name `OR ABORT`, so neither happened; the row is reported as not
    /// applied, with the row that holds the value. Nil for other failures (an error, as ever).
    mutating func schemaCollision(
        _ error: DatabaseError, in table: TableInfo, values: [(column: String, value: SQLValue)]
    ) throws -> String? {
        guard
            error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
                || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY,
            let columns = ConflictClauses.columns(inConstraintMessage: error.message ?? ""),
            let clause = try ConflictClauses.read(db, table: table.name).uniqueClause(on: columns),
            clause.algorithm == "REPLACE" || clause.algorithm == "IGNORE"
        else { return nil }
        let held = columns.map { column in values.last { $0.column.isSameName(as: column) }?.value ?? .null }
        let heldText = zip(columns, held).map { "\($0) \(RowEvent.describe($1))" }.joined(separator: ", ")
        let keyColumns = (try? Self.keyColumns(table, spec: spec(table), file: "", line: 0)) ?? ["rowid"]
        let holder = try db.sqlRow(
            "SELECT \(keyColumns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table.name)) WHERE \(columns.map { "\(quoteIdentifier($0)) IS ?" }.joined(separator: " AND "))",
            binding: held)
        var holderText = "another row"
        if let holder {
            holderText = "the store's row " + holder.map { RowEvent.describe($0) }.joined(separator: " / ")
        }
        let constraint = "\(written(table)).\(columns.joined(separator: ", "))"
        if clause.algorithm == "REPLACE" {
            return
                "its \(heldText) is held by \(holderText); the schema's ON CONFLICT REPLACE on \(constraint) would delete that row, so it is kept and this one is not written"
        }
        return "ignored by the schema's ON CONFLICT IGNORE on \(constraint): its \(heldText) is held by \(holderText)"
    }

    func constraintCode(_ error: DatabaseError) -> DiagnosticCode {
        let message = error.message ?? ""
        if message.hasPrefix("NOT NULL") { return .missingRequired }
        if message.hasPrefix("UNIQUE") { return .duplicateKey }
        if message.hasPrefix("FOREIGN KEY") { return .unresolvedReference }
        return .otherRule
    }

    /// Which of the store's rows a unique index says holds what `values` would insert, when
    /// SQLite skipped the row although its key, compared as its columns compare, is not there
    /// (an index of another collation): the row named by its key, the index, and the row's values.
    mutating func heldByUniqueIndex(_ table: TableInfo, values: [(column: String, value: SQLValue)]) throws
        -> String?
    {
        for index in try Row.fetchAll(
            db, sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND partial = 0",
            arguments: [table.name])
        {
            let name: String = index[0] ?? ""
            let parts = try Row.fetchAll(
                db, sql: "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", arguments: [name])
            var terms: [String] = []
            var bound: [SQLValue] = []
            for part in parts {
                guard let column = part[0] as String?,
                    let value = values.last(where: { $0.column.isSameName(as: column) })?.value
                else { break }
                terms.append(
                    "\(quoteIdentifier(column)) = ? COLLATE \(quoteIdentifier(part[1] as String? ?? "BINARY"))")
                bound.append(value)
            }
            guard !terms.isEmpty, terms.count == parts.count else { continue }
            let keyColumns = (try? Self.keyColumns(table, spec: spec(table), file: "", line: 0)) ?? ["rowid"]
            let shown = values.map(\.column)
            let selected = (keyColumns + shown).map(quoteIdentifier).joined(separator: ", ")
            guard
                let holder = try db.sqlRow(
                    "SELECT \(selected) FROM \(quoteIdentifier(table.name)) WHERE \(terms.joined(separator: " AND ")) LIMIT 1",
                    binding: bound)
            else { continue }
            let key = holder.prefix(keyColumns.count).map { RowEvent.describe($0) }.joined(separator: " / ")
            let described = parts.map { part in
                let coll = part[1] as String? ?? "BINARY"
                return (part[0] as String? ?? "") + (coll == "BINARY" ? "" : " COLLATE \(coll)")
            }.joined(separator: ", ")
            let row = zip(shown, holder.dropFirst(keyColumns.count)).map { "\($0) \(RowEvent.describe($1))" }
                .joined(separator: ", ")
            return
                "the store's row \(key) holds the same value under the unique index \(name) (\(described)): \(row)"
        }
        return nil
    }
}
