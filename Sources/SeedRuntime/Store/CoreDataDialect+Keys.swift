import Foundation
import GRDB

/// The keys of entities that neither a manifest nor the seed names: a store the app created
/// (a SwiftData store, migrated with no manifest) is written by its model's uniqueness constraints.
extension CoreDataDialect {
    /// The key of `entity` when nothing names one: its first single-attribute uniqueness
    /// constraint (`@Attribute(.unique)`), from the model, else from the store's unique index
    /// `Z_<Entity>_UNIQUE_<attribute>` on one column; nil when it has neither.
    package func uniqueAttribute(_ db: Database, entity: Entity) throws -> String? {
        let name = modelName(of: entity)
        let properties = facts.history[name]?.properties
        for constraint in facts.uniqueness[name] ?? [] where constraint.count == 1 {
            if properties == nil
                || properties?.contains(where: { $0.name == constraint[0] && $0.kind == .attribute }) == true
            {
                return constraint[0]
            }
        }
        let table = tableName(name)
        let pattern = "Z\\_" + name.replacingOccurrences(of: "_", with: "\\_") + "\\_UNIQUE\\_%"
        for index in try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE ? ESCAPE '\\' ORDER BY name",
            arguments: [table, pattern])
        {
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index])
            guard columns.count == 1, !Self.isBookkeeping(columns[0]) else { continue }
            let property = propertyName(ofColumn: columns[0], entity: entity)
            return property == columns[0] ? Self.attributeName(ofColumn: columns[0]) : property
        }
        return nil
    }

    /// Specs for the entities `listed` does not cover (by themselves or an ancestor): each keyed
    /// by its unique attribute, with refs for its relationships to entities so keyed.
    package func defaultSpecs(_ db: Database, except listed: Set<String>) throws -> [TableSpec] {
        var keys: [String: String] = [:]
        var unlisted: [Entity] = []
        for entity in entities where entity.number < CoreDataHistory.changeEntity {
            guard try db.tableExists(tableName(entity.name)) else { continue }
            let name = modelName(of: entity)
            if let key = try uniqueAttribute(db, entity: entity) { keys[name] = key }
            if !lineage(of: entity).map(modelName).contains(where: listed.contains) { unlisted.append(entity) }
        }
        return unlisted.compactMap { entity in
            let name = modelName(of: entity)
            // An entity without a key still names its relationships' rows by their keys
            // (`ingredientBase: Gin`, not `"Gin" is not an integer`); a migration then says it needs a key.
            let key = keys[name]
            var refs: [String: TableSpec.Reference] = [:]
            for property in facts.history[name]?.properties ?? [] where property.kind != .attribute {
                guard let destination = property.destination, let destinationKey = keys[destination] else { continue }
                if property.kind == .toMany {
                    // Only a many-to-many relationship is written by listing keys.
                    let inverseKind = property.inverse.flatMap { inverse in
                        facts.history[destination]?.properties.first { $0.name == inverse }?.kind
                    }
                    guard inverseKind == .toMany else { continue }
                }
                refs[property.name] = TableSpec.Reference(table: destination, column: destinationKey)
            }
            guard key != nil || !refs.isEmpty else { return nil }
            return TableSpec(name: name, key: key.map { [$0] } ?? [], refs: refs)
        }
    }

    /// Why a row of `entity` has no key when its key is the store's own row number: the entity
    /// has no single-attribute uniqueness constraint to take as its key; nil for other columns.
    package func missingKeyHint(entity: String, column: String) -> String? {
        Self.missingKeyHint(entity: entity, column: column)
    }

    /// ``missingKeyHint(entity:column:)``, for callers without a store open.
    package static func missingKeyHint(entity: String, column: String) -> String? {
        guard column.uppercased() == "Z_PK" else { return nil }
        return
            "\(entity) has no single-attribute uniqueness constraint (@Attribute(.unique), a unique index Z_\(entity)_UNIQUE_<attribute>) that seedkit could take as its key, and Z_PK is a number seedkit assigns; give \(entity) a key in a manifest (tables: { \(entity): { key: ATTRIBUTE } }) and pass it with --manifest"
    }

    /// Why a migration's update or delete of `entity` found by key column `column` is refused:
    /// the column is `Z_PK`, which each store numbers on its own (the same number is another
    /// object in every user's store); nil for other columns.
    package func keylessChangeRefusal(entity: String, column: String) -> String? {
        Self.keylessChangeRefusal(entity: entity, column: column)
    }

    /// ``keylessChangeRefusal(entity:column:)``, for the release-time check (`build`, `check-upgrade`).
    package static func keylessChangeRefusal(entity: String, column: String) -> String? {
        guard let hint = missingKeyHint(entity: entity, column: column) else { return nil }
        return
            "\(entity) cannot be updated or deleted by its Z_PK, a number each user's store assigns on its own (the same number is a different object in every store): \(hint); nothing was written"
    }
}
