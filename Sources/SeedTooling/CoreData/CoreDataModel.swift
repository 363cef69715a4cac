import Foundation
public import SeedRuntime

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A Core Data model read from its XML: an `.xcdatamodel` folder (its `contents` file) or an
/// `.xcdatamodeld` bundle (the version `.xccurrentversion` names).
public struct CoreDataModel: Sendable {
    /// An entity's attribute, as the model declares it: a column of the entity's table.
    public struct Attribute: Sendable {
        /// The attribute's name (the table's column is `Z` plus its name, upper-cased).
        public var name: String
        /// `Integer 16`, `String`, `Date`, … as the model writes it.
        public var type: String
        /// Whether the attribute may be nil (`optional="YES"`).
        public var optional: Bool
        /// The model's minimum value or length (`minValueString`), as written.
        public var minValue: String?
        /// The model's maximum value or length (`maxValueString`), as written.
        public var maxValue: String?
        /// The pattern a String must match (`regularExpressionString`), as written.
        public var regularExpression: String?
        /// The value a new row gets (`defaultValueString`), as written.
        public var defaultValue: String?
        /// The attribute's line in the model's XML, for messages.
        public var line: Int
        /// The name an earlier model version gave the attribute (`renamingIdentifier`, `elementID`).
        public var renamingIdentifier: String? = nil
        /// Computed by Core Data from `derivationExpression` (`derived="YES"`).
        public var derived: Bool = false
        /// Kept in memory only, never stored (`transient="YES"`).
        public var transient: Bool = false
        /// A Transformable's value transformer (`valueTransformerName`); nil for the default.
        public var valueTransformer: String? = nil
        /// Stored for a composite attribute (a SwiftData `Codable` enum or struct): one of its
        /// elements, or an enum with raw values stored as one (CompositeAttributes.swift).
        public var composite: Bool = false
        /// For an enum case's column (`folderType.user`): the one value it holds, the case's name.
        public var caseName: String? = nil
        /// An enum case's column of a non-optional enum: one of the enum's case columns must hold its case.
        public var caseRequired: Bool = false

        /// A Transformable whose bytes are a keyed archive: the default transformer and the
        /// unarchiving ones archive; an app's own transformer (objc.io Moody's `ColorsTransformer`)
        /// writes bytes of its own making, which only the app can read.
        public var storesKeyedArchive: Bool {
            type == "Transformable"
                && (valueTransformer.map { CoreDataModel.archivingTransformers.contains($0) } ?? true)
        }

        /// A composite's Binary element: a `Codable` collection, which SwiftData stores as its
        /// JSON (every such value in the real stores is), read and written as JSON text.
        public var storesJSON: Bool { composite && type == "Binary" }
    }

    /// A relationship of an entity to another, as the model declares it.
    public struct Relationship: Sendable {
        /// The relationship's name (a to-one's column is `Z` plus its name, upper-cased).
        public var name: String
        /// The entity the relationship points to.
        public var destination: String
        /// Whether it holds many rows (a to-many) rather than one.
        public var toMany: Bool
        /// Whether a to-many keeps its rows in order (an ordered relationship: an order column).
        public var ordered: Bool
        /// Whether it may be empty or nil.
        public var optional: Bool
        /// The fewest related rows a to-many must have, when the model says.
        public var minCount: Int?
        /// The most related rows a to-many may have, when the model says.
        public var maxCount: Int?
        /// What deleting the row does to the related rows (`Nullify`, `Cascade`, `Deny`,
        /// `No Action`).
        public var deletionRule: String?
        /// The relationship on the destination that points back, when the model names one.
        public var inverseName: String?
        /// The relationship's line in the model's XML, for messages.
        public var line: Int
        /// The name an earlier model version gave the relationship (`renamingIdentifier`, `elementID`).
        public var renamingIdentifier: String? = nil
        /// Not the entity's own: another entity's to-many without an inverse, which Core Data keeps
        /// in this entity's table as a column holding the owner's `Z_PK`.
        ///
        /// Named `Owner.relationship` (`Shelf.books` on `Book`), it is written as a to-one to the
        /// owner (``heldToManys(_:)``).
        public var ownersToMany = false
    }

    /// An entity: a table of the store (or rows of its parent's table, for a sub-entity).
    public struct Entity: Sendable {
        /// The entity's name (`Z_PRIMARYKEY`'s `Z_NAME`; its table is `Z` plus its name,
        /// upper-cased).
        public var name: String
        /// The entity it inherits from, whose table it shares.
        public var parent: String?
        /// Whether the entity has no rows of its own (only its sub-entities do).
        public var isAbstract: Bool
        /// The name an earlier model version gave the entity (`elementID`, `renamingIdentifier`):
        /// the name `Z_PRIMARYKEY` keeps in stores created before the rename.
        public var renamingIdentifier: String?
        /// The entity's own attributes (not its parent's).
        public var attributes: [Attribute]
        /// The entity's own relationships (not its parent's).
        public var relationships: [Relationship]
        /// The model's uniqueness constraints (`<uniquenessConstraint>`), each a list of
        /// attribute or relationship names, in the model's order.
        public var uniquenessConstraints: [[String]] = []
        /// The entity's line in the model's XML, for messages.
        public var line: Int

        /// An attribute or to-one relationship: what a fixture or migration column may name.
        public func hasColumn(_ name: String) -> Bool {
            attributes.contains { $0.name == name } || relationships.contains { $0.name == name && !$0.toMany }
        }
    }

    /// Every entity of the model, in the model's order.
    public var entities: [Entity]
    /// The file the model was read from, for messages.
    public var file: String

    /// The attribute types seedkit converts; others (Transformable, Object ID, composite) are reported when used.
    public static let supportedTypes: Set<String> = [
        "Integer 16", "Integer 32", "Integer 64", "Double", "Float", "Decimal", "String", "Boolean", "Date", "Binary",
        "UUID", "URI", "Transformable",
    ]

    /// The value transformers whose bytes are an `NSKeyedArchiver` archive (Foundation's own).
    public static let archivingTransformers: Set<String> = [
        "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
        "NSSecureUnarchiveFromDataTransformerName",
    ]

    /// The entity named `name`, or nil when the model has none.
    public func entity(_ name: String) -> Entity? { entities.first { $0.name == name } }

    /// `entity`'s to-many relationship `name` when its inverse is to-many too: stored in a join
    /// table, and written by listing the related rows' keys.
    ///
    /// Nil for anything else.
    public func manyToMany(_ entity: String, _ name: String) -> Relationship? {
        guard let relationship = flattened(entity)?.relationships.first(where: { $0.name == name && $0.toMany }),
            let inverse = relationship.inverseName,
            flattened(relationship.destination)?.relationships.first(where: { $0.name == inverse })?.toMany == true
        else { return nil }
        return relationship
    }

    /// The name the app uses for column `column` of `entity`'s table: the attribute or to-one
    /// relationship stored there, or without a model the column's name without `Z`, lower-cased.
    package static func attributeName(_ column: String, entity: String, model: CoreDataModel?, dialect: CoreDataDialect)
        -> String
    {
        // The entity's own names first, then its sub-entities' (their columns share the root's table).
        let family: [String] = model?.family(of: entity) ?? []
        // Each entity's columns by the model's rule (a composite's element `compiledTags.flavors`, a
        // numbered `ZID1`), whatever facts the dialect was read with.
        for name in family {
            if let found = model?.storeColumns(name).first(where: { $0.value.isSameName(as: column) }) {
                return found.key
            }
        }
        // Another entity's inverse-less to-many kept in this table (`Shelf.books`) by the dialect's rule.
        for name in family {
            for relationship in model?.flattened(name)?.relationships ?? [] where relationship.ownersToMany {
                if dialect.columnName(relationship.name, in: name).isSameName(as: column) { return relationship.name }
            }
        }
        return CoreDataDialect.attributeName(ofColumn: column)
    }

    /// Each attribute (a composite's element by its Swift path) and to-one relationship of `entity`,
    /// inherited ones too, → its column, by the rule the real stores show (``CoreDataDialect/columnLayout(_:)``:
    /// `author.id` in `ZID`, `id` in `ZID1`).
    package func storeColumns(_ entity: String) -> [String: String] {
        guard let flat = flattened(entity) else { return [:] }
        return CoreDataDialect.columnLayout(
            flat.attributes.map { ($0.name, false) }
                + flat.relationships.filter { !$0.toMany && !$0.ownersToMany }.map { ($0.name, true) }
        ).columns
    }

    /// The names a fixture of `entity` may use: stored supported attributes (a transient one is
    /// never in the store), to-one and many-to-many relationships.
    public func fixtureColumns(_ entity: String) -> [String] {
        guard let flat = flattened(entity) else { return [] }
        return flat.attributes.filter { !$0.transient && Self.supportedTypes.contains($0.type) }.map(\.name)
            + flat.relationships.filter { !$0.toMany || manyToMany(entity, $0.name) != nil }.map(\.name)
    }

    /// How fixture values convert for an entity's attribute; nil for relationships and unsupported types.
    package func columnType(entity name: String, attribute: String) -> ColumnType? {
        guard let found = flattened(name)?.attributes.first(where: { $0.name == attribute }) else { return nil }
        // A composite's Binary element holds a Codable collection's JSON (docs/swiftdata.md).
        if found.storesJSON { return .json }
        let type = found.type
        switch type {
        case "Integer 16", "Integer 32", "Integer 64": return .integer
        case "Double", "Float": return .real
        case "Decimal": return .numeric
        case "String", "URI": return .text
        case "Boolean": return .boolean
        case "Date": return .referenceDate
        // A Transformable's bytes are carried as the store holds them (docs/core-data.md, "Transformable attributes").
        case "Binary", "Transformable": return .blob
        case "UUID": return .uuid
        default: return nil
        }
    }

    /// What `name` stores in columns: its attributes and to-one relationships, inherited ones included.
    public func storedNames(_ name: String) -> [String] {
        guard let entity = flattened(name) else { return [] }
        return entity.attributes.map(\.name) + entity.relationships.filter { !$0.toMany }.map(\.name)
    }

    /// `name` and every entity that inherits from it, `name` first.
    public func family(of name: String) -> [String] {
        [name]
            + entities.filter { entity in
                var parent = entity.parent
                var seen = Set([entity.name])
                while let current = parent, seen.insert(current).inserted {
                    if current == name { return true }
                    parent = self.entity(current)?.parent
                }
                return false
            }.map(\.name)
    }

    /// An entity with the attributes and relationships it inherits, and the inverse-less to-manys
    /// of other entities its table keeps (``heldToManys(_:)``), last.
    public func flattened(_ name: String) -> Entity? {
        guard var entity = entity(name) else { return nil }
        var parent = entity.parent
        var seen = Set([name])
        while let parentName = parent, seen.insert(parentName).inserted, let ancestor = self.entity(parentName) {
            entity.attributes = ancestor.attributes + entity.attributes
            entity.relationships = ancestor.relationships + entity.relationships
            entity.uniquenessConstraints = ancestor.uniquenessConstraints + entity.uniquenessConstraints
            parent = ancestor.parent
        }
        entity.relationships += heldToManys(seen)
        return entity
    }

    /// The to-many relationships without an inverse whose destination is one of `lineage` (an
    /// entity and its ancestors): Core Data keeps each in the destination's table, a column
    /// `Z<owner's Z_ENT><NAME>` holding the owner's `Z_PK` (`ZBOOK.Z3BOOKS` for `Shelf.books`,
    /// MetaCocktails' `ZINGREDIENT.Z1SPEC` for `Cocktail.spec`).
    ///
    /// Each as an optional to-one to the owner named `Owner.relationship`, as `inspect` shows it
    /// and fixtures and migrations write it (docs/core-data.md, "Deletes and pointers to a row").
    func heldToManys(_ lineage: Set<String>) -> [Relationship] {
        entities.flatMap { owner in
            owner.relationships.filter { $0.toMany && $0.inverseName == nil && lineage.contains($0.destination) }.map {
                Relationship(
                    name: "\(owner.name).\($0.name)", destination: owner.name, toMany: false, ordered: false,
                    optional: true, deletionRule: nil, inverseName: nil, line: $0.line, ownersToMany: true)
            }
        }
    }

    /// The values Core Data gives a new object of `name` for attributes it is not given
    /// (`defaultValueString`), converted as the attribute's type stores them.
    ///
    /// A UUID's default is not one: an XML model cannot give one, and the one a SwiftData
    /// store's cache holds for `let id = UUID()` is the value of the single instance SwiftData
    /// built the schema from (each new object gets its own), so every seeded row would share it.
    public func defaults(for name: String) -> [String: SQLValue] {
        var result: [String: SQLValue] = [:]
        for attribute in flattened(name)?.attributes ?? [] where attribute.type != "UUID" {
            guard let text = attribute.defaultValue, let type = columnType(entity: name, attribute: attribute.name)
            else { continue }
            if type == .referenceDate, let seconds = Double(text) {
                result[attribute.name] = .real(seconds)
                continue
            }
            if case .success(let value) = type.convert(.string(text)) { result[attribute.name] = value }
        }
        return result
    }

    /// What the Core Data dialect needs from this model to write as Core Data does.
    package var facts: CoreDataModelFacts {
        var facts = CoreDataModelFacts()
        for entity in entities {
            if let identifier = entity.renamingIdentifier, identifier != entity.name {
                facts.renamings[entity.name] = identifier
            }
            guard let flat = flattened(entity.name) else { continue }
            for relationship in entity.relationships {
                if relationship.toMany, let rule = relationship.deletionRule {
                    facts.deletionRules[entity.name, default: [:]][relationship.name] = rule
                } else if !relationship.toMany, let inverse = relationship.inverseName,
                    flattened(relationship.destination)?.relationships.first(where: { $0.name == inverse })?.toMany
                        == false
                {
                    facts.oneToOne[entity.name, default: [:]][relationship.name] = .init(
                        destination: relationship.destination, inverse: inverse)
                }
            }
            let defaults = defaults(for: entity.name).mapValues(\.sqlLiteral)
            if !defaults.isEmpty { facts.defaults[entity.name] = defaults }
            for attribute in flat.attributes
            where attribute.type == "UUID" || attribute.storesJSON || attribute.storesKeyedArchive {
                facts.attributeTypes[entity.name, default: [:]][attribute.name] =
                    attribute.storesJSON ? "JSON" : attribute.type
            }
            // What a new object must have: every non-optional stored attribute; a UUID with a UUID
            // instance as its default (SwiftData's `let id = UUID()`) gets a generated one instead.
            let stored = flat.attributes.filter { !$0.optional && !$0.transient && !$0.derived }
            // A non-optional to-one too (SwiftData's `var author: Author`): its column must hold a key.
            let toOnes = flat.relationships.filter { !$0.optional && !$0.toMany }.map(\.name)
            // A non-optional enum without raw values: one of its case columns (`folderType` for `folderType.user`, …).
            var enums: [String] = []
            for attribute in flat.attributes where attribute.caseRequired {
                let owner = Self.compositeOwner(attribute.name)
                if !enums.contains(owner) { enums.append(owner) }
            }
            if !stored.isEmpty || !toOnes.isEmpty || !enums.isEmpty {
                facts.required[entity.name] = stored.map(\.name) + enums + toOnes
            }
            let generated = stored.filter {
                $0.type == "UUID" && $0.defaultValue.flatMap(UUID.init(uuidString:)) != nil
            }
            if !generated.isEmpty { facts.generated[entity.name] = generated.map(\.name) }
            for attribute in flat.attributes {
                if let name = attribute.caseName { facts.enumCases[entity.name, default: [:]][attribute.name] = name }
            }
            for attribute in flat.attributes where !Self.supportedTypes.contains(attribute.type) {
                facts.unwritable[entity.name, default: [:]][attribute.name] = attribute.type
            }
            if !flat.uniquenessConstraints.isEmpty { facts.uniqueness[entity.name] = flat.uniquenessConstraints }
            let inherits = entity.parent != nil || entities.contains { $0.parent == entity.name }
            facts.history[entity.name] = .init(
                // A transient attribute takes no bit in the mask: pegase's own history (framework
                // 1522) records Transaction's `sousOperations` at bit 11 only with `solde` left out.
                properties: flat.attributes.filter { !$0.transient }.map { attribute in
                    .init(
                        name: attribute.name, kind: .attribute, unvouched: attribute.derived,
                        composite: attribute.composite)
                }
                    + flat.relationships.filter { !$0.ownersToMany }.map { relationship in
                        .init(
                            name: relationship.name, kind: relationship.toMany ? .toMany : .toOne,
                            destination: relationship.destination, inverse: relationship.inverseName)
                    }, inherits: inherits)
        }
        return facts
    }

    /// The rules the model declares for an entity's attributes, in the manifest's terms
    /// (`optional="NO"` is `required`; min/max are numbers, or lengths for strings).
    public func rules(for name: String) -> [ColumnRules] {
        guard let entity = flattened(name) else { return [] }
        return entity.attributes.compactMap { attribute in
            var rules = ColumnRules(column: attribute.name)
            // A default fills a value left out, but a value given as null is still missing.
            rules.required = !attribute.optional
            if attribute.type == "String" {
                rules.minLength = attribute.minValue.flatMap { Int($0) }
                rules.maxLength = attribute.maxValue.flatMap { Int($0) }
                rules.pattern = attribute.regularExpression.flatMap { try? ColumnRules.Pattern($0) }
            } else if attribute.type == "Date" {
                rules.earliest = attribute.minValue.flatMap { Double($0) }
                rules.latest = attribute.maxValue.flatMap { Double($0) }
            } else if attribute.type != "Boolean" {
                // Numbers, and dates as Core Data stores them: seconds since 2001-01-01.
                rules.min = attribute.minValue.flatMap { Double($0) }
                rules.max = attribute.maxValue.flatMap { Double($0) }
            }
            // An enum case's column holds its case's name or nothing.
            if let name = attribute.caseName { rules.oneOf = [name] }
            rules.keyedArchive = attribute.storesKeyedArchive
            let any =
                rules.keyedArchive || rules.oneOf != nil || rules.required || rules.min != nil || rules.max != nil
                || rules.minLength != nil
                || rules.maxLength != nil || rules.pattern != nil
                || rules.earliest != nil || rules.latest != nil
            return any ? rules : nil
        }
    }

    /// Reads a model: XML (`.xcdatamodel`, `.xcdatamodeld`) or compiled (`.mom`, `.momd`).
    ///
    /// - throws: ``SeedError`` (configuration) naming the file and line of what can't be read.
    public static func load(_ url: URL, shown: String) throws(SeedError) -> CoreDataModel {
        var contents = url
        switch url.pathExtension {
        case "xcdatamodeld":
            let versionFile = url.appendingPathComponent(".xccurrentversion")
            guard let data = FileManager.default.contents(atPath: versionFile.path),
                let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
                let current = plist["_XCCurrentVersionName"] as? String
            else {
                throw SeedError(
                    .configuration, file: shown, "an .xcdatamodeld needs a .xccurrentversion naming its current version"
                )
            }
            contents = url.appendingPathComponent(current).appendingPathComponent("contents")
        case "xcdatamodel":
            contents = url.appendingPathComponent("contents")
        case "mom", "momd":
            return try loadCompiled(url, shown: shown)
        default:
            throw SeedError(
                .configuration, file: shown,
                "model: must name an .xcdatamodel, .xcdatamodeld, or a compiled .mom or .momd")
        }
        let file = displayPath(contents)
        guard let data = FileManager.default.contents(atPath: contents.path) else {
            throw SeedError(.configuration, file: file, "cannot read the model")
        }
        let reader = ModelXMLReader(file: file)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        if !parser.parse() {
            throw SeedError(
                .configuration, file: file, line: parser.lineNumber, column: parser.columnNumber,
                "not a Core Data model: \(ModelXMLReader.describe(parser.parserError))")
        }
        // Foundation's parser on Linux reports success for some documents with elements left
        // open (a truncated file): every element must be closed.
        if let open = reader.openElements.last {
            throw SeedError(
                .configuration, file: file, line: open.line,
                "not a Core Data model: the <\(open.name)> opened here is never closed (is the file truncated?)")
        }
        if let problem = reader.problems.first {
            throw SeedError(.configuration, reader.problems.isEmpty ? [problem] : reader.problems)
        }
        return CoreDataModel(entities: reader.entities, file: file)
    }
}

/// Reads `<entity>`, `<attribute>` and `<relationship>` elements, remembering their lines.
private final class ModelXMLReader: NSObject, XMLParserDelegate {
    let file: String
    var entities: [CoreDataModel.Entity] = []
    var problems: [Diagnostic] = []

    /// Elements started and not yet ended, with the line each started on.
    var openElements: [(name: String, line: Int)] = []

    init(file: String) { self.file = file }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if openElements.last?.name == element { openElements.removeLast() }
    }

    /// The parser's error in words (Foundation's own text is only "error 76").
    ///
    /// The codes are libxml2's, which Foundation reports on Apple platforms and Linux alike.
    static func describe(_ error: (any Error)?) -> String {
        guard let error = error as NSError? else { return "XML error" }
        switch error.code {
        case 4: return "no XML element where the model should start"
        case 5: return "the document ends before its elements are closed"
        case 9: return "a character XML does not allow here"
        case 38, 40, 41: return "an attribute without a properly quoted value"
        case 73: return "a tag without its closing '>'"
        case 76: return "a closing tag that does not match the element it closes"
        case 77: return "an element that is never closed"
        case 86: return "more content after the model's closing tag"
        default: return "XML error \(error.code)"
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let line = parser.lineNumber
        openElements.append((element, line))
        func flag(_ key: String, default value: Bool) -> Bool { attributes[key].map { $0 == "YES" } ?? value }
        switch element {
        case "entity":
            guard let name = attributes["name"] else { return problem(line, "an entity without a name") }
            entities.append(
                .init(
                    name: name, parent: attributes["parentEntity"], isAbstract: flag("isAbstract", default: false),
                    renamingIdentifier: attributes["renamingIdentifier"] ?? attributes["elementID"], attributes: [],
                    relationships: [], line: line))
        case "uniquenessConstraint":
            if !entities.isEmpty { entities[entities.count - 1].uniquenessConstraints.append([]) }
        case "constraint":
            // <uniquenessConstraint><constraint value="title"/>…</uniquenessConstraint>
            guard let value = attributes["value"], let last = entities.indices.last,
                !entities[last].uniquenessConstraints.isEmpty
            else { return }
            entities[last].uniquenessConstraints[entities[last].uniquenessConstraints.count - 1].append(value)
        case "attribute":
            guard let name = attributes["name"], let type = attributes["attributeType"] else {
                return problem(line, "an attribute without a name or attributeType")
            }
            guard !entities.isEmpty else { return problem(line, "an attribute outside an entity") }
            entities[entities.count - 1].attributes.append(
                .init(
                    name: name, type: type, optional: flag("optional", default: false),
                    minValue: attributes["minValueString"], maxValue: attributes["maxValueString"],
                    regularExpression: attributes["regularExpressionString"],
                    // Xcode writes a Date's default as seconds since 2001 in defaultDateTimeInterval.
                    defaultValue: attributes["defaultValueString"] ?? attributes["defaultDateTimeInterval"], line: line,
                    renamingIdentifier: attributes["renamingIdentifier"] ?? attributes["elementID"],
                    derived: flag("derived", default: false),
                    transient: flag("transient", default: false),
                    valueTransformer: attributes["valueTransformerName"]))
        case "relationship":
            guard let name = attributes["name"], let destination = attributes["destinationEntity"] else {
                return problem(line, "a relationship without a name or destinationEntity")
            }
            guard !entities.isEmpty else { return problem(line, "a relationship outside an entity") }
            entities[entities.count - 1].relationships.append(
                .init(
                    name: name, destination: destination, toMany: flag("toMany", default: false),
                    ordered: flag("ordered", default: false),
                    optional: flag("optional", default: false), minCount: attributes["minCount"].flatMap { Int($0) },
                    maxCount: attributes["maxCount"].flatMap { Int($0) },
                    deletionRule: attributes["deletionRule"], inverseName: attributes["inverseName"], line: line,
                    renamingIdentifier: attributes["renamingIdentifier"] ?? attributes["elementID"]))
        default:
            break
        }
    }

    private func problem(_ line: Int, _ message: String) {
        problems.append(Diagnostic(file: file, line: line, code: .configuration, message: message))
    }
}
