import Foundation
import SeedRuntime

// The keys and refs a model gives by itself, when no manifest names them: what `init --coredata`
// writes into the manifest, and what `inspect` and `diff` use for a store with no manifest
// (docs/core-data.md, "Keys and UUIDs").
extension CoreDataModel {
    /// The key of entity `name`: its first uniqueness constraint (`@Attribute(.unique)`) made of
    /// attributes seedkit reads and to-one relationships only; nil when it has none.
    package func defaultKey(_ name: String) -> [String]? {
        guard let flat = flattened(name) else { return nil }
        let columns = Set(
            flat.attributes.filter { CoreDataModel.supportedTypes.contains($0.type) }.map(\.name)
                + flat.relationships.filter { !$0.toMany }.map(\.name))
        return flat.uniquenessConstraints.first { !$0.isEmpty && $0.allSatisfy(columns.contains) }
    }

    /// Each entity with a key, its to-one relationships as refs to their targets' one-attribute keys.
    package var defaultSpecs: [TableSpec] {
        entities.compactMap { entity in
            guard let key = defaultKey(entity.name) else { return nil }
            return TableSpec(name: entity.name, key: key, refs: defaultRefs(entity.name))
        }
    }

    /// Entity `name`'s to-one relationships whose targets have a one-attribute key, as refs to it.
    package func defaultRefs(_ name: String) -> [String: TableSpec.Reference] {
        var refs: [String: TableSpec.Reference] = [:]
        for relationship in flattened(name)?.relationships ?? [] where !relationship.toMany {
            guard let key = defaultKey(relationship.destination), key.count == 1 else { continue }
            refs[relationship.name] = TableSpec.Reference(table: relationship.destination, column: key[0])
        }
        return refs
    }
}
