/// A migration's rows in the Swift type's shape (``SwiftShape``): each operation's rows, and its
/// changes' `from:` and `to:`, are expanded into stored elements before anything resolves them.
extension MigrationRun {
    /// `operation` with every row in stored elements; a row with a problem is left out, its
    /// problems in ``errors`` (at the value's line and column), so that the run fails whole.
    mutating func expandingSwiftShapes(_ operation: DataChanges.Operation) -> DataChanges.Operation {
        guard let coreData, let shape = coreData.swiftShape(of: operation.table) else { return operation }
        let table = dialect.tableName(operation.table)
        switch operation {
        case .insert(let name, let rows):
            guard rows.contains(where: { shape.expand($0.values, entity: name) != nil }) else { return operation }
            return .insert(table: name, rows: rows.compactMap { expand($0, shape, entity: name, table: table) })
        case .update(let name, let changes):
            return .update(table: name, changes: expand(changes, shape, entity: name, table: table))
        case .delete(let name, let changes):
            return .delete(table: name, changes: expand(changes, shape, entity: name, table: table))
        }
    }

    private mutating func expand(
        _ changes: [DataChanges.RowChange], _ shape: SwiftShape, entity: String, table: String
    ) -> [DataChanges.RowChange] {
        changes.compactMap { change in
            var change = change
            let from = expand(change.from, shape, entity: entity, table: table)
            let to = expand(change.to, shape, entity: entity, table: table)
            guard let from, let to else { return nil }
            change.from = from
            change.to = to
            return change
        }
    }

    /// `row` in stored elements, or nil (its problems reported).
    private mutating func expand(_ row: DataChanges.RowValues, _ shape: SwiftShape, entity: String, table: String)
        -> DataChanges.RowValues?
    {
        let (stored, problems) = shape.storedForm(row, entity: entity)
        for problem in problems {
            let position = row.position(of: problem.index)
            errors.append(
                Diagnostic(
                    file: row.file, line: position.line, column: position.column,
                    code: problem.code(twice: .configuration), message: problem.message, table: table))
        }
        return problems.isEmpty ? stored : nil
    }
}

extension CoreDataDialect {
    /// The Swift shape of the composites of the entity a migration or fixture calls `entity`, or
    /// nil when the model's facts do not know it.
    package func swiftShape(of entity: String) -> SwiftShape? {
        SwiftShape(entity: factsName(entity), facts: facts)
    }
}
