import Foundation
import SeedRuntime

/// Composite attributes: a SwiftData property whose type is a `Codable` enum or struct, archived
/// as an `NSCompositeAttributeDescription` and stored as plain columns (docs/swiftdata.md,
/// "Composite attributes"). seedkit reads each stored element as an attribute of its own, named
/// as its Swift path, so that fixtures, migrations, `diff` and `inspect` give and show what each
/// column holds:
///
/// - an enum with raw values (`enum Glassware: String`): the attribute itself, of the raw
///   value's type, in column `Z<PROPERTY>`;
/// - an enum without (`enum FolderType { case systemAll, user }`): `folderType.systemAll`,
///   `folderType.user`, …, each a String column holding its case's name when that case is the
///   value (and NULL otherwise);
/// - a struct (`struct Author { var person: String? }`): `author.person`, …, one per member.
///
/// A shape no real store read shows (a composite inside a composite, an enum whose elements are
/// not its cases, an element type seedkit does not write) stays one attribute of type
/// `Composite: <why>`, which seedkit refuses to write, saying why
/// (``CoreDataDialect/unwritableMessage(entity:attribute:type:)``).
extension CoreDataModel {
    /// The name of the attribute type of a composite seedkit does not write, with the reason.
    static func unsupportedComposite(_ why: String) -> String { "Composite: " + why }

    /// The attributes that stand for the composite attribute archived in `property`.
    static func compositeAttributes(
        _ property: [String: Any], name: String, optional: Bool, renaming: String?, in archive: KeyedArchive
    ) -> [Attribute] {
        func unsupported(_ why: String) -> [Attribute] {
            var attribute = Attribute(
                name: name, type: unsupportedComposite(why), optional: optional, minValue: nil, maxValue: nil,
                regularExpression: nil, defaultValue: nil, line: 0, renamingIdentifier: renaming)
            attribute.composite = true
            return [attribute]
        }
        var elements: [(name: String, type: String)] = []
        for value in archive.array(property["NSCompositeElements"]) ?? [] {
            guard let element = value as? [String: Any], let elementName = archive.string(element["NSPropertyName"])
            else {
                return unsupported("an element that is not an attribute")
            }
            if archive.classNames(element).contains("NSCompositeAttributeDescription") {
                return unsupported(
                    "holding the composite \(elementName) (a struct or enum inside a struct), which no real store read shows"
                )
            }
            let code = archive.int(element["NSAttributeType"]) ?? 0
            guard let type = attributeTypes[code], supportedTypes.contains(type) else {
                return unsupported(
                    "whose element \(elementName) is of attribute type \(attributeTypes[code] ?? String(code)), which seedkit does not write"
                )
            }
            elements.append((elementName, type))
        }
        guard !elements.isEmpty else { return unsupported("without elements (NSCompositeElements)") }
        let userInfo = Dictionary(
            archive.dictionary(property["NSUserInfo"]) ?? [], uniquingKeysWith: { first, _ in first })
        let isEnum = archive.bool(userInfo["EnumType"]) ?? false
        func attribute(_ name: String, _ type: String, optional: Bool) -> Attribute {
            var attribute = Attribute(
                name: name, type: type, optional: optional, minValue: nil, maxValue: nil, regularExpression: nil,
                defaultValue: nil, line: 0, renamingIdentifier: nil)
            attribute.composite = true
            return attribute
        }
        if isEnum, let cases = archive.array(userInfo["enum"]) {
            // An enum without raw values: a String column per case, holding the case's name.
            let names = cases.compactMap { archive.string($0) }
            guard names == elements.map(\.name), elements.allSatisfy({ $0.type == "String" }) else {
                return unsupported(
                    "an enum whose elements are not a String per case (\(names.joined(separator: ", ")))")
            }
            return elements.map { element in
                var column = attribute(name + "." + element.name, "String", optional: true)
                column.caseName = element.name
                column.caseRequired = !optional
                return column
            }
        }
        if isEnum {
            // An enum with raw values: one element, named as the property, holding the raw value.
            guard elements.count == 1, let element = elements.first, element.name == name else {
                return unsupported(
                    "an enum stored in \(elements.count) elements (\(elements.map(\.name).joined(separator: ", "))), which no real store read shows"
                )
            }
            var raw = attribute(name, element.type, optional: optional)
            raw.renamingIdentifier = renaming
            raw.composite = true
            return [raw]
        }
        return elements.map { attribute(name + "." + $0.name, $0.type, optional: true) }
    }

    /// The property an attribute name belongs to: `size` for a composite's element `size.width`, else the name.
    static func compositeOwner(_ name: String) -> String {
        name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
    }

    /// `entity` with the attributes whose column the rule does not place (``CoreDataDialect/columnLayout(_:)``:
    /// a clash no real store shows) made unsupported: the composite they belong to, or the attribute itself.
    ///
    /// The clashes the stores show (an attribute and a composite's element: `ZID`, `ZID1`) are
    /// kept.
    static func refusingClashes(_ entity: Entity) -> Entity {
        let unplaced = CoreDataDialect.columnLayout(
            entity.attributes.map { ($0.name, false) }
                + entity.relationships.filter { !$0.toMany && !$0.ownersToMany }.map { ($0.name, true) }
        ).unplaced
        guard !unplaced.isEmpty else { return entity }
        var entity = entity
        for (name, why) in unplaced.sorted(by: { $0.key < $1.key }) {
            let owner = compositeOwner(name)
            let members = entity.attributes.filter { $0.name == owner || $0.name.hasPrefix(owner + ".") }
            guard let first = members.first, let at = entity.attributes.firstIndex(where: { $0.name == first.name })
            else { continue }
            entity.attributes.removeAll { $0.name == owner || $0.name.hasPrefix(owner + ".") }
            let optional = members.allSatisfy(\.optional)
            // The attribute's own type for a plain attribute; Composite for a composite's elements.
            let type = members.count == 1 && first.name == owner ? first.type + ": " + why : unsupportedComposite(why)
            var refused = Attribute(
                name: owner, type: type, optional: optional, minValue: nil, maxValue: nil, regularExpression: nil,
                defaultValue: nil, line: 0)
            refused.composite = first.composite
            entity.attributes.insert(refused, at: at)
        }
        return entity
    }
}
