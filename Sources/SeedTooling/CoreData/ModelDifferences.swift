import Foundation
import SeedRuntime

extension CoreDataModel {
    /// What a model file (`self`) and a store's cached model (`cache`) say differently, fact by
    /// fact, one readable line each (`entity Book: attribute price: type Double in the model
    /// file, Float in the store's cache`).
    ///
    /// Empty when they agree. Entities and properties are matched by name; a renaming identifier
    /// equal to the name counts as none; a to-many's maxCount 0 and a minCount 0 count as none;
    /// numbers compare as numbers.
    public func differences(
        fromCache cache: CoreDataModel, model modelName: String = "the model file",
        cacheName: String = "the store's cache"
    ) -> [String] {
        var lines: [String] = []
        func show(_ value: String?) -> String { value.map { "'\($0)'" } ?? "none" }
        func fact(_ prefix: String, _ what: String, _ mine: String, _ theirs: String) {
            if mine != theirs { lines.append("\(prefix): \(what) \(mine) in \(modelName), \(theirs) in \(cacheName)") }
        }
        func renaming(_ value: String?, _ name: String) -> String? { value == name ? nil : value }
        let cached = Dictionary(cache.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let mine = Set(entities.map(\.name))
        for entity in entities {
            guard let other = cached[entity.name] else {
                lines.append("entity \(entity.name): in \(modelName), not in \(cacheName)")
                continue
            }
            let prefix = "entity \(entity.name)"
            fact(prefix, "parent entity", show(entity.parent), show(other.parent))
            fact(prefix, "abstract", entity.isAbstract ? "yes" : "no", other.isAbstract ? "yes" : "no")
            fact(
                prefix, "renaming identifier", show(renaming(entity.renamingIdentifier, entity.name)),
                show(renaming(other.renamingIdentifier, other.name)))
            let constraints = { (list: [[String]]) in
                list.map { $0.joined(separator: "+") }.sorted().joined(separator: ", ")
            }
            fact(
                prefix, "uniqueness constraints", "[\(constraints(entity.uniquenessConstraints))]",
                "[\(constraints(other.uniquenessConstraints))]")
            let otherAttributes = Dictionary(
                other.attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for attribute in entity.attributes {
                let at = "\(prefix): attribute \(attribute.name)"
                guard let theirs = otherAttributes[attribute.name] else {
                    lines.append("\(at): in \(modelName), not in \(cacheName)")
                    continue
                }
                fact(at, "type", attribute.type, theirs.type)
                fact(at, "optional", attribute.optional ? "yes" : "no", theirs.optional ? "yes" : "no")
                fact(at, "transient", attribute.transient ? "yes" : "no", theirs.transient ? "yes" : "no")
                fact(at, "derived", attribute.derived ? "yes" : "no", theirs.derived ? "yes" : "no")
                fact(
                    at, "default", show(Self.normalized(attribute.defaultValue, attribute.type)),
                    show(Self.normalized(theirs.defaultValue, theirs.type)))
                fact(
                    at, "minimum", show(Self.normalized(attribute.minValue, "")),
                    show(Self.normalized(theirs.minValue, "")))
                fact(
                    at, "maximum", show(Self.normalized(attribute.maxValue, "")),
                    show(Self.normalized(theirs.maxValue, "")))
                fact(at, "regular expression", show(attribute.regularExpression), show(theirs.regularExpression))
                fact(
                    at, "renaming identifier", show(renaming(attribute.renamingIdentifier, attribute.name)),
                    show(renaming(theirs.renamingIdentifier, theirs.name)))
            }
            for attribute in other.attributes where !entity.attributes.contains(where: { $0.name == attribute.name }) {
                lines.append("\(prefix): attribute \(attribute.name): in \(cacheName), not in \(modelName)")
            }
            let otherRelationships = Dictionary(
                other.relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for relationship in entity.relationships {
                let at = "\(prefix): relationship \(relationship.name)"
                guard let theirs = otherRelationships[relationship.name] else {
                    lines.append("\(at): in \(modelName), not in \(cacheName)")
                    continue
                }
                fact(at, "destination", relationship.destination, theirs.destination)
                fact(at, "inverse", show(relationship.inverseName), show(theirs.inverseName))
                fact(at, "to-many", relationship.toMany ? "yes" : "no", theirs.toMany ? "yes" : "no")
                fact(at, "ordered", relationship.ordered ? "yes" : "no", theirs.ordered ? "yes" : "no")
                fact(at, "optional", relationship.optional ? "yes" : "no", theirs.optional ? "yes" : "no")
                let count = { (value: Int?) in value.map(String.init) ?? "none" }
                fact(
                    at, "minimum count", count(relationship.minCount == 0 ? nil : relationship.minCount),
                    count(theirs.minCount == 0 ? nil : theirs.minCount))
                fact(
                    at, "maximum count", count(relationship.maxCount == 0 ? nil : relationship.maxCount),
                    count(theirs.maxCount == 0 ? nil : theirs.maxCount))
                fact(
                    at, "deletion rule", show(relationship.deletionRule ?? "Nullify"),
                    show(theirs.deletionRule ?? "Nullify"))
                fact(
                    at, "renaming identifier", show(renaming(relationship.renamingIdentifier, relationship.name)),
                    show(renaming(theirs.renamingIdentifier, theirs.name)))
            }
            for relationship in other.relationships
            where !entity.relationships.contains(where: { $0.name == relationship.name }) {
                lines.append("\(prefix): relationship \(relationship.name): in \(cacheName), not in \(modelName)")
            }
        }
        for entity in cache.entities where !mine.contains(entity.name) {
            lines.append("entity \(entity.name): in \(cacheName), not in \(modelName)")
        }
        return lines
    }

    /// A value as the comparison sees it: numbers as numbers, booleans as YES/NO.
    private static func normalized(_ value: String?, _ type: String) -> String? {
        guard let value else { return nil }
        if type == "Boolean" {
            switch value.lowercased() {
            case "yes", "true", "1": return "YES"
            case "no", "false", "0": return "NO"
            default: return value
            }
        }
        if type != "String", let number = Double(value) { return formatNumber(number) }
        return value
    }
}
