import Foundation
import SeedRuntime

extension CoreDataModel {
    /// `entity`'s properties as the persistent-history changed-properties mask counts them
    /// (``CoreDataHistory/columnsMask(entity:properties:changed:inherits:)``), and whether the
    /// entity takes part in inheritance (refused there). Nil for an entity the model lacks.
    package func historyProperties(_ entity: String) -> (properties: [CoreDataHistory.Property], inherits: Bool)? {
        guard let found = self.entity(entity) else { return nil }
        let inherits = found.parent != nil || entities.contains { $0.parent == entity }
        let attributes = found.attributes.map { CoreDataHistory.Property(name: $0.name, kind: .attribute, unvouched: $0.transient || $0.derived) }
        let relationships = found.relationships.map { relationship in
            let destination = self.entity(relationship.destination)
            let destinationInherits = destination.map { target in target.parent != nil || entities.contains { $0.parent == target.name } } ?? true
            return CoreDataHistory.Property(name: relationship.name, kind: relationship.toMany ? .toMany : .toOne, destinationInherits: destinationInherits)
        }
        return (attributes + relationships, inherits)
    }
}
