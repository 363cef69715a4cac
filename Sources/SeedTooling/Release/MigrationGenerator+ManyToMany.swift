import Foundation
import GRDB
import SeedRuntime

extension MigrationGenerator {
    /// How to read a Core Data row's many-to-many relationships from a seed: those the manifest
    /// lists by a ref (`garnish: Garnish.name`) that names no column, each as the related rows' keys.
    struct ManyToManyLists {
        var owner: String
        var lists: [(name: String, sql: String)] = []

        /// For the row whose key is `key` (as ``SemanticRows/row(_:key:storedOnly:)`` reads it),
        /// each relationship with members as a YAML flow sequence of their keys (`["Mint", "Lime"]`).
        func read(_ db: Database, key: [SQLValue], in table: SemanticRows) throws -> [(name: String, yaml: String)] {
            guard !lists.isEmpty else { return [] }
            let predicate = table.keyPredicate(key)
            guard
                case .integer(let primaryKey)? = try db.sqlRow(owner + predicate.sql, binding: predicate.arguments)?
                    .first
            else { return [] }
            var found: [(name: String, yaml: String)] = []
            for list in lists {
                let members = try db.sqlRows(list.sql, binding: [.integer(primaryKey)]).compactMap(\.first)
                guard !members.isEmpty else { continue }
                let items = members.map { member -> String in
                    if case .text(let text) = member { return SQLValue.yamlQuoted(text) }
                    return member.yaml
                }
                found.append((list.name, "[" + items.joined(separator: ", ") + "]"))
            }
            return found
        }
    }

    /// ``ManyToManyLists`` of `table` in the seed `db`; none for a table that is not a Core Data entity.
    func manyToManyLists(_ table: SemanticRows, in db: Database) throws -> ManyToManyLists {
        guard let model = manifest.model, let dialect = try CoreDataDialect.read(db, facts: model.facts) else {
            return ManyToManyLists(owner: "")
        }
        let entity = table.written.name
        var result = ManyToManyLists(owner: dialect.primaryKeySQL(from: table.spec.name, where: ""))
        for (name, reference) in table.written.refs.sorted(by: { $0.key < $1.key }) {
            guard let relationship = model.manyToMany(entity, name),
                let join = try dialect.joinTable(
                    db, entity: entity, relationship: relationship.name, destination: relationship.destination),
                let members = try TableInfo.read(db, table: dialect.tableName(reference.table))
            else { continue }
            let keyColumn = dialect.columnName(reference.column, in: reference.table)
            let key = dialect.uuidTextExpressions(members)[keyColumn] ?? "d.\(quoteIdentifier(keyColumn))"
            result.lists.append((name, dialect.membersSQL(join, memberTable: members.name, keyExpression: key)))
        }
        return result
    }
}
