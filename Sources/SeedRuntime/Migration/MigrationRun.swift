import GRDB
import Foundation

/// One run of the migrator inside an open transaction: resolves keys and refs against
/// the store, decides what each row change does, and has the dialect write it.
///
/// Decisions (SPEC §7): an insert whose key exists is left alone; an update applies only
/// where the row still holds `from`, is done where it holds `to`, and is otherwise a
/// conflict; a delete removes only an unchanged row that nothing references.
struct MigrationRun {
    private let db: Database
    private let options: SeedMigrator.Options
    private let dialect: any StoreDialect
    /// Table specs by SQL table name, in SQL column names (refs name their parent as written).
    private var specs: [String: TableSpec]
    /// The same by the name migrations use: sub-entities sharing a Core Data table each have their own.
    private var specsByName: [String: TableSpec]
    /// The name the operation being applied uses for its table (an entity, for Core Data).
    private var operationName = ""
    private var tables: [String: TableInfo] = [:]
    private var referenceCache: [String: [String: TableSpec.Reference]] = [:]
    /// SQL table name → the name migrations use for it.
    private var writtenTableNames: [String: String] = [:]
    /// Problems that stop the run; thrown together at the end so that all are reported.
    private var errors: [Diagnostic] = []
    /// Refs as the migration names them, by SQL table and lower-cased SQL column: what a
    /// to-many relationship (which has no column) needs to find its Core Data join table.
    private var writtenRefs: [String: [String: (relationship: String, reference: TableSpec.Reference)]] = [:]
    /// Join tables found so far, by entity and relationship (nil: none), so the schema is searched once per relationship.
    private var joinTables: [String: CoreDataDialect.JoinTable?] = [:]
    /// SQL table → lower-cased SQL column → the name migrations use for it (key and ref columns), for reports.
    private var writtenColumnNames: [String: [String: String]] = [:]

    init(db: Database, options: SeedMigrator.Options) throws {
        self.db = db
        self.options = options
        let dialect = try options.dialect ?? CoreDataDialect.detect(db, facts: options.coreDataFacts, allowingMissingHistory: options.allowsMissingHistory) ?? PlainSQLiteDialect()
        self.dialect = dialect
        // Specs speak the migration's language (entities and attributes for Core Data): translate once.
        let written = try options.tables ?? SeedCatalog.tableSpecs(db) ?? []
        let specs = written.map { spec in
            TableSpec(
                name: dialect.tableName(spec.name), key: spec.key.map(dialect.columnName),
                refs: Dictionary(spec.refs.map { column, reference in
                    (dialect.columnName(column), TableSpec.Reference(table: reference.table, column: dialect.columnName(reference.column)))
                }, uniquingKeysWith: { first, _ in first }),
                defaults: Dictionary(spec.defaults.map { (dialect.columnName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        self.specs = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.specsByName = Dictionary(zip(written.map(\.name), specs).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        for spec in written {
            for column in spec.key + Array(spec.refs.keys) {
                writtenColumnNames[dialect.tableName(spec.name), default: [:]][dialect.columnName(column).lowercased()] = column
            }
            for (column, reference) in spec.refs {
                writtenRefs[dialect.tableName(spec.name), default: [:]][dialect.columnName(column).lowercased()] = (column, reference)
            }
        }
    }

    mutating func apply(_ migration: Migration) throws -> [RowEvent] {
        switch migration.body {
        case .sql(let sql):
            let changes = try SQLScript(sql).run(in: db, file: migration.file)
            tables.removeAll()  // the SQL may have changed the schema
            return changes.events(file: migration.file)
        case .changes(let changes):
            var events: [RowEvent] = []
            for operation in changes.operations {
                let table = try tableInfo(operation.table, file: migration.file)
                operationName = operation.table
                switch operation {
                case .insert(let name, let rows):
                    for row in rows { if let event = try insert(row, into: table, named: name) { events.append(event) } }
                case .update(_, let changes):
                    for change in changes { if let event = try update(change, in: table, file: migration.file) { events.append(event) } }
                case .delete(_, let changes):
                    for change in changes { if let event = try delete(change, from: table, file: migration.file) { events.append(event) } }
                }
            }
            return events
        }
    }

    /// Throws everything collected, then checks foreign keys before the caller commits.
    func finish() throws {
        var errors = self.errors
        if errors.isEmpty {
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0]
                let parent: String = row[2]
                errors.append(Diagnostic(code: .unresolvedReference, message: "after the migrations, a row of \(table) (rowid \(row[1] as Int64? ?? 0)) references a missing row of \(parent); nothing was written", table: table))
            }
        }
        if !errors.isEmpty { throw SeedError(errors.contains { $0.code == .configuration || $0.code == .unknownColumn } ? .configuration : .invalidData, errors) }
    }

    // MARK: - Operations

    private mutating func insert(_ row: DataChanges.RowValues, into table: TableInfo, named name: String) throws -> RowEvent? {
        var row = row
        let links = try takeManyToMany(&row, table: table, entity: name)
        guard var values = try resolve(row, in: table), links.allSatisfy({ $0.members != nil }) else {
            return event(.conflict, table, row: row, key: [], "a referenced row is missing (the user deleted it?); row not inserted")
        }
        // What the row does not name gets its default, as Core Data gives every new object.
        for (column, value) in (spec(table)?.defaults ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let info = table.column(column), !values.contains(where: { $0.column.lowercased() == info.name.lowercased() }) else { continue }
            values.append((info.name, value))
        }
        let keyColumns = try self.keyColumns(table, file: row.file, line: row.line)
        var key: [(column: String, value: SQLValue)] = []
        for column in keyColumns {
            let wanted = column.lowercased()
            guard let value = values.first(where: { $0.column.lowercased() == wanted }) else {
                errors.append(Diagnostic(file: row.file, line: row.line, code: .configuration, message: "this row for \(table.name) has no value for its key column '\(column)'", table: table.name))
                return nil
            }
            key.append((column, value.value))
        }
        let fields = try keyFields(key, in: table, input: row)
        let keyText = RowEvent.describe(key: fields)
        if let validator = options.validator {
            let problems = validator.validate(table: written(table), values: written(values, as: row), file: row.file, line: row.line)
            if !problems.isEmpty { errors += problems; return nil }
        }
        if try count(table, key) > 0 {
            return event(.alreadyPresent, table, row: row, key: fields, "already present; left as it is")
        }
        do {
            try dialect.insert(db, into: table, name: name, values: values, references: parentTables(of: table))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            errors.append(Diagnostic(file: row.file, line: row.line, code: constraintCode(error), message: "cannot insert \(keyText) into \(table.name): \(error.message ?? "constraint failed")", table: table.name))
            return nil
        }
        for link in links { try self.link(link, table: table, key: key) }
        return event(.inserted, table, row: row, key: fields, "inserted")
    }

    /// A many-to-many relationship set on an inserted row: its join table and the members' `Z_PK`s (nil when one is missing).
    private struct ManyToMany {
        var join: CoreDataDialect.JoinTable
        var destination: String
        var members: [SQLValue]?
    }

    /// Takes the values of `row` that name many-to-many relationships (Core Data: no column, a
    /// join table) out of it, with their members resolved by key.
    private mutating func takeManyToMany(_ row: inout DataChanges.RowValues, table: TableInfo, entity: String) throws -> [ManyToMany] {
        guard let coreData = dialect as? CoreDataDialect else { return [] }
        var links: [ManyToMany] = []
        var kept: [(column: String, value: InputValue)] = []
        for (column, input) in row.values {
            guard table.column(dialect.columnName(column)) == nil, let ref = writtenRefs[table.name]?[dialect.columnName(column).lowercased()],
                  let join = try joinTable(coreData, entity: entity, ref: ref) else {
                kept.append((column, input))
                continue
            }
            let destination = try tableInfo(ref.reference.table, file: row.file)
            guard let keyColumn = destination.column(dialect.columnName(ref.reference.column)) else {
                errors.append(Diagnostic(file: row.file, line: row.line, code: .configuration, message: "ref \(entity).\(column) → \(ref.reference) names a column \(destination.name) lacks", table: table.name))
                continue
            }
            var members: [SQLValue]? = []
            for item in input.listItems {
                guard case .success(let key) = dialect.columnType(keyColumn).convert(item) else {
                    errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(entity).\(column): \(item) is not a key of \(ref.reference)", table: table.name))
                    continue
                }
                let entityRows = dialect.rowFilter(ref.reference.table).map { " AND \($0)" } ?? ""
                let found = try SQLValue.fetchOne(db.cachedStatement(sql: "SELECT Z_PK FROM \(quoteIdentifier(destination.name)) WHERE \(quoteIdentifier(keyColumn.name)) IS ?\(entityRows) LIMIT 1"), arguments: [key])
                if let found { members?.append(found) } else { members = nil }
            }
            links.append(ManyToMany(join: join, destination: destination.name, members: members))
        }
        row.values = kept
        return links
    }

    private mutating func joinTable(_ coreData: CoreDataDialect, entity: String, ref: (relationship: String, reference: TableSpec.Reference)) throws -> CoreDataDialect.JoinTable? {
        let id = entity + "." + ref.relationship
        if let known = joinTables[id] { return known }
        let found = try coreData.joinTable(db, entity: entity, relationship: ref.relationship, destination: ref.reference.table)
        joinTables[id] = found
        return found
    }

    /// Writes the join rows of a newly inserted row (the dialect numbers and bumps as Core Data does).
    private func link(_ link: ManyToMany, table: TableInfo, key: [(column: String, value: SQLValue)]) throws {
        guard let coreData = dialect as? CoreDataDialect,
              let owner = try SQLValue.fetchOne(db, sql: "SELECT Z_PK FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key))", arguments: StatementArguments(key.map(\.value))) else { return }
        try coreData.link(db, join: link.join, owner: owner, members: link.members ?? [], memberTable: link.destination)
    }

    private mutating func update(_ change: DataChanges.RowChange, in table: TableInfo, file: String) throws -> RowEvent? {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else { return nil }
        let keyText = RowEvent.describe(key: fields)
        if dialect is CoreDataDialect, let column = change.to.values.map(\.column).first(where: { table.column(dialect.columnName($0)) == nil && writtenRefs[table.name]?[dialect.columnName($0).lowercased()] != nil }) {
            errors.append(Diagnostic(file: file, line: change.line, code: .configuration, message: "update of \(written(table)) \(keyText) changes the many-to-many relationship '\(column)', which seedkit does not change in updates yet; nothing was written", table: table.name))
            return nil
        }
        for column in change.to.values.map(\.column) where change.from[column] == nil {
            errors.append(Diagnostic(file: file, line: change.line, code: .configuration, message: "update of \(table.name) \(keyText) sets '\(column)' without a 'from' value; add what the previous seed shipped, so that a user's edit is never overwritten", table: table.name))
            return nil
        }
        guard let from = try resolve(change.from, in: table), let to = try resolve(change.to, in: table) else {
            return event(.conflict, table, line: change.line, file: file, key: fields, "a referenced row is missing; row not updated")
        }
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            return rows.isEmpty
                ? event(.missing, table, line: change.line, file: file, key: fields, "not in the store (deleted by the user?); nothing to update")
                : event(.conflict, table, line: change.line, file: file, key: fields, "\(rows.count) rows have this key; none updated")
        }
        if matches(current, to) { return event(.upToDate, table, line: change.line, file: file, key: fields, "already up to date") }
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: false, in: table)
            return conflict(table, line: change.line, file: file, key: fields, changes: changes, "changed in the store (\(changed)); the store's values are kept")
        }
        if let validator = options.validator {
            let problems = validator.validate(table: written(table), values: written(to, as: change.to), file: file, line: change.to.line)
            if !problems.isEmpty { errors += problems; return nil }
        }
        do {
            try dialect.update(db, table: table, key: key, values: to, references: parentTables(of: table))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            errors.append(Diagnostic(file: file, line: change.line, code: constraintCode(error), message: "cannot update \(table.name) \(keyText): \(error.message ?? "constraint failed")", table: table.name))
            return nil
        }
        var described: [String] = []
        for (column, value) in to {
            described.append("\(column) \(try shown(current[column.lowercased()] ?? .null, column: column, in: table)) → \(try shown(value, column: column, in: table))")
        }
        let description = described.joined(separator: ", ")
        let changes = try columnChanges(from: written(from, as: change.from), to: written(to, as: change.to), current: current, applied: true, in: table)
        return event(.updated, table, line: change.line, file: file, key: fields, changes: changes, description)
    }

    private mutating func delete(_ change: DataChanges.RowChange, from table: TableInfo, file: String) throws -> RowEvent? {
        guard let (key, fields) = try resolveKey(change.key, in: table, file: file, line: change.line) else { return nil }
        let keyText = RowEvent.describe(key: fields)
        let rows = try fetch(table, key)
        guard rows.count == 1, let current = rows.first else {
            return rows.isEmpty
                ? event(.missing, table, line: change.line, file: file, key: fields, "not in the store; nothing to delete")
                : event(.conflict, table, line: change.line, file: file, key: fields, "\(rows.count) rows have this key; none deleted")
        }
        guard let from = try resolve(change.from, in: table) else {
            return conflict(table, line: change.line, file: file, key: fields, "a referenced row is missing; row not deleted")
        }
        let changed = try mismatches(current, from, in: table)
        guard changed.isEmpty else {
            let changes = try columnChanges(from: written(from, as: change.from), to: [], current: current, applied: false, in: table)
            return conflict(table, line: change.line, file: file, key: fields, changes: changes, "changed in the store (\(changed)); not deleted")
        }
        // Many-to-many links follow the relationships' deletion rules (Nullify: they go with the row).
        let joined = try (dialect as? CoreDataDialect)?.manyToManyDeleteBlock(db, entityNumber: current["z_ent"] ?? .null, primaryKey: current["z_pk"] ?? .null)
        if let reason = try joined ?? referrer(of: current, in: table).map({ "still referenced by \($0)" }) {
            let event = RowEvent(kind: .deleteDenied, table: written(table), key: fields, detail: "\(reason); not deleted", file: file, line: change.line)
            if options.onConflict == .fail {
                errors.append(Diagnostic(file: file, line: change.line, code: .deleteDenied, message: "cannot delete \(written(table)) \(keyText): \(reason)", table: table.name))
            }
            return event
        }
        try dialect.delete(db, from: table, key: key, references: parentTables(of: table))
        return event(.deleted, table, line: change.line, file: file, key: fields, "deleted")
    }

    // MARK: - Resolving

    private mutating func tableInfo(_ name: String, file: String) throws -> TableInfo {
        if let info = tables[name] { return info }
        writtenTableNames[dialect.tableName(name)] = writtenTableNames[dialect.tableName(name)] ?? name
        guard !SeedCatalog.isInternal(name), let info = try TableInfo.read(db, table: dialect.tableName(name)) else {
            throw SeedError(.configuration, file: file, "unknown table '\(name)': the store has \(try TableInfo.userTables(db).joined(separator: ", "))")
        }
        let adjusted = dialect.adjusted(info)
        tables[name] = adjusted
        return adjusted
    }

    private func keyColumns(_ table: TableInfo, file: String, line: Int) throws -> [String] {
        if let key = spec(table)?.key, !key.isEmpty { return key }
        let primaryKey = table.primaryKey
        guard !primaryKey.isEmpty else {
            throw SeedError(.configuration, file: file, line: line, "table \(table.name) has no primary key and no natural key; give it a `key:` in the manifest")
        }
        return primaryKey
    }

    /// A change's key, resolved (refs → parent ids) for finding the row, and as the report shows it.
    private mutating func resolveKey(_ key: DataChanges.Key, in table: TableInfo, file: String, line: Int) throws -> ([(column: String, value: SQLValue)], [RowEvent.KeyValue])? {
        let columns = try keyColumns(table, file: file, line: line)
        let row: DataChanges.RowValues
        switch key {
        case .single(let value):
            guard columns.count == 1 else {
                errors.append(Diagnostic(file: file, line: line, code: .configuration, message: "\(table.name) has a composite key (\(columns.joined(separator: ", "))); write the key as a map of column: value", table: table.name))
                return nil
            }
            row = DataChanges.RowValues(values: [(columns[0], value)], line: line, file: file)
        case .columns(let values):
            let given = Set(values.values.map { dialect.columnName($0.column).lowercased() })
            guard given == Set(columns.map { $0.lowercased() }) else {
                errors.append(Diagnostic(file: file, line: line, code: .configuration, message: "the key of \(table.name) is (\(columns.joined(separator: ", "))), but this key names (\(values.values.map(\.column).joined(separator: ", ")))", table: table.name))
                return nil
            }
            row = values
        }
        guard let resolved = try resolve(row, in: table) else {
            errors.append(Diagnostic(file: file, line: line, code: .unresolvedReference, message: "the key of this \(table.name) row refers to a missing row", table: table.name))
            return nil
        }
        return (resolved, try keyFields(resolved, in: table, input: row))
    }

    /// Converts a row's values to the columns' types and refs to the parents' ids.
    /// Returns nil when a referenced parent row is missing; records other problems in `errors`.
    private mutating func resolve(_ row: DataChanges.RowValues, in table: TableInfo) throws -> [(column: String, value: SQLValue)]? {
        var result: [(column: String, value: SQLValue)] = []
        var parentMissing = false
        for (column, input) in row.values {
            guard let info = table.column(dialect.columnName(column)) else {
                errors.append(Diagnostic(file: row.file, line: row.line, code: .unknownColumn, message: "\(table.name) has no column '\(column)' (it has \(table.columns.map(\.name).joined(separator: ", ")))", table: table.name))
                continue
            }
            if let reference = references(of: table.name)[info.name.lowercased()], input != .null {
                switch try resolveReference(reference, from: table, column: info, input: input, row: row) {
                case .some(let id): result.append((info.name, id))
                case .none: parentMissing = true
                }
                continue
            }
            switch dialect.columnType(info).convert(input) {
            case .success(let value): result.append((info.name, value))
            case .failure(let failure):
                errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(table.name).\(info.name): \(input) is not \(failure.expected) (the column is \(info.declaredType.isEmpty ? "untyped" : info.declaredType))", table: table.name))
            }
        }
        return parentMissing ? nil : result
    }

    private mutating func resolveReference(_ reference: TableSpec.Reference, from table: TableInfo, column: ColumnInfo, input: InputValue, row: DataChanges.RowValues) throws -> SQLValue? {
        let parent = try tableInfo(reference.table, file: row.file)
        guard let parentKey = parent.column(reference.column) else {
            errors.append(Diagnostic(file: row.file, line: row.line, code: .configuration, message: "ref \(table.name).\(column.name) → \(reference) names a column \(parent.name) lacks", table: table.name))
            return .null
        }
        let keyValue: SQLValue
        switch dialect.columnType(parentKey).convert(input) {
        case .success(let value): keyValue = value
        case .failure(let failure):
            errors.append(Diagnostic(file: row.file, line: row.line, code: .typeMismatch, message: "\(table.name).\(column.name): \(input) is not \(failure.expected) (a key of \(reference))", table: table.name))
            return .null
        }
        let target = table.referenceTarget(of: column.name, in: parent)
        // A ref to a Core Data entity matches only that entity's rows (and its sub-entities').
        let entityRows = dialect.rowFilter(reference.table).map { " AND \($0)" } ?? ""
        return try SQLValue.fetchOne(
            db.cachedStatement(sql: "SELECT \(target) FROM \(quoteIdentifier(parent.name)) WHERE \(quoteIdentifier(parentKey.name)) IS ?\(entityRows) LIMIT 1"),
            arguments: [keyValue])
    }

    /// Who still references `row` (through a FOREIGN KEY or a manifest ref), or nil.
    private mutating func referrer(of row: [String: SQLValue], in table: TableInfo) throws -> String? {
        for childName in try TableInfo.userTables(db) {
            let child = try tableInfo(childName, file: "")
            for key in child.foreignKeys where key.parent.lowercased() == table.name.lowercased() {
                let parentColumns = key.parentColumns.isEmpty ? table.primaryKey : key.parentColumns
                guard parentColumns.count == key.columns.count, !parentColumns.isEmpty else { continue }
                let values = parentColumns.map { row[$0.lowercased()] ?? .null }
                if values.contains(.null) { continue }
                if try count(child, zip(key.columns, values).map { (column: $0.0, value: $0.1) }) > 0 {
                    return "\(child.name).\(key.columns.joined(separator: ", "))"
                }
            }
            // Refs the manifest declares without a FOREIGN KEY in the schema.
            for (column, reference) in references(of: childName) where dialect.tableName(reference.table).lowercased() == table.name.lowercased()
                && child.column(column) != nil  // a many-to-many relationship has no column: its join table is checked by the dialect
                && !child.foreignKeys.contains(where: { $0.columns.count == 1 && $0.columns[0].lowercased() == column }) {
                let target = child.referencedColumn(of: column, in: table)?.lowercased() ?? Self.rowidKey
                let value = row[target] ?? .null
                if value != .null, try count(child, [(column, value)]) > 0 { return "\(childName).\(column)" }
            }
        }
        return nil
    }

    // MARK: - Helpers

    /// The name the migration used for a table (an entity, for Core Data), for validators that speak the manifest's language.
    private func written(_ table: TableInfo) -> String {
        dialect.tableName(operationName) == table.name ? operationName : writtenTableNames[table.name] ?? table.name
    }

    /// Resolved values with the column names the migration wrote.
    private func written(_ values: [(column: String, value: SQLValue)], as row: DataChanges.RowValues) -> [(column: String, value: SQLValue)] {
        var names: [String: String] = [:]
        for (column, _) in row.values { names[dialect.columnName(column).lowercased()] = column }
        return values.map { (names[$0.column.lowercased()] ?? $0.column, $0.value) }
    }

    /// A table's relationship columns → their parent tables, for the dialect's bookkeeping.
    private mutating func parentTables(of table: TableInfo) -> [String: String] {
        var result: [String: String] = [:]
        for (column, reference) in spec(table)?.refs ?? [:] { result[table.column(column)?.name ?? column] = dialect.tableName(reference.table) }
        for key in table.foreignKeys where key.columns.count == 1 { result[key.columns[0]] = result[key.columns[0]] ?? key.parent }
        return result
    }

    /// A table's refs by lower-cased column name.
    private mutating func references(of table: String) -> [String: TableSpec.Reference] {
        let own = dialect.tableName(operationName) == table ? specsByName[operationName] : nil
        let id = own.map { _ in operationName } ?? table
        if let cached = referenceCache[id] { return cached }
        var result: [String: TableSpec.Reference] = [:]
        for (column, reference) in (own ?? specs[table])?.refs ?? [:] { result[column.lowercased()] = reference }
        referenceCache[id] = result
        return result
    }

    /// The spec of `table` as the current operation names it (a sub-entity's own, for Core Data).
    private func spec(_ table: TableInfo) -> TableSpec? {
        if dialect.tableName(operationName) == table.name, let spec = specsByName[operationName] { return spec }
        return specs[table.name]
    }

    /// `Z_ENT IN (…)` when `table` is the table of the operation's Core Data entity: its rows only.
    private func rowFilter(_ table: TableInfo) -> String? {
        dialect.tableName(operationName) == table.name ? dialect.rowFilter(operationName) : nil
    }

    /// `keyPredicate(key)`, restricted to the rows of the operation's entity.
    private func predicate(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) -> String {
        keyPredicate(key) + (rowFilter(table).map { " AND \($0)" } ?? "")
    }

    private func count(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key))"), arguments: StatementArguments(key.map(\.value))) ?? 0
    }

    /// Where ``fetch(_:_:)`` puts a row's rowid.
    private static let rowidKey = "_seedkit_rowid"

    /// The rows with `key`, each as lower-cased column name → value (and the rowid under ``rowidKey``).
    private func fetch(_ table: TableInfo, _ key: [(column: String, value: SQLValue)]) throws -> [[String: SQLValue]] {
        let rowid = table.withoutRowID ? "" : ", rowid AS \(quoteIdentifier(Self.rowidKey))"
        return try Row.fetchAll(db.cachedStatement(sql: "SELECT *\(rowid) FROM \(quoteIdentifier(table.name)) WHERE \(predicate(table, key)) LIMIT 2"), arguments: StatementArguments(key.map(\.value))).map { row in
            var values: [String: SQLValue] = [:]
            for (column, dbValue) in row { values[column.lowercased()] = SQLValue.fromDatabaseValue(dbValue) ?? .null }
            return values
        }
    }

    private func matches(_ current: [String: SQLValue], _ values: [(column: String, value: SQLValue)]) -> Bool {
        values.allSatisfy { (current[$0.column.lowercased()] ?? .null).isSame(as: $0.value) }
    }

    /// `price is 13, expected 10` for each column that differs (refs by the parent's key).
    private mutating func mismatches(_ current: [String: SQLValue], _ values: [(column: String, value: SQLValue)], in table: TableInfo) throws -> String {
        var found: [String] = []
        for (column, expected) in values {
            let actual = current[column.lowercased()] ?? .null
            if !actual.isSame(as: expected) {
                found.append("\(column) is \(try shown(actual, column: column, in: table)), expected \(try shown(expected, column: column, in: table))")
            }
        }
        return found.joined(separator: "; ")
    }

    /// The parent row a stored ref value names, by its natural key; nil for columns that are not
    /// refs, NULL, and ids no parent row has (shown as stored).
    private mutating func parent(of value: SQLValue?, column: String, in table: TableInfo) throws -> RowEvent.Reference? {
        let lowered = dialect.columnName(column).lowercased()
        guard let value, value != .null, let reference = references(of: table.name)[lowered] ?? references(of: table.name)[column.lowercased()],
              let sqlColumn = table.column(dialect.columnName(column)) ?? table.column(column) else { return nil }
        let parentTable = try tableInfo(reference.table, file: "")
        guard let keyColumn = parentTable.column(reference.column),
              let key = try SQLValue.fetchOne(db.cachedStatement(sql: table.parentKeyLookupSQL(of: sqlColumn.name, parent: parentTable, keyColumn: keyColumn.name)), arguments: [value]) else { return nil }
        let shown = writtenRefs[table.name]?[sqlColumn.name.lowercased()]?.reference
        return RowEvent.Reference(table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name, value: key)
    }

    /// A value as the report shows it: a ref by its parent's key.
    private mutating func shown(_ value: SQLValue, column: String, in table: TableInfo) throws -> String {
        RowEvent.describe(value, parent: try parent(of: value, column: column, in: table))
    }

    private mutating func conflict(_ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue], changes: [RowEvent.ColumnChange] = [], _ detail: String) -> RowEvent {
        if options.onConflict == .fail {
            errors.append(Diagnostic(file: file, line: line, code: .conflict, message: "conflict on \(written(table)) \(RowEvent.describe(key: key)): \(detail)", table: table.name))
        }
        return RowEvent(kind: .conflict, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    private mutating func event(_ kind: RowEvent.Kind, _ table: TableInfo, row: DataChanges.RowValues, key: [RowEvent.KeyValue], _ detail: String) -> RowEvent {
        event(kind, table, line: row.line, file: row.file, key: key, detail)
    }

    private mutating func event(_ kind: RowEvent.Kind, _ table: TableInfo, line: Int, file: String, key: [RowEvent.KeyValue], changes: [RowEvent.ColumnChange] = [], _ detail: String) -> RowEvent {
        kind == .conflict
            ? conflict(table, line: line, file: file, key: key, changes: changes, detail)
            : RowEvent(kind: kind, table: written(table), key: key, changes: changes, detail: detail, file: file, line: line)
    }

    /// A resolved key as a report shows it: columns by the names migrations use, and each ref
    /// column with its parent's natural key (converted from what the migration wrote).
    private mutating func keyFields(_ key: [(column: String, value: SQLValue)], in table: TableInfo, input: DataChanges.RowValues) throws -> [RowEvent.KeyValue] {
        var given: [String: (column: String, value: InputValue)] = [:]
        for (column, value) in input.values {
            given[dialect.columnName(column).lowercased()] = (column, value)
            given[column.lowercased()] = given[column.lowercased()] ?? (column, value)
        }
        var fields: [RowEvent.KeyValue] = []
        for (column, value) in key {
            let lowered = column.lowercased()
            let name = writtenColumnNames[table.name]?[lowered] ?? given[lowered]?.column ?? column
            var parent: RowEvent.Reference?
            if let reference = references(of: table.name)[lowered], let writtenKey = given[lowered]?.value, writtenKey != .null {
                let parentTable = try tableInfo(reference.table, file: input.file)
                if let keyColumn = parentTable.column(reference.column), case .success(let parentKey) = dialect.columnType(keyColumn).convert(writtenKey) {
                    let shown = writtenRefs[table.name]?[lowered]?.reference
                    parent = RowEvent.Reference(table: shown?.table ?? written(parentTable), column: shown?.column ?? keyColumn.name, value: parentKey)
                }
            }
            fields.append(RowEvent.KeyValue(column: name, value: value, parent: parent))
        }
        return fields
    }

    /// Each column of `from` and `to` (in `to`'s order, then `from`'s), with what the store holds after the run.
    /// Ref columns carry their parents' keys.
    private mutating func columnChanges(from: [(column: String, value: SQLValue)], to: [(column: String, value: SQLValue)], current: [String: SQLValue], applied: Bool, in table: TableInfo) throws -> [RowEvent.ColumnChange] {
        var changes: [RowEvent.ColumnChange] = []
        for (column, value) in to {
            let old = from.first { $0.column.lowercased() == column.lowercased() }?.value
            changes.append(RowEvent.ColumnChange(column: column, old: old, new: value, kept: applied ? value : current[dialect.columnName(column).lowercased()] ?? current[column.lowercased()] ?? .null))
        }
        for (column, value) in from where !to.contains(where: { $0.column.lowercased() == column.lowercased() }) {
            changes.append(RowEvent.ColumnChange(column: column, old: value, new: nil, kept: current[dialect.columnName(column).lowercased()] ?? current[column.lowercased()] ?? .null))
        }
        for index in changes.indices {
            let column = changes[index].column
            changes[index].oldParent = try parent(of: changes[index].old, column: column, in: table)
            changes[index].newParent = try parent(of: changes[index].new, column: column, in: table)
            changes[index].keptParent = try parent(of: changes[index].kept, column: column, in: table)
        }
        return changes
    }

    private func describe(_ value: SQLValue) -> String { RowEvent.describe(value) }

    private func constraintCode(_ error: DatabaseError) -> DiagnosticCode {
        let message = error.message ?? ""
        if message.hasPrefix("NOT NULL") { return .missingRequired }
        if message.hasPrefix("UNIQUE") { return .duplicateKey }
        if message.hasPrefix("FOREIGN KEY") { return .unresolvedReference }
        return .otherRule
    }
}
