import SeedRuntime

extension StoreDiff {
    /// The same differences named as the app names them in a Core Data store: tables by entity,
    /// columns by attribute or relationship (the model's names when given, else the column's
    /// name without `Z`, lower-cased).
    package func inAppTerms(_ coreData: CoreDataDialect, model: CoreDataModel?) -> StoreDiff {
        func entity(_ table: String) -> String {
            coreData.entities.first { $0.superEntity == 0 && coreData.tableName($0.name) == table }?.name ?? table
        }
        func attribute(_ column: String, of table: String) -> String {
            guard CoreDataDialect.isAttributeColumn(column) else { return column }
            return CoreDataModel.attributeName(column, entity: entity(table), model: model, dialect: coreData)
        }
        var result = self
        result.tablesOnlyInA = tablesOnlyInA.map(entity)
        result.tablesOnlyInB = tablesOnlyInB.map(entity)
        result.columnsOnlyInA = Dictionary(
            columnsOnlyInA.map { table, columns in (entity(table), columns.map { attribute($0, of: table) }) },
            uniquingKeysWith: +)
        result.columnsOnlyInB = Dictionary(
            columnsOnlyInB.map { table, columns in (entity(table), columns.map { attribute($0, of: table) }) },
            uniquingKeysWith: +)
        result.tables = tables.map { diff in
            var renamed = diff
            renamed.table = entity(diff.table)
            renamed.key = diff.key.map { attribute($0, of: diff.table) }
            renamed.columns = diff.columns.map { attribute($0, of: diff.table) }
            renamed.changed = diff.changed.map { change in
                (
                    change.key,
                    change.columns.map {
                        (attribute($0.column, of: diff.table), $0.old, $0.new, $0.oldStored, $0.newStored)
                    }
                )
            }
            return renamed
        }
        return result
    }
}
