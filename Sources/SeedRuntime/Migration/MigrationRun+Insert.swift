import Foundation
import GRDB

/// Inserts: a row whose key is missing, its many-to-many links, and refs linked once their parent arrives.
extension MigrationRun {
    /// Inserts a row if its key is missing.
    ///
    /// A row whose parent is not in the store yet waits for it (``Attempt/waiting``); `later` names
    /// nullable ref columns inserted as NULL and linked once their parent arrives (how a cycle of
    /// refs is broken).
    mutating func insert(
        _ original: DataChanges.RowValues, named name: String, slot: Slot?, validate: Bool, later: Set<SQLName> = []
    ) throws -> Attempt {
        let table = try tableInfo(name, file: original.file)
        var row = original
        let errorCount = errors.count
        let links = try takeManyToMany(&row, table: table, entity: name)
        let resolution = try resolve(row, in: table)
        let unwritable = errors.count > errorCount
        var values = resolution.values
        let linkLater = resolution.missing.filter { later.contains(SQLName($0.column)) }
        // Members of a many-to-many relationship `later` names are linked once they are in (a cycle broken).
        let linksMissing = links.isEmpty ? [] : links.flatMap { $0.missing }
        let membersLater = linksMissing.filter { later.contains(SQLName($0.column)) }
        let missing = (resolution.missing + linksMissing).filter { !later.contains(SQLName($0.column)) }
        // The table's spec, once per row (each ask copies it).
        let tableSpec = spec(table)
        let keyColumns = try Self.keyColumns(table, spec: tableSpec, file: row.file, line: row.line)
        let missingColumns = Set(missing.map { SQLName(dialect.columnName($0.column, in: name)) })
        var key: [(column: String, value: SQLValue)] = []
        var keyResolved = true
        let naturalKey = tableSpec?.key.isEmpty == false
        for column in keyColumns {
            let wanted = SQLName(column)
            if let value = values.first(where: { wanted.matches($0.column) }), value.value != .null || !naturalKey {
                key.append((column, value.value))
            } else if missingColumns.contains(wanted) {
                key.append((column, .null))  // shown by its parent's key
                keyResolved = false
            } else {
                // A natural key must be there: a row without one could never be found again, and
                // NULLs are never equal, so nothing would stop a second such row.
                let hint =
                    naturalKey
                    ? "; a natural key must have one"
                    : coreData?.missingKeyHint(entity: name, column: column).map { ": " + $0 } ?? ""
                errors.append(
                    Diagnostic(
                        file: row.file, line: row.line, code: naturalKey ? .missingRequired : .configuration,
                        message: "this row for \(written(table)) has no value for its key column '\(column)'\(hint)",
                        table: table.name))
                return .done
            }
        }
        // The key as reports show it: worked out when a report needs it (most rows of a big
        // update are only counted, see ``SeedMigrator/Options/eventsPerKind``).
        var shownKey: [RowEvent.KeyValue]?
        func fields() throws -> [RowEvent.KeyValue] {
            if let shownKey { return shownKey }
            let fields = try keyFields(key, in: table, input: row)
            shownKey = fields
            return fields
        }
        if validate, let validator = options.validator {
            // A row that breaks a rule is still written (the run fails anyway), so that the
            // duplicate keys and refs of the rows after it are checked against it too.
            errors += validator.validate(
                table: written(table), values: written(values, as: row), file: row.file, line: row.line)
        }
        if unwritable {
            // Not written, but its key still counts as provided: no child is reported for it again.
            queue.broken.formUnion(providedKeys(table, values))
            return .done
        }
        // Whether the INSERT itself can skip a row whose key is there (one probe of the key's index, not two).
        // `keyColumns` are the key's columns, in order (each one is in `key`, or the row was refused above).
        let unlessPresent =
            try keyResolved && missing.isEmpty && !key.contains { $0.value == .null }
            && insertsUnlessPresent(table, name: name, key: keyColumns)
        // Rows held for a multi-row INSERT go in before this row's count, wait or write (see MigrationRun+Bulk.swift).
        if !unlessPresent { try flushInserts() }
        if keyResolved, !unlessPresent, try count(table, key) > 0 {
            fill(slot, event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
            return .done
        }
        if !missing.isEmpty {
            return .waiting(key: try fields(), missing: missing, provides: providedKeys(table, values))
        }
        // What the row does not name gets its default, as Core Data gives every new object.
        for (column, value) in (tableSpec?.defaults ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let info = table.column(column), !values.contains(where: { $0.column.isSameName(as: info.name) })
            else { continue }
            values.append((info.name, value))
        }
        if let coreData {
            // Archived values (Transformable, composite): only the app's own code writes them.
            let archived = coreData.unwritableValues(entity: name, values: values)
            // An enum case's column holds its case's name: any other value is no case the app knows.
            let wrongCases = coreData.wrongEnumCases(entity: name, values: values)
            // A Transformable's value: the bytes of an archive, as a store holds them.
            let notArchives = coreData.invalidArchives(entity: name, values: values)
            if !archived.isEmpty || !wrongCases.isEmpty || !notArchives.isEmpty {
                for (attribute, why) in notArchives {
                    errors.append(
                        Diagnostic(
                            file: row.file, line: row.line, code: .otherRule,
                            message: "\(name): " + CoreDataDialect.archiveMessage(attribute: attribute, why: why),
                            table: table.name))
                }
                for (attribute, type) in archived {
                    errors.append(
                        Diagnostic(
                            file: row.file, line: row.line, code: .unknownColumn,
                            message: CoreDataDialect.unwritableMessage(entity: name, attribute: attribute, type: type),
                            table: table.name))
                }
                for (attribute, value, caseName) in wrongCases {
                    errors.append(
                        Diagnostic(
                            file: row.file, line: row.line, code: .otherRule,
                            message: CoreDataDialect.wrongEnumCaseMessage(
                                entity: name, attribute: attribute, value: value, name: caseName), table: table.name))
                }
                queue.broken.formUnion(providedKeys(table, values))
                return .done
            }
            // The model's generated UUIDs (`let id = UUID()`), from the row's natural key; then
            // every required attribute must have a value, or the row is not written.
            values = coreData.withGeneratedValues(
                entity: name, table: table, values: values, key: try fields().map { $0.parent?.value ?? $0.value })
            let missingAttributes = coreData.missingRequired(
                entity: name, table: table, values: values, inserting: true)
            if !missingAttributes.isEmpty {
                let shown = RowEvent.describe(key: try fields())
                for attribute in missingAttributes {
                    errors.append(
                        Diagnostic(
                            file: row.file, line: row.line, code: .missingRequired,
                            message: CoreDataDialect.requiredMessage(
                                entity: name, key: shown, attribute: attribute, action: "not inserted"),
                            table: table.name))
                }
                queue.broken.formUnion(providedKeys(table, values))
                return .done
            }
        }
        if unlessPresent, validate, let slot, links.isEmpty, linkLater.isEmpty, membersLater.isEmpty,
            try holdForMultiRowInsert(values, into: table, name: name, row: row, slot: slot, keyColumns: keyColumns)
        {
            return .done
        }
        try flushInserts()
        return try writeInsert(
            values, into: table, name: name, row: row, slot: slot, key: key, keyColumns: keyColumns,
            unlessPresent: unlessPresent,
            links: links, linkLater: linkLater, membersLater: membersLater, shownKey: shownKey)
    }

    /// Writes a row ``insert(_:named:slot:validate:later:)`` has decided to write (or one a
    /// multi-row INSERT could not take), and settles it: inserted, already present, vetoed by a
    /// trigger, a collision or an error; then its links and what waited for it.
    mutating func writeInsert(
        _ values: [(column: String, value: SQLValue)], into table: TableInfo, name: String, row: DataChanges.RowValues,
        slot: Slot?,
        key: [(column: String, value: SQLValue)], keyColumns: [String], unlessPresent: Bool,
        links: [ManyToMany] = [], linkLater: [MissingParent] = [], membersLater: [MissingParent] = [],
        shownKey: [RowEvent.KeyValue]? = nil
    ) throws -> Attempt {
        var shownKey = shownKey
        func fields() throws -> [RowEvent.KeyValue] {
            if let shownKey { return shownKey }
            let fields = try keyFields(key, in: table, input: row)
            shownKey = fields
            return fields
        }
        do {
            if unlessPresent {
                guard try writeUnlessPresent(values, into: table, name: name, key: keyColumns) else {
                    // The key is not there as its columns compare, but a unique index of another
                    // collation (the user's `title COLLATE NOCASE`) holds it: the user's row, not ours.
                    if try count(table, key) == 0, let held = try heldByUniqueIndex(table, values: values) {
                        fill(
                            slot,
                            conflict(table, line: row.line, file: row.file, key: try fields(), "not inserted: \(held)"))
                        return .done
                    }
                    fill(
                        slot,
                        event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
                    return .done
                }
            } else if try write(values, into: table, name: name) == 0 {
                // SQLite made no row: a trigger's RAISE(IGNORE). Never reported as inserted.
                fill(
                    slot,
                    conflict(
                        table, line: row.line, file: row.file, key: try fields(),
                        "not inserted: \(try TriggerVeto.reason(db, table: table.name, event: "INSERT"))"))
                return .done
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // SQLite checks NOT NULL and CHECK before the key's index: a row whose key is there stays "already present".
            if unlessPresent, try count(table, key) > 0 {
                fill(slot, event(.alreadyPresent, table, row: row, key: try fields(), "already present; left as it is"))
                return .done
            }
            if let collision = try schemaCollision(error, in: table, values: values) {
                fill(
                    slot,
                    conflict(table, line: row.line, file: row.file, key: try fields(), "not inserted: \(collision)"))
                return .done
            }
            errors.append(
                Diagnostic(
                    file: row.file, line: row.line, code: constraintCode(error),
                    message:
                        "cannot insert \(RowEvent.describe(key: try fields())) into \(written(table)): \(error.message ?? "constraint failed")",
                    table: table.name))
            queue.broken.formUnion(providedKeys(table, values))
            return .done
        }
        for link in links { try self.link(link, table: table, key: key) }
        if lists(.inserted, in: slot) {
            fill(slot, event(.inserted, table, row: row, key: try fields(), "inserted"))
        } else {
            unlist(.inserted, in: slot)
        }
        for parent in linkLater {
            queue.add(
                .link(table: name, key: key, row: row, column: parent.column), slot: nil, key: try fields(),
                missing: [parent], provides: [])
        }
        for member in membersLater {
            let only = DataChanges.RowValues(values: [(member.column, member.input)], line: row.line, file: row.file)
            queue.add(
                .link(table: name, key: key, row: only, column: member.column), slot: nil, key: try fields(),
                missing: [member], provides: [])
        }
        queue.appeared(table.name, values)
        return .done
    }

    /// Sets a ref column that was inserted as NULL (a cycle broken), now that its parent is in the store.
    mutating func link(
        table name: String, key: [(column: String, value: SQLValue)], row: DataChanges.RowValues, column: String
    ) throws -> Attempt {
        let table = try tableInfo(name, file: row.file)
        if dialect is CoreDataDialect, table.column(dialect.columnName(column, in: name)) == nil {
            // A member of a many-to-many relationship: its join row.
            var member = row
            let links = try takeManyToMany(&member, table: table, entity: name)
            if let missing = links.first?.missing, !missing.isEmpty {
                return .waiting(key: try keyFields(key, in: table, input: row), missing: missing, provides: [])
            }
            for link in links { try self.link(link, table: table, key: key) }
            return .done
        }
        guard let input = row.values.first(where: { $0.column.isSameName(as: column) }) else { return .done }
        let resolution = try resolve(DataChanges.RowValues(values: [input], line: row.line, file: row.file), in: table)
        if !resolution.missing.isEmpty {
            return .waiting(key: try keyFields(key, in: table, input: row), missing: resolution.missing, provides: [])
        }
        memo.changedRows()
        try dialect.update(db, table: table, key: key, values: resolution.values, references: parentTables(of: table))
        return .done
    }

    /// The keys a row provides to refs that wait for it: each of its plain column values.
    mutating func providedKeys(_ table: TableInfo, _ values: [(column: String, value: SQLValue)]) -> [ParentKey] {
        let refs = references(of: table.name)
        return values.filter { refs[SQLName($0.column)] == nil && $0.value != .null }.map {
            ParentKey(table: table.name, column: $0.column, value: $0.value)
        }
    }

    /// A many-to-many relationship set on an inserted row: its join table and the members' `Z_PK`s (nil when one is missing).
    struct ManyToMany {
        var join: CoreDataDialect.JoinTable
        var destination: String
        var members: [SQLValue]
        /// Members not in the store (yet).
        var missing: [MissingParent]
    }

    /// Takes the values of `row` that name many-to-many relationships (Core Data: no column, a
    /// join table) out of it, with their members resolved by key.
    mutating func takeManyToMany(_ row: inout DataChanges.RowValues, table: TableInfo, entity: String) throws
        -> [ManyToMany]
    {
        guard let coreData else { return [] }
        var links: [ManyToMany] = []
        var kept: [(column: String, value: InputValue)] = []
        for (column, input) in row.values {
            let stored = dialect.columnName(column, in: entity)
            guard table.column(stored) == nil, let ref = specs.writtenRef(table.name, SQLName(stored)),
                let join = try joinTable(coreData, entity: entity, ref: ref)
            else {
                kept.append((column, input))
                continue
            }
            let destination = try tableInfo(ref.reference.table, file: row.file)
            guard let keyColumn = destination.column(dialect.columnName(ref.reference.column, in: ref.reference.table))
            else {
                errors.append(
                    Diagnostic(
                        file: row.file, line: row.line, code: .configuration,
                        message: "ref \(entity).\(column) → \(ref.reference) names a column \(destination.name) lacks",
                        table: table.name))
                continue
            }
            var members: [SQLValue] = []
            var missing: [MissingParent] = []
            for item in input.listItems {
                guard case .success(let key) = dialect.columnType(keyColumn).convert(item) else {
                    errors.append(
                        Diagnostic(
                            file: row.file, line: row.line, code: .typeMismatch,
                            message: "\(entity).\(column): \(item) is not a key of \(ref.reference)", table: table.name)
                    )
                    continue
                }
                let entityRows = dialect.rowFilter(ref.reference.table).map { " AND \($0)" } ?? ""
                let found = try db.cachedStatement(
                    sql: coreData.primaryKeySQL(
                        from: destination.name, where: "\(quoteIdentifier(keyColumn.name)) IS ?\(entityRows)")
                        + " LIMIT 1"
                ).firstValue(binding: [key])
                if let found {
                    members.append(found)
                } else {
                    missing.append(
                        MissingParent(
                            key: ParentKey(table: destination.name, column: keyColumn.name, value: key), column: column,
                            reference: ref.reference,
                            input: item, type: dialect.columnType(keyColumn), nullable: true))  // linked once it is in
                }
            }
            links.append(ManyToMany(join: join, destination: destination.name, members: members, missing: missing))
        }
        row.values = kept
        return links
    }

    mutating func joinTable(
        _ coreData: CoreDataDialect, entity: String, ref: (relationship: String, reference: TableSpec.Reference)
    ) throws -> CoreDataDialect.JoinTable? {
        let id = entity + "." + ref.relationship
        if let known = joinTables[id] { return known }
        let found = try coreData.joinTable(
            db, entity: entity, relationship: ref.relationship, destination: ref.reference.table)
        joinTables[id] = found
        return found
    }

    /// Writes the join rows of a newly inserted row (the dialect numbers and bumps as Core Data does).
    mutating func link(_ link: ManyToMany, table: TableInfo, key: [(column: String, value: SQLValue)]) throws {
        guard let coreData = dialect as? CoreDataDialect,
            let owner = try db.sqlRow(
                coreData.primaryKeySQL(from: table.name, where: predicate(table, key)), binding: key.map { $0.value })?
                .first
        else { return }
        memo.changedRows()
        try coreData.link(
            db, join: link.join, owner: owner, members: link.members, memberTable: link.destination,
            ownerTable: table.name)
    }
}
