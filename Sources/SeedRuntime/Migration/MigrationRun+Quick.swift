import GRDB

// The rows of a big insert migration are alike: the same table, the same columns, refs to the
// same few parents, each inserted unless its key is there and held for a multi-row INSERT. For
// such a row, ``MigrationRun/insert(_:named:slot:validate:later:)`` works out the same facts
// again and again (the table's spec and key, each column's plan, the ref's lookup site, the
// names the validator sees), and builds arrays it then drops: measured, that cost the applying
// thread of a 100,000-row update more than SQLite's own work.
//
// ``MigrationRun/insertQuickly(_:into:named:slot:)`` takes the common row the short way, with
// those facts worked out once per row shape (``QuickInsertShape``), and does exactly what
// `insert` would have done for it: the same values, key, validator call, hold and write. It
// only takes a row where nothing can go another way, and hands every other row to `insert`
// before it has changed anything:
// - a row shape with a column the table lacks, a column twice, a ref whose parent column is
//   not there, no usable key, a key the INSERT cannot skip by itself (`ON CONFLICT … DO
//   NOTHING`), a store with triggers: never (its shape says so);
// - a value that does not convert, a ref whose parent id the run has not found yet (``RunMemo/parentIDs``:
//   `insert` looks it up, and remembers it for the next row), a key value that is NULL, a
//   table some waiting row waits on: that row.
// Only with multi-row INSERTs (``SeedMigrator/Options/multiRowInserts``), so that a run without
// them is the reference the differential tests compare it with (MultiRowMigrateTests).

/// What ``MigrationRun/insertQuickly(_:into:named:slot:)`` needs about rows of one shape: one
/// table, as one operation names it, and one list of column names as the rows write them.
final class QuickInsertShape {
    /// Each value's column (as the table spells it) and conversion.
    let columns: [String]
    let types: [ColumnType]
    /// For a ref column: the parent ids the run found at its lookup site, and how its input
    /// converts to the parent key's type.
    let references: [(ids: RunMemo.ParentIDs, keyType: ColumnType)?]
    /// The key's columns (as the spec names them) and each one's position among the values.
    let keyColumns: [String]
    let keyPositions: [Int]
    /// The names the validator sees (``MigrationRun/written(_:as:)``), nil when they are ``columns``;
    /// the table's name for it (``MigrationRun/written(_:)``); and the validator for such rows
    /// (``RowValidator/forRows(table:columns:)``).
    let validatedNames: [String]?
    let validatedTable: String
    let validator: (any RowValidator)?
    /// The spec's defaults for columns the rows do not name, as `insert` appends them.
    let defaults: [(column: String, value: SQLValue)]

    init(
        columns: [String], types: [ColumnType], references: [(ids: RunMemo.ParentIDs, keyType: ColumnType)?],
        keyColumns: [String],
        keyPositions: [Int], validatedNames: [String]?, validatedTable: String, validator: (any RowValidator)?,
        defaults: [(column: String, value: SQLValue)]
    ) {
        self.columns = columns
        self.types = types
        self.references = references
        self.keyColumns = keyColumns
        self.keyPositions = keyPositions
        self.validatedNames = validatedNames
        self.validatedTable = validatedTable
        self.validator = validator
        self.defaults = defaults
    }
}

extension MigrationRun {
    /// Inserts `row` (a row of an insert operation, in `slot`) as ``insert(_:named:slot:validate:later:)``
    /// would, the short way (see the top of this file); false, having changed nothing, when the
    /// row must go through `insert`.
    mutating func insertQuickly(_ row: DataChanges.RowValues, into table: TableInfo, named name: String, slot: Slot)
        throws -> Bool
    {
        guard options.multiRowInserts, options.writesDirectly, plainSQLite,
            let shape = try quickShape(for: row, in: table, name: name)
        else { return false }
        // The row's values go in the array the last row's went in: no array to make and free per row.
        var values = quickValues
        quickValues = []
        values.removeAll(keepingCapacity: true)
        defer { quickValues = values }
        values.reserveCapacity(row.values.count + shape.defaults.count)
        for index in row.values.indices {
            let input = row.values[index].value
            if let reference = shape.references[index], input != .null {
                guard case .success(let keyValue) = reference.keyType.convert(input),
                    let id = reference.ids.ids[keyValue]
                else { return false }
                values.append((shape.columns[index], id))
            } else {
                guard case .success(let value) = shape.types[index].convert(input) else { return false }
                values.append((shape.columns[index], value))
            }
        }
        for position in shape.keyPositions where values[position].value == .null { return false }
        guard !queue.awaits(table.name) else { return false }
        // From here on, what `insert` does with such a row, in its order.
        if let validator = shape.validator {
            let validated = shape.validatedNames.map { names in zip(names, values).map { ($0, $1.value) } } ?? values
            let problems = validator.validate(
                table: shape.validatedTable, values: validated, file: row.file, line: row.line)
            if !problems.isEmpty { errors += problems }
        }
        values.append(contentsOf: shape.defaults)
        if try holdForMultiRowInsert(
            values, into: table, name: name, row: row, slot: slot, keyColumns: shape.keyColumns)
        {
            return true
        }
        try flushInserts()
        let key = zip(shape.keyColumns, shape.keyPositions).map { (column: $0, value: values[$1].value) }
        _ = try writeInsert(
            values, into: table, name: name, row: row, slot: slot, key: key, keyColumns: shape.keyColumns,
            unlessPresent: true)
        return true
    }

    /// The shape of rows like `row` (see ``QuickInsertShape``), worked out once per table,
    /// operation and column names; nil where its rows must go through ``insert(_:named:slot:validate:later:)``.
    private mutating func quickShape(for row: DataChanges.RowValues, in table: TableInfo, name: String) throws
        -> QuickInsertShape?
    {
        if let last = memo.quickInsert, last.value.table == table.name, last.value.operation == operationName,
            last.value.names.count == row.values.count,
            zip(last.value.names, row.values).allSatisfy({ $0 == $1.column })
        {
            return last.value.shape
        }
        // A ref's parent table is read (as `insert` reads it) only for a row that names a parent.
        let plan = columnPlan(for: row, in: table)
        if zip(plan, row.values).contains(where: { $0.reference != nil && $1.value == .null }) { return nil }
        let shape = try makeQuickShape(for: row, plan: plan, in: table, name: name)
        memo.quickInsert = RunMemo.Box((table.name, operationName, row.values.map(\.column), shape))
        return shape
    }

    private mutating func makeQuickShape(
        for row: DataChanges.RowValues, plan: [ColumnPlan], in table: TableInfo, name: String
    ) throws -> QuickInsertShape? {
        guard memo.parentIDs != nil else { return nil }  // no triggers, no REPLACE: see RunMemo.reading(_:)
        var columns: [String] = []
        var types: [ColumnType] = []
        var references: [(ids: RunMemo.ParentIDs, keyType: ColumnType)?] = []
        var seen = Set<SQLName>()
        for column in plan {
            guard let info = column.info, let type = column.type, seen.insert(SQLName(info.name)).inserted else {
                return nil
            }
            columns.append(info.name)
            types.append(type)
            guard let reference = column.reference else {
                references.append(nil)
                continue
            }
            guard let parent = try? tableInfo(reference.table, file: row.file),
                let parentKey = parent.column(reference.column),
                let ids = memo.parentIDs(
                    at: RunMemo.ParentLookupSite(table: table.name, column: info.name, reference: reference),
                    parent: parent.name)
            else { return nil }
            references.append((ids, dialect.columnType(parentKey)))
        }
        let tableSpec = spec(table)
        guard let keyColumns = try? Self.keyColumns(table, spec: tableSpec, file: row.file, line: row.line),
            !keyColumns.isEmpty
        else { return nil }
        var keyPositions: [Int] = []
        for column in keyColumns {
            let wanted = SQLName(column)
            guard let position = columns.firstIndex(where: { wanted.matches($0) }) else { return nil }
            keyPositions.append(position)
        }
        guard try insertsUnlessPresent(table, name: name, key: keyColumns) else { return nil }
        var defaults: [(column: String, value: SQLValue)] = []
        for (column, value) in (tableSpec?.defaults ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let info = table.column(column), !columns.contains(where: { $0.isSameName(as: info.name) }) else {
                continue
            }
            defaults.append((info.name, value))
        }
        let validated = written(columns.map { (column: $0, value: SQLValue.null) }, as: row).map(\.column)
        let validatedTable = written(table)
        return QuickInsertShape(
            columns: columns, types: types, references: references, keyColumns: keyColumns, keyPositions: keyPositions,
            validatedNames: validated == columns ? nil : validated, validatedTable: validatedTable,
            validator: options.validator?.forRows(table: validatedTable, columns: validated), defaults: defaults)
    }
}
