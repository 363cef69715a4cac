import Foundation
import GRDB

/// Every column that can point at a row of a Core Data store (docs/core-data.md, "Deletes and
/// pointers to a row"). These stores have no FOREIGN KEY constraints: the model says which
/// columns hold another row's `Z_PK`, inverse or not —
/// - a to-one relationship: its `Z<NAME>` column in the owner's table;
/// - a to-many relationship without an inverse: Core Data keeps it on the other side, a column
///   `Z<owner's Z_ENT><NAME>` in the destination's table (`ZINGREDIENT.Z1SPEC` for `Cocktail.spec`);
/// - a many-to-many relationship: its join table (``manyToManyDeleteBlock(_:entityNumber:primaryKey:)``).
extension CoreDataDialect {
    /// A column holding the `Z_PK` of a row of ``target``.
    package struct Pointer: Sendable, Equatable {
        /// The table and column holding the key, and the rows of that table it belongs to (`Z_ENT IN (…)`).
        package var table: String
        package var column: String
        package var rows: String?
        /// The entity the column points at (its rows and its sub-entities').
        package var target: String
        /// The relationship in the model's terms: `Ingredient.ingredientBase`, `Cocktail.spec`.
        package var relationship: String
        /// The entity whose rows hold the column: the relationship's owner for a to-one, its
        /// destination for an inverse-less to-many (`Ingredient` for `Cocktail.spec`).
        package var holder: String
        /// A to-one whose inverse is a to-one too: Core Data keeps both sides, and a delete
        /// clears the other side (``delete(_:from:key:references:)``).
        package var oneToOne = false
        /// The column of an inverse-less to-many, kept in the destination's table: it belongs to
        /// the owner's relationship, not to any property of the rows holding it.
        package var ownersToMany = false

        /// The relationship's entity and property: `Cocktail` and `spec` for `Cocktail.spec`.
        package var owner: String { String(relationship.prefix { $0 != "." }) }
        package var property: String { String(relationship.drop { $0 != "." }.dropFirst()) }

        /// `1 Book row`, `3 Book rows`: rows holding the column, in the model's terms.
        package func rowCount(_ count: Int) -> String { "\(count) \(holder) row\(count == 1 ? "" : "s")" }
    }

    /// Every to-one and inverse-less to-many column of the model (from the facts' properties),
    /// as the store has them.
    package func pointers(_ db: Database) throws -> [Pointer] {
        var pointers: [Pointer] = []
        for entity in entities where entity.number < CoreDataHistory.changeEntity {
            let name = modelName(of: entity)
            // A property a sub-entity inherits is its ancestor's: listed once, under the entity that declares it.
            let inherited = Set(
                lineage(of: entity).dropFirst().flatMap {
                    facts.history[modelName(of: $0)]?.properties.map(\.name) ?? []
                })
            for property in facts.history[name]?.properties ?? [] where !inherited.contains(property.name) {
                guard let destination = property.destination, self.entity(named: destination) != nil else { continue }
                switch property.kind {
                case .attribute: continue
                case .toOne:
                    let table = tableName(name)
                    guard let info = try TableInfo.read(db, table: table),
                        let column = info.column(columnName(property.name, in: name))
                    else { continue }
                    let inverse = property.inverse.flatMap { inverse in
                        facts.history[destination]?.properties.first { $0.name == inverse }
                    }
                    pointers.append(
                        Pointer(
                            table: info.name, column: column.name, rows: rowFilter(name), target: destination,
                            relationship: "\(name).\(property.name)", holder: name,
                            oneToOne: inverse?.kind == .toOne))
                case .toMany:
                    guard property.inverse == nil, let info = try TableInfo.read(db, table: tableName(destination)),
                        let column = info.column("Z\(entity.number)\(property.name.uppercased())")
                    else { continue }
                    pointers.append(
                        Pointer(
                            table: info.name, column: column.name, rows: rowFilter(destination), target: name,
                            relationship: "\(name).\(property.name)", holder: destination, ownersToMany: true))
                }
            }
        }
        return pointers
    }

    /// Why the row of entity number `entityNumber` with `primaryKey` cannot be deleted: a row
    /// points at it through a to-one relationship, inverse or not, or holds it as the owner of
    /// an inverse-less to-many.
    ///
    /// seedkit denies such a delete whatever the relationship's delete rule (Nullify would change
    /// rows the migration does not name, Cascade delete them; Deny is Core Data's own refusal): the
    /// migration deletes or moves those rows first. Nil when nothing points at it.
    package func pointerDeleteBlock(_ db: Database, entityNumber: SQLValue, primaryKey: SQLValue) throws -> String? {
        guard primaryKey != .null, let entity = entities.first(where: { SQLValue.integer($0.number) == entityNumber })
        else { return nil }
        let names = Set(lineage(of: entity).map(modelName))
        let ownTable = tableName(modelName(of: entity))
        for pointer in try pointers(db) where names.contains(pointer.target) && !pointer.oneToOne {
            var sql =
                "SELECT count(*) FROM \(quoteIdentifier(pointer.table)) WHERE \(quoteIdentifier(pointer.column)) = ?"
            var arguments: [SQLValue] = [primaryKey]
            if let rows = pointer.rows { sql += " AND \(rows)" }
            if pointer.table == ownTable {
                sql += " AND Z_PK IS NOT ?"
                arguments.append(primaryKey)
            }  // a row pointing at itself goes with it
            let count = try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
            guard count > 0 else { continue }
            return
                "still referenced by \(pointer.relationship) (\(pointer.rowCount(count)) \(count == 1 ? "holds" : "hold") it; column \(pointer.table).\(pointer.column)); delete or move them first in a migration"
        }
        return nil
    }

    /// ``pointerDeleteBlock(_:entityNumber:primaryKey:)`` for a row read from the store, whose
    /// values `column` gives by column name.
    package func pointerDeleteBlock(_ db: Database, row column: (String) -> SQLValue?) throws -> String? {
        try pointerDeleteBlock(db, entityNumber: column("Z_ENT") ?? .null, primaryKey: column("Z_PK") ?? .null)
    }

    /// What ``danglingPointers(_:limit:)`` found, as `verify` reports it: the pointer and the message.
    package func danglingPointerMessages(_ db: Database) throws -> [(pointer: Pointer, message: String)] {
        try danglingPointers(db).map { pointer, rows, count in
            let listed = rows.map(String.init).joined(separator: ", ") + (count > rows.count ? ", …" : "")
            let verb =
                pointer.ownersToMany
                ? "\(count == 1 ? "is" : "are") held by no \(pointer.target)"
                : "point\(count == 1 ? "s" : "") at no \(pointer.target)"
            return (
                pointer,
                "\(pointer.rowCount(count)) (Z_PK \(listed)) \(verb) (column \(pointer.table).\(pointer.column))"
            )
        }
    }

    /// Rows whose relationship columns point at no row of the entity they name: each pointer
    /// with the `Z_PK`s of the rows holding a dangling key (at most `limit` of them) and how many there are.
    package func danglingPointers(_ db: Database, limit: Int = 5) throws -> [(
        pointer: Pointer, rows: [Int64], count: Int
    )] {
        var found: [(pointer: Pointer, rows: [Int64], count: Int)] = []
        for pointer in try pointers(db) {
            guard let target = entity(named: pointer.target) else { continue }
            let targetTable = tableName(pointer.target)
            let family = family(of: target).map(String.init).joined(separator: ", ")
            let column = quoteIdentifier(pointer.column)
            let condition =
                "t.\(column) IS NOT NULL" + (pointer.rows.map { " AND t.\($0)" } ?? "")
                + " AND NOT EXISTS (SELECT 1 FROM \(quoteIdentifier(targetTable)) AS p WHERE p.Z_PK = t.\(column) AND p.Z_ENT IN (\(family)))"
            let from = "FROM \(quoteIdentifier(pointer.table)) AS t WHERE \(condition)"
            let count = try Int.fetchOne(db, sql: "SELECT count(*) \(from)") ?? 0
            guard count > 0 else { continue }
            let rows = try Int64.fetchAll(db, sql: "SELECT t.Z_PK \(from) ORDER BY t.Z_PK LIMIT \(limit)")
            found.append((pointer, rows, count))
        }
        return found
    }
}
