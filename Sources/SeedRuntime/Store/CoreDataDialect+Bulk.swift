import Foundation
import GRDB

/// Core Data's bookkeeping for rows a build inserted in bulk (straight INSERTs with `Z_ENT`
/// and `Z_OPT` 1, `Z_PK` from SQLite), done once every table is loaded: the same facts
/// ``CoreDataDialect/insert(_:into:name:values:references:)`` writes row by row in a migration.
extension CoreDataDialect {
    /// One entity's rows loaded in bulk.
    package struct BulkTable: Sendable {
        package var table: TableInfo
        /// The entity the fixture names.
        package var entity: String
        /// To-one relationship column → the entity it points at.
        package var references: [String: String]

        package init(table: TableInfo, entity: String, references: [String: String]) {
            self.table = table
            self.entity = entity
            self.references = references
        }
    }

    /// Completes rows inserted in bulk: order keys (each parent's rows in `Z_PK` order, from
    /// 2048 in steps of 1024, after the rows the store already ordered), entity-type columns
    /// (`Z1_BOOK` = the target's `Z_ENT`), the other side of one-to-one relationships, and
    /// `Z_MAX` moved past the rows added (left alone where it is -1).
    package func completeBulkInsert(_ db: Database, tables: [BulkTable]) throws {
        for bulk in tables {
            let table = bulk.table
            let t = quoteIdentifier(table.name)
            let own = rowFilter(bulk.entity).map { " AND \($0)" } ?? ""
            for column in table.columns {
                let c = quoteIdentifier(column.name)
                if let order = Self.orderColumn(for: column.name, in: table) {
                    let o = quoteIdentifier(order)
                    try db.execute(
                        sql: """
                            UPDATE \(t) SET \(o) = \(Self.firstOrderKey) + (ordered.position - 1) * \(Self.orderKeyStep) FROM (
                                SELECT Z_PK AS pk, row_number() OVER (PARTITION BY \(c) ORDER BY \(o) IS NULL, \(o), Z_PK) AS position
                                FROM \(t) WHERE \(c) IS NOT NULL) AS ordered
                            WHERE \(t).Z_PK = ordered.pk
                            """)
                }
                guard let target = bulk.references[column.name] ?? bulk.references[column.name.uppercased()] else {
                    continue
                }
                let parent = quoteIdentifier(tableName(target))
                if let typeColumn = Self.entityTypeColumn(for: column.name, in: table) {
                    try db.execute(
                        sql:
                            "UPDATE \(t) SET \(quoteIdentifier(typeColumn)) = (SELECT p.Z_ENT FROM \(parent) AS p WHERE p.Z_PK = \(t).\(c)) WHERE \(c) IS NOT NULL\(own)"
                    )
                }
                guard let entity = entity(named: bulk.entity),
                    let inverse = oneToOneInverse(entity, column: column.name, parentTable: tableName(target)),
                    let parentInfo = try TableInfo.read(db, table: tableName(target)), parentInfo.column(inverse) != nil
                else { continue }
                var assignments = [
                    "\(quoteIdentifier(inverse)) = (SELECT o.Z_PK FROM \(t) AS o WHERE o.\(c) = \(parent).Z_PK\(own.replacingOccurrences(of: "Z_ENT", with: "o.Z_ENT")) ORDER BY o.Z_PK LIMIT 1)"
                ]
                if let typeColumn = Self.entityTypeColumn(for: inverse, in: parentInfo) {
                    assignments.append(
                        "\(quoteIdentifier(typeColumn)) = (SELECT o.Z_ENT FROM \(t) AS o WHERE o.\(c) = \(parent).Z_PK\(own.replacingOccurrences(of: "Z_ENT", with: "o.Z_ENT")) ORDER BY o.Z_PK LIMIT 1)"
                    )
                }
                try db.execute(
                    sql:
                        "UPDATE \(parent) SET \(assignments.joined(separator: ", ")) WHERE Z_PK IN (SELECT \(c) FROM \(t) WHERE \(c) IS NOT NULL\(own))"
                )
            }
        }
        // Core Data allocates the next Z_PK from Z_MAX: move it past the rows just added.
        let loaded = Set(tables.map(\.table.name))
        for entity in entities where entity.superEntity == 0 && loaded.contains(tableName(entity.name)) {
            try db.execute(
                sql:
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, (SELECT ifnull(max(Z_PK), 0) FROM \(quoteIdentifier(tableName(entity.name))))) WHERE Z_ENT = ? AND Z_MAX >= 0",
                arguments: [entity.number])
        }
    }
}
