import Foundation
import GRDB

/// One-to-one relationships: Core Data stores the key on both sides (`ZPOST.ZCOLOR` and
/// `ZCOLOR.ZPOST`), and a pair that moves clears the sides it leaves (docs/core-data.md,
/// "Writing as Core Data does").
extension CoreDataDialect {
    /// Points the one-to-one inverse of `parent` at `owner`; a row it pointed at before loses its side.
    func setInverse(
        _ db: Database, parentTable: String, parent: SQLValue, inverse: String, owner: SQLValue, ownerTable: String,
        ownerColumn: String
    ) throws {
        let previous =
            try SQLValue.fetchOne(
                db, sql: "SELECT \(quoteIdentifier(inverse)) FROM \(quoteIdentifier(parentTable)) WHERE Z_PK = ?",
                arguments: [parent]) ?? .null
        guard !previous.isSame(as: owner) else { return }
        if previous != .null {
            try refuseLeavingRequiredEmpty(db, table: ownerTable, primaryKey: previous, column: ownerColumn)
            try db.execute(
                sql: "UPDATE \(quoteIdentifier(ownerTable)) SET \(quoteIdentifier(ownerColumn)) = NULL WHERE Z_PK = ?",
                arguments: [previous])
            try recordUpdate(db, table: ownerTable, primaryKey: previous) {
                propertyName(ofColumn: ownerColumn, entity: $0)
            }
            try bumpOptimisticLock(db, table: ownerTable, primaryKey: previous)
        }
        var assignments = ["\(quoteIdentifier(inverse)) = ?"]
        var arguments: [SQLValue] = [owner]
        if let info = try TableInfo.read(db, table: parentTable),
            let typeColumn = Self.entityTypeColumn(for: inverse, in: info)
        {
            assignments.append("\(quoteIdentifier(typeColumn)) = ?")
            arguments.append(try entityNumber(db, table: ownerTable, primaryKey: owner))
        }
        try db.execute(
            sql: "UPDATE \(quoteIdentifier(parentTable)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?",
            arguments: StatementArguments(arguments + [parent]))
    }

    func clearInverse(_ db: Database, parentTable: String, parent: SQLValue, inverse: String) throws {
        try refuseLeavingRequiredEmpty(db, table: parentTable, primaryKey: parent, column: inverse)
        var assignments = ["\(quoteIdentifier(inverse)) = NULL"]
        if let info = try TableInfo.read(db, table: parentTable),
            let typeColumn = Self.entityTypeColumn(for: inverse, in: info)
        {
            assignments.append("\(quoteIdentifier(typeColumn)) = NULL")
        }
        try db.execute(
            sql: "UPDATE \(quoteIdentifier(parentTable)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?",
            arguments: [parent])
    }

    /// Refuses to clear a one-to-one's other side where the model requires it (pegase: an Account
    /// given another's InitAccount left the first InitAccount's required `account` NULL, and verify
    /// found it afterwards): Core Data refuses to save an object without a required relationship.
    private func refuseLeavingRequiredEmpty(_ db: Database, table: String, primaryKey: SQLValue, column: String)
        throws
    {
        let number = try SQLValue.fetchOne(
            db.cachedStatement(sql: "SELECT Z_ENT FROM \(quoteIdentifier(table)) WHERE Z_PK = ?"),
            arguments: [primaryKey])
        guard let entity = entities.first(where: { SQLValue.integer($0.number) == number }) else { return }
        let name = modelName(of: entity)
        let property = propertyName(ofColumn: column, entity: entity)
        guard facts.required[name]?.contains(property) == true else { return }
        throw SeedError(
            .refused,
            "not written: the change takes a one-to-one's other side away from a row of \(name), and \(name).\(property) is required by the model (non-optional), so that row would be left without one (Core Data refuses to save it); give that row another \(property), or delete it, in the same migration first; nothing was written"
        )
    }
}
