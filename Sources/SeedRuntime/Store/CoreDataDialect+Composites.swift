import GRDB

/// SwiftData's composite attributes (a `Codable` enum or struct, docs/core-data.md, "Composite
/// attributes") as the dialect writes them: each element is a column of its own; an enum without
/// raw values has a column per case, of which a non-optional enum's row fills one.
extension CoreDataDialect {
    /// The columns of `table` that hold the cases of the enum `name` (`folderType` for
    /// `folderType.systemAll`, `folderType.user`, …) of entity `entity`; empty when it is no such enum.
    package func caseColumns(entity: String, enum name: String, table: TableInfo) -> [String] {
        (facts.enumCases[factsName(entity)] ?? [:]).keys.sorted()
            .filter { $0.hasPrefix(name + ".") }
            .compactMap { table.column(columnName($0, in: entity))?.name }
    }

    /// A build's rows of `entity` in `table` that leave a non-optional enum without raw values
    /// with no case: per enum, how many.
    package func rowsWithoutCase(_ db: Database, entity name: String, table: TableInfo) throws -> [(
        attribute: String, rows: Int
    )] {
        let own = rowFilter(name).map { " AND \($0)" } ?? ""
        return try (facts.required[factsName(name)] ?? []).compactMap { attribute in
            let cases = caseColumns(entity: name, enum: attribute, table: table)
            guard table.column(columnName(attribute, in: name)) == nil, !cases.isEmpty else { return nil }
            let none = cases.map { "\(quoteIdentifier($0)) IS NULL" }.joined(separator: " AND ")
            let rows =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(none)\(own)")
                ?? 0
            return rows > 0 ? (attribute, rows) : nil
        }
    }
}
