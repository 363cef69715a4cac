import Foundation
import GRDB

/// A row as read from the store: each column's value by its name (and the rowid under ``MigrationRun/rowidKey``).
typealias StoredRow = [SQLName: SQLValue]

/// Resolving: tables, keys, refs to parent ids, specs as the operation names them, and finding rows.
extension MigrationRun {
    /// The SQL column that `name`, as the migration wrote it, means in `table`: asked of the
    /// dialect with the operation's table (or entity) name when `table` is its table, else with
    /// `table`'s (a Core Data column depends on the entity: ``CoreDataDialect/columnLayout(_:)``).
    func storeColumn(_ name: String, in table: TableInfo? = nil) -> String {
        guard let table, dialect.tableName(operationName) != table.name else {
            return dialect.columnName(name, in: operationName)
        }
        return dialect.columnName(name, in: table.name)
    }

    mutating func tableInfo(_ name: String, file: String) throws -> TableInfo {
        if let info = tables[name] { return info }
        writtenTableNames[dialect.tableName(name)] = writtenTableNames[dialect.tableName(name)] ?? name
        guard !SeedCatalog.isInternal(name), let info = try TableInfo.read(db, table: dialect.tableName(name)) else {
            throw SeedError(
                .configuration, file: file,
                "unknown table '\(name)': the store has \(try TableInfo.userTables(db).joined(separator: ", "))")
        }
        let adjusted = dialect.adjusted(info)
        tables[name] = adjusted
        return adjusted
    }

    mutating func keyColumns(_ table: TableInfo, file: String, line: Int) throws -> [String] {
        try Self.keyColumns(table, spec: spec(table), file: file, line: line)
    }

    /// The natural key `spec` gives `table`, or else its primary key.
    static func keyColumns(_ table: TableInfo, spec: TableSpec?, file: String, line: Int) throws -> [String] {
        if let key = spec?.key, !key.isEmpty { return key }
        let primaryKey = table.primaryKey
        guard !primaryKey.isEmpty else {
            throw SeedError(
                .configuration, file: file, line: line,
                "table \(table.name) has no primary key and no natural key; give it a `key:` in the manifest")
        }
        return primaryKey
    }

    /// A change's key, resolved (refs → parent ids) for finding the row, and as the report shows it.
    ///
    /// The report's form is empty when not `describing` (a row the report does not list).
    /// `keyColumns`, when given, are the table's key columns as ``keyColumns(_:file:line:)`` gives
    /// them for the operation.
    mutating func resolveKey(
        _ key: DataChanges.Key, in table: TableInfo, file: String, line: Int, keyColumns known: [String]? = nil,
        describing: Bool = true
    ) throws -> (
        [(column: String, value: SQLValue)], [RowEvent.KeyValue]
    )? {
        let columns = try known ?? keyColumns(table, file: file, line: line)
        // An entity with no key has only Z_PK, which each store numbers on its own: `key: 1` is a
        // different object in every user's store, so an update or delete by it is refused
        // (docs/core-data.md, "Keys and UUIDs").
        if let coreData, columns.count == 1,
            let refusal = coreData.keylessChangeRefusal(entity: written(table), column: columns[0])
        {
            errors.append(Diagnostic(file: file, line: line, code: .configuration, message: refusal, table: table.name))
            return nil
        }
        let row: DataChanges.RowValues
        switch key {
        case .single(let value):
            guard columns.count == 1 else {
                errors.append(
                    Diagnostic(
                        file: file, line: line, code: .configuration,
                        message:
                            "\(written(table)) has a composite key (\(columns.joined(separator: ", "))); write the key as a map of column: value",
                        table: table.name))
                return nil
            }
            row = DataChanges.RowValues(values: [(columns[0], value)], line: line, file: file)
        case .columns(let values):
            let given = Set(values.values.map { SQLName(storeColumn($0.column, in: table)) })
            guard given == Set(columns.map(SQLName.init)) else {
                errors.append(
                    Diagnostic(
                        file: file, line: line, code: .configuration,
                        message:
                            "the key of \(written(table)) is (\(columns.joined(separator: ", "))), but this key names (\(values.values.map(\.column).joined(separator: ", ")))",
                        table: table.name))
                return nil
            }
            row = values
        }
        let errorCount = errors.count
        let resolution = try resolve(row, in: table)
        if let parent = resolution.missing.first {
            errors.append(
                Diagnostic(
                    file: file, line: line, code: .unresolvedReference,
                    message: "the key of this \(written(table)) row: \(missingText(parent))", table: table.name))
            return nil
        }
        if errors.count > errorCount { return nil }
        if let empty = resolution.values.first(where: { $0.value == .null }) {
            errors.append(
                Diagnostic(
                    file: file, line: line, code: .missingRequired,
                    message:
                        "the key of this \(written(table)) row has no value for '\(empty.column)'; a key must have one",
                    table: table.name))
            return nil
        }
        return (resolution.values, describing ? try keyFields(resolution.values, in: table, input: row) : [])
    }

    /// A row's values converted to the columns' types, refs to the parents' ids.
    struct Resolution {
        var values: [(column: String, value: SQLValue)] = []
        /// Refs whose parent row is not in the store.
        var missing: [MissingParent] = []
    }

    /// Converts a row's values to the columns' types and refs to the parents' ids.
    ///
    /// Parents not in the store are listed in ``Resolution/missing``; other problems go to
    /// `errors`.
    mutating func resolve(_ row: DataChanges.RowValues, in table: TableInfo) throws -> Resolution {
        var result = Resolution()
        result.values.reserveCapacity(row.values.count)  // rows of a big migration: no regrowing
        let plan = columnPlan(for: row, in: table)
        for (index, (column, input)) in row.values.enumerated() {
            guard let info = plan[index].info, let type = plan[index].type else {
                errors.append(
                    Diagnostic(
                        file: row.file, line: row.line, code: .unknownColumn,
                        message:
                            "\(table.name) has no column '\(column)' (it has \(table.columns.map(\.name).joined(separator: ", ")))",
                        table: table.name))
                continue
            }
            if let reference = plan[index].reference, input != .null {
                switch try resolveReference(
                    reference, from: table, column: info, written: column, input: input, row: row)
                {
                case .found(let id): result.values.append((info.name, id))
                case .missing(let parent): result.missing.append(parent)
                case .failed: break
                }
                continue
            }
            switch type.convert(input) {
            case .success(let value): result.values.append((info.name, value))
            case .failure(let failure):
                errors.append(
                    Diagnostic(
                        file: row.file, line: row.line, code: .typeMismatch,
                        message:
                            // In the migration's terms: a Core Data entity's attribute (Book.pages), not ZBOOK.ZPAGES.
                            "\(written(table)).\(column): \(input) is not \(failure.expected) (the column is \(info.declaredType.isEmpty ? "untyped" : info.declaredType))",
                        table: table.name))
            }
        }
        return result
    }

    /// The columns `row` names in `table`: what ``resolve(_:in:)`` looks up, once per row shape.
    mutating func columnPlan(for row: DataChanges.RowValues, in table: TableInfo) -> [ColumnPlan] {
        let (tableName, operation) = (table.name, operationName)
        func fits(_ memo: RunMemo.Box<(table: String, operation: String, names: [String], plan: [ColumnPlan])>?)
            -> Bool
        {
            guard let memo, memo.value.table == tableName, memo.value.operation == operation,
                memo.value.names.count == row.values.count
            else { return false }
            return zip(memo.value.names, row.values).allSatisfy { $0 == $1.column }
        }
        if fits(memo.columns), let last = memo.columns { return last.value.plan }
        // An update or delete resolves its key and its `from` (and `to`) in turn: two shapes or
        // three for each row, each found again here.
        if let index = memo.earlierColumns.firstIndex(where: fits) {
            let found = memo.earlierColumns[index]
            memo.earlierColumns[index] = memo.columns
            memo.columns = found
            return found?.value.plan ?? []
        }
        memo.earlierColumns.removeLast()
        memo.earlierColumns.insert(memo.columns, at: 0)
        let references = references(of: table.name)
        let plan = row.values.map { column, _ in
            let info = table.column(storeColumn(column, in: table))
            return ColumnPlan(
                info: info, type: info.map(dialect.columnType), reference: info.flatMap { references[SQLName($0.name)] }
            )
        }
        memo.columns = RunMemo.Box((table.name, operationName, row.values.map(\.column), plan))
        return plan
    }

    enum ReferenceResolution {
        case found(SQLValue)
        case missing(MissingParent)
        /// A problem already in `errors`.
        case failed
    }

    mutating func resolveReference(
        _ reference: TableSpec.Reference, from table: TableInfo, column: ColumnInfo, written: String, input: InputValue,
        row: DataChanges.RowValues
    ) throws -> ReferenceResolution {
        // The rows of a big migration name the same few parents at the same site: an id found
        // there before needs neither the parent's facts nor a lookup.
        if let last = memo.lastReference, last.value.site.table == table.name, last.value.site.column == column.name,
            last.value.site.reference == reference,
            case .success(let keyValue) = last.value.type.convert(input), let id = last.value.ids.ids[keyValue]
        {
            return .found(id)
        }
        let parent = try tableInfo(reference.table, file: row.file)
        guard let parentKey = parent.column(reference.column) else {
            errors.append(
                Diagnostic(
                    file: row.file, line: row.line, code: .configuration,
                    message: "ref \(table.name).\(column.name) → \(reference) names a column \(parent.name) lacks",
                    table: table.name))
            return .failed
        }
        let keyValue: SQLValue
        let type = dialect.columnType(parentKey)
        switch type.convert(input) {
        case .success(let value): keyValue = value
        case .failure(let failure):
            errors.append(
                Diagnostic(
                    file: row.file, line: row.line, code: .typeMismatch,
                    message:
                        "\(self.written(table)).\(written): \(input) is not \(failure.expected) (a key of \(reference))",
                    table: table.name))
            return .failed
        }
        let site = RunMemo.ParentLookupSite(table: table.name, column: column.name, reference: reference)
        let known = memo.parentIDs(at: site, parent: parent.name)
        memo.lastReference = known.map { RunMemo.Box((site, type, $0)) }
        if let id = known?.ids[keyValue] { return .found(id) }
        let memoKey = RunMemo.Key(
            kind: .lookup, table: table.name, operation: "", columns: [column.name, reference.table, reference.column])
        let lookup: Statement
        if let known = memo.statements[memoKey] {
            lookup = known
        } else {
            let target = table.referenceTarget(of: column.name, in: parent)
            // A ref to a Core Data entity matches only that entity's rows (and its sub-entities').
            let entityRows = dialect.rowFilter(reference.table).map { " AND \($0)" } ?? ""
            lookup = try prepare(
                memoKey,
                sql:
                    "SELECT \(target) FROM \(quoteIdentifier(parent.name)) WHERE \(quoteIdentifier(parentKey.name)) IS ?\(entityRows) LIMIT 1"
            )
        }
        // NULL: no parent, as GRDB's fetchOne says
        if let id = try lookup.firstValue(binding: CollectionOfOne(keyValue)), id != .null {
            known?.ids[keyValue] = id
            return .found(id)
        }
        let isKey = spec(table)?.key.contains { $0.isSameName(as: column.name) } ?? false
        return .missing(
            MissingParent(
                key: ParentKey(table: parent.name, column: parentKey.name, value: keyValue), column: written,
                reference: specs.writtenRef(table.name, SQLName(column.name))?.reference ?? reference, input: input,
                type: type,
                nullable: !column.notNull && column.primaryKeyIndex == 0 && !isKey))
    }

    /// `parent_id 'NO-03' matches no subdivisions.code in the store`: a missing parent, for messages.
    func missingText(_ parent: MissingParent) -> String {
        "\(parent.column) \(describe(Self.sqlText(parent.input))) matches no \(parent.reference) in the store"
    }

    /// Who still references `row` (through a FOREIGN KEY or a manifest ref), or nil.
    ///
    /// The row's reference to itself does not count, nor do the rows `excluding` names (SQL table →
    /// rowids: rows deleted with it). The columns to ask are worked out once per table
    /// (``referrerChecks(of:)``).
    mutating func referrer(of row: StoredRow, in table: TableInfo, excluding: [SQLName: Set<Int64>] = [:]) throws
        -> String?
    {
        let checks = try referrerChecks(of: table)
        guard !checks.isEmpty else { return nil }
        for check in checks {
            let values = check.targets.map { row[$0] ?? .null }
            if values.contains(.null) { continue }
            var excluded = excluding[SQLName(check.child.name)] ?? []
            if check.child.name.isSameName(as: table.name), case .integer(let rowid)? = row[Self.rowidKey] {
                excluded.insert(rowid)
            }
            try findReferrersByIndex(check.child, check.columns, id: check.id)
            if try hasRow(
                check.child, zip(check.columns, values).map { (column: $0.0, value: $0.1) }, excluding: excluded)
            {
                return check.name
            }
        }
        return nil
    }

    /// The columns that can refer to a row of `table`, in the order ``referrer(of:in:excluding:)``
    /// asks them: each table's FOREIGN KEYs to it, then the refs the manifest declares without
    /// one.
    ///
    /// Worked out once per table and operation (the store's tables, their foreign keys and refs are
    /// the same for every row a delete removes).
    mutating func referrerChecks(of table: TableInfo) throws -> [ReferrerCheck] {
        if let last = memo.referrerChecks, last.table == table.name, last.operation == operationName {
            return last.checks
        }
        let userTables = try memo.userTables ?? TableInfo.userTables(db)
        memo.userTables = userTables
        var checks: [ReferrerCheck] = []
        for childName in userTables {
            let child = try tableInfo(childName, file: "")
            for key in child.foreignKeys where key.parent.isSameName(as: table.name) {
                let parentColumns = key.parentColumns.isEmpty ? table.primaryKey : key.parentColumns
                guard parentColumns.count == key.columns.count, !parentColumns.isEmpty else { continue }
                checks.append(
                    ReferrerCheck(
                        child: child, columns: key.columns, targets: parentColumns.map(SQLName.init),
                        name: "\(child.name).\(key.columns.joined(separator: ", "))"))
            }
            // Refs the manifest declares without a FOREIGN KEY in the schema.
            for (name, reference) in references(of: childName)
            where dialect.tableName(reference.table).isSameName(as: table.name)
                // a many-to-many relationship has no column: its join table is checked by the dialect
                && child.column(name.lowered) != nil
                && !child.foreignKeys.contains(where: { $0.columns.count == 1 && SQLName($0.columns[0]) == name })
            {
                let column = name.lowered
                let target = child.referencedColumn(of: column, in: table).map(SQLName.init) ?? Self.rowidKey
                checks.append(
                    ReferrerCheck(
                        child: child, columns: [column], targets: [target],
                        // Named as the user names it (`Book.shelf`), not as SQL stores it (`ZBOOK.zshelf`).
                        name: specs.writtenRefName(childName, name) ?? "\(childName).\(column)"))
            }
        }
        memo.referrerChecks = (table.name, operationName, checks)
        return checks
    }

    /// A table's relationship columns → their parent tables, for the dialect's bookkeeping.
    mutating func parentTables(of table: TableInfo) -> [String: String] {
        if let last = memo.parentTables, last.table == table.name, last.operation == operationName { return last.value }
        var result: [String: String] = [:]
        // A to-many relationship named in refs has no column (its links live in a join table).
        for (column, reference) in spec(table)?.refs ?? [:] {
            if let name = table.column(column)?.name { result[name] = dialect.tableName(reference.table) }
        }
        for key in table.foreignKeys where key.columns.count == 1 {
            result[key.columns[0]] = result[key.columns[0]] ?? key.parent
        }
        memo.parentTables = (table.name, operationName, result)
        return result
    }

    /// A table's refs by lower-cased column name.
    mutating func references(of table: String) -> [SQLName: TableSpec.Reference] {
        if let last = memo.references, last.table == table, last.operation == operationName { return last.value }
        let own = dialect.tableName(operationName) == table
        let id = own ? "\(table)/\(operationName)" : table
        var result: [SQLName: TableSpec.Reference] = [:]
        if let cached = referenceCache[id] {
            result = cached
        } else {
            for (column, reference) in (own ? ownSpec(table) : specs.spec(sqlTable: table))?.refs ?? [:] {
                result[SQLName(column)] = reference
            }
            referenceCache[id] = result
        }
        memo.references = (table, operationName, result)
        return result
    }

    /// The spec of `table` as the current operation names it (a sub-entity's own, for Core Data).
    ///
    /// A Core Data sub-entity the manifest does not list takes its nearest listed ancestor's spec,
    /// never a sibling's.
    mutating func spec(_ table: TableInfo) -> TableSpec? {
        if let last = memo.spec, last.value.table == table.name, last.value.operation == operationName {
            return last.value.value
        }
        let spec =
            dialect.tableName(operationName) == table.name ? ownSpec(table.name) : specs.spec(sqlTable: table.name)
        memo.spec = RunMemo.Box((table.name, operationName, spec))
        return spec
    }

    func ownSpec(_ table: String) -> TableSpec? {
        specs.spec(of: table, as: operationName, coreData: coreData)
    }

    /// `Z_ENT IN (…)` when `table` is the table of the operation's Core Data entity: its rows only.
    func rowFilter(_ table: TableInfo) -> String? {
        dialect.tableName(operationName) == table.name ? dialect.rowFilter(operationName) : nil
    }

    /// `keyPredicate(key)`, restricted to the rows of the operation's entity.
    func predicate(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) -> String {
        keyPredicate(key) + (rowFilter(table).map { " AND \($0)" } ?? "")
    }

    mutating func count(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> Int {
        let statement =
            try memo.statement(.count, table: table.name, operation: operationName, columns: key.lazy.map { $0.column })
            ?? prepare(
                RunMemo.Key(kind: .count, table: table.name, operation: operationName, columns: key.map { $0.column }),
                sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key))")
        guard case .integer(let count)? = try statement.firstValue(binding: key.lazy.map { $0.value }) else { return 0 }
        return Int(count)
    }

    /// Whether `table` has a row with `key` other than the rows `excluded` (rowids): the count
    /// first (the common case, one memoized statement), the rowids only when some are excluded.
    mutating func hasRow(_ table: TableInfo, _ key: [(column: String, value: SQLValue)], excluding excluded: Set<Int64>)
        throws -> Bool
    {
        guard try count(table, key) > 0 else { return false }
        guard !excluded.isEmpty, !table.withoutRowID else { return true }
        let statement = try db.cachedStatement(
            sql: "SELECT rowid FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key))")
        for row in try statement.rows(binding: key.lazy.map { $0.value }) {
            guard case .integer(let rowid)? = row.first, excluded.contains(rowid) else { return true }
        }
        return false
    }

    /// Where ``fetch(_:_:)`` puts a row's rowid.
    static let rowidKey = SQLName("_seedkit_rowid")

    /// The rows with `key`, each as column name → value (and the rowid under ``rowidKey``).
    mutating func fetch(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> [StoredRow] {
        let statement: Statement
        if let known = memo.statement(
            .fetch, table: table.name, operation: operationName, columns: key.lazy.map(\.column))
        {
            statement = known
        } else {
            let rowid = table.withoutRowID ? "" : ", rowid AS \(quoteIdentifier(Self.rowidKey.name))"
            statement = try prepare(
                RunMemo.Key(kind: .fetch, table: table.name, operation: operationName, columns: key.map(\.column)),
                sql: "SELECT *\(rowid) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key)) LIMIT 2")
            memo.fetchedNames[ObjectIdentifier(statement)] = statement.columnNames.map(SQLName.init)
        }
        let names = memo.fetchedNames[ObjectIdentifier(statement)] ?? statement.columnNames.map(SQLName.init)
        return try statement.rows(binding: key.lazy.map { $0.value }).map { row in
            var values = StoredRow(minimumCapacity: names.count)
            for (column, value) in zip(names, row) { values[column] = value }
            return values
        }
    }

    /// Whether the stored row holds exactly `values` (bytes: an update that only changes case in
    /// a NOCASE column is still written, so that the release's text reaches the store).
    func matches(_ current: StoredRow, _ values: [(column: String, value: SQLValue)]) -> Bool {
        values.allSatisfy { (current[SQLName($0.column)] ?? .null).isSame(as: $0.value) }
    }
}
