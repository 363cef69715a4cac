import Foundation
import GRDB
import SeedRuntime

extension SeedBuilder {
    // MARK: - Manifest against schema

    /// Checks every table, column, key and ref the manifest names against the schema, and
    /// compiles each table's plan.
    ///
    /// Unknown names are configuration errors at their manifest line.
    func resolveManifest(_ db: Database, dialect: any StoreDialect, coreData: CoreDataDialect?) throws
        -> [TablePlan]
    {
        var problems: [Diagnostic] = []
        var plans: [TablePlan] = []
        var loaded: [String: TableInfo] = [:]
        let available = try TableInfo.userTables(db)
        func problem(_ line: Int, _ column: Int = 0, _ message: String) {
            problems.append(
                Diagnostic(file: manifest.path, line: line, column: column, code: .configuration, message: message))
        }
        for config in manifest.tables {
            guard !SeedCatalog.isInternal(config.name),
                let table = try TableInfo.read(db, table: dialect.tableName(config.name))
            else {
                problem(
                    config.line, config.column,
                    "unknown table '\(config.name)': the schema has \(available.joined(separator: ", "))")
                continue
            }
            // A many-to-many relationship has no column: its rows are in a join table.
            let isManyToMany = { (name: String) in
                table.column(dialect.columnName(name, in: config.name)) == nil
                    && self.manifest.model?.manyToMany(config.name, name) != nil
            }
            for mention in config.columnMentions
            where table.column(dialect.columnName(mention.column, in: config.name)) == nil
                && !isManyToMany(mention.column)
            {
                problem(
                    mention.line, mention.column2,
                    "table \(config.name) has no column '\(mention.column)' (it has \(table.columns.map(\.name).joined(separator: ", ")))"
                )
            }
            if config.key.isEmpty && table.primaryKey.isEmpty {
                problem(
                    config.line, config.column,
                    "table \(config.name) has no primary key; give it a natural key with key:")
            }
            var references: [String: TablePlan.Reference] = [:]
            for (column, reference) in config.refs where !isManyToMany(column) {
                let parentTable = dialect.tableName(reference.table)
                let parentInfo =
                    try parentTable == table.name
                    ? table : loaded[parentTable] ?? TableInfo.read(db, table: parentTable)
                let at = config.refPositions[column] ?? (config.line, config.column)
                guard let parent = parentInfo else {
                    problem(
                        at.line, at.column,
                        "ref \(config.name).\(column) → \(reference): no table '\(reference.table)' (the schema has \(try TableInfo.userTables(db).joined(separator: ", ")))"
                    )
                    continue
                }
                guard let parentKey = parent.column(dialect.columnName(reference.column, in: reference.table)) else {
                    problem(
                        at.line, at.column,
                        "ref \(config.name).\(column) → \(reference): \(parent.name) has no column '\(reference.column)' (it has \(parent.columns.map(\.name).joined(separator: ", ")))"
                    )
                    continue
                }
                let stored = dialect.columnName(column, in: config.name)
                let target = table.referenceTarget(of: stored, in: parent)
                references[stored.lowercasedName] = TablePlan.Reference(
                    spec: reference,
                    keyType: manifest.model?.columnType(entity: reference.table, attribute: reference.column)
                        ?? dialect.columnType(parentKey),
                    parentTable: parent.name, parentKey: parentKey.name, target: target,
                    rowFilter: dialect.rowFilter(reference.table)
                )
            }
            for check in config.checks {
                do {
                    _ = try db.makeStatement(sql: "SELECT (\(check.sql)) FROM \(quoteIdentifier(table.name))")
                } catch let error as DatabaseError {
                    problem(
                        check.line, 0, "check '\(check.sql)' is not valid SQL for \(table.name): \(error.message ?? "")"
                    )
                }
            }
            loaded[table.name] = table
            var plan = TablePlan(
                config: config, table: table, bound: [], slotOfSourceColumn: [], recordsNameTheirFields: false)
            plan.referencesByColumn = references
            plan.dialect = dialect
            if let coreData, let model = manifest.model {
                guard let entity = coreData.entity(named: config.name) else {
                    problem(
                        config.line, config.column,
                        "entity \(config.name) is not in the template's \(CoreDataDialect.primaryKeyTable): was the template created with this model?"
                    )
                    continue
                }
                plan.constants = coreData.bulkInsertConstants(entity)
                for attribute in model.flattened(config.name)?.attributes ?? [] {
                    plan.modelTypes[attribute.name] = model.columnType(entity: config.name, attribute: attribute.name)
                }
                for (attribute, value) in model.defaults(for: config.name) {
                    plan.defaults[attribute.lowercasedName] = value
                }
            }
            // The seed leaves a migrate-only table as the template or schema makes it (docs/reference.md, "Tables only migrations write").
            if !config.migrateOnly { plans.append(plan) }
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
        return plans
    }

    /// Makes every natural key unique while loading, so that duplicates are caught at their
    /// line and ref lookups use an index.
    ///
    /// Returns the indexes to drop afterwards.
    func ensureUniqueKeys(_ db: Database, plans: [TablePlan]) throws -> [String] {
        var created: [String] = []
        for plan in plans where !plan.config.key.isEmpty {
            let keyColumns = plan.config.key.map { plan.table.column(plan.storeColumn($0))?.name ?? $0 }
            let key = Set(keyColumns.map { $0.lowercasedName })
            if Set(plan.table.primaryKey.map { $0.lowercasedName }) == key { continue }
            var covered = false
            for index in try Row.fetchAll(
                db, sql: "SELECT name, \"unique\", partial FROM pragma_index_list(?)", arguments: [plan.table.name])
            {
                guard (index[1] as Int) == 1, (index[2] as Int) == 0 else { continue }
                let columns = try String.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index[0] as String])
                if Set(columns.map { $0.lowercasedName }) == key {
                    covered = true
                    break
                }
            }
            if covered { continue }
            // Keys are per entity: sub-entities sharing a Core Data table each have their own (a partial index on their Z_ENT).
            let entityRows = plan.dialect.rowFilter(plan.config.name)
            let name = "_seedkit_key_\(plan.table.name)" + (entityRows == nil ? "" : "_\(plan.config.name)")
            try db.execute(
                sql:
                    "CREATE UNIQUE INDEX \(quoteIdentifier(name)) ON \(quoteIdentifier(plan.table.name)) (\(keyColumns.map(quoteIdentifier).joined(separator: ", ")))\(entityRows.map { " WHERE \($0)" } ?? "")"
            )
            created.append(name)
        }
        return created
    }
}

extension SeedBuilder {
    /// Refuses an output that is not a regular file (a device, a folder, a symbolic link) or that is
    /// one of the build's own inputs: a build replaces its output with a new file, which would
    /// destroy the device node, the link, or the input.
    ///
}
