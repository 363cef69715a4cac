import Foundation
import GRDB

/// What the Core Data dialect needs to know from the app's model to write as Core Data
/// does, beyond what the store's schema says: renamed entities, deletion rules, one-to-one
/// pairs, defaults and attribute types, uniqueness constraints, and every
/// entity's properties (for persistent history).
///
/// `seedkit build` records these in the seed (`_seedkit_meta`, key ``metaKey``), so that an
/// app applying migrations at launch (no model, no manifest) writes the same as the CLI with
/// the model. When the CLI has the model too, the model's facts win.
package struct CoreDataModelFacts: Sendable, Equatable, Codable {
    /// The `_seedkit_meta` key the facts are recorded under.
    package static let metaKey = "coredata_model"

    /// A to-one relationship whose inverse is to-one too: Core Data stores the key on both sides.
    package struct OneToOne: Sendable, Equatable, Codable {
        /// The entity the relationship points at.
        package var destination: String
        /// The inverse relationship's name (its column is in the destination's table).
        package var inverse: String

        package init(destination: String, inverse: String) {
            self.destination = destination
            self.inverse = inverse
        }
    }

    /// A property as persistent history counts it (``CoreDataHistory/columnsMask(entity:properties:changed:inherits:)``).
    package struct Property: Sendable, Equatable, Codable {
        package var name: String
        /// `attribute`, `toOne` or `toMany`, as the JSON a seed records spells them.
        package var kind: CoreDataHistory.Property.Kind
        /// Transient or derived: never seen in a changed-properties mask.
        package var unvouched: Bool
        /// For relationships: the destination entity and the inverse relationship's name.
        package var destination: String?
        package var inverse: String?
        /// An element of a composite attribute (a SwiftData `Codable` enum or struct): each counts as
        /// one property in the mask, the composite not; where among the attributes no store shows
        /// (docs/swiftdata.md, "Composite attributes").
        package var composite: Bool

        private enum CodingKeys: String, CodingKey { case name, kind, unvouched, destination, inverse, composite }

        package init(
            name: String, kind: CoreDataHistory.Property.Kind, unvouched: Bool = false, destination: String? = nil,
            inverse: String? = nil, composite: Bool = false
        ) {
            self.name = name
            self.kind = kind
            self.unvouched = unvouched
            self.destination = destination
            self.inverse = inverse
            self.composite = composite
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            kind = try container.decode(CoreDataHistory.Property.Kind.self, forKey: .kind)
            unvouched = try container.decodeIfPresent(Bool.self, forKey: .unvouched) ?? false
            destination = try container.decodeIfPresent(String.self, forKey: .destination)
            inverse = try container.decodeIfPresent(String.self, forKey: .inverse)
            composite = try container.decodeIfPresent(Bool.self, forKey: .composite) ?? false
        }

        package func encode(to encoder: any Encoder) throws {
            // `composite` only when set: seeds built before it was recorded stay byte-identical.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(kind, forKey: .kind)
            try container.encode(unvouched, forKey: .unvouched)
            try container.encodeIfPresent(destination, forKey: .destination)
            try container.encodeIfPresent(inverse, forKey: .inverse)
            if composite { try container.encode(composite, forKey: .composite) }
        }
    }

    /// What persistent history needs of an entity: every property it has (inherited ones
    /// included), and whether it takes part in inheritance.
    package struct HistoryEntity: Sendable, Equatable, Codable {
        package var properties: [Property]
        package var inherits: Bool

        package init(properties: [Property], inherits: Bool) {
            self.properties = properties
            self.inherits = inherits
        }
    }

    /// Model entity name → the name `Z_PRIMARYKEY` keeps for it (its `renamingIdentifier`,
    /// which Xcode writes as `elementID`), for entities a model version renamed.
    package var renamings: [String: String]
    /// Entity → to-many relationship → its deletion rule (`Nullify`, `Cascade`, `Deny`, `No Action`).
    package var deletionRules: [String: [String: String]]
    /// Entity → to-one relationship → where its one-to-one inverse is.
    package var oneToOne: [String: [String: OneToOne]]
    /// Entity → attribute → the value a new object gets (`defaultValueString`), as a SQL literal;
    /// the whole lineage's attributes are listed under each entity.
    package var defaults: [String: [String: String]]
    /// Entity → attribute → the model's type, for attributes stored in a form the column's
    /// declared type does not say (`UUID` in a `BLOB` column; `JSON` for a composite's Binary
    /// element, a `Codable` collection's JSON in a `BLOB`).
    package var attributeTypes: [String: [String: String]]
    /// Entity → its properties, for writing persistent history (empty in seeds built before
    /// seedkit wrote history: such a store's history is then refused, not guessed).
    package var history: [String: HistoryEntity]
    /// Entity → its uniqueness constraints (`@Attribute(.unique)`), each a list of property names.
    package var uniqueness: [String: [[String]]]
    /// Entity → its attributes a new object must have a value for: non-optional, stored (not
    /// transient, not derived), and its non-optional to-one relationships; the whole lineage's.
    ///
    /// A row that leaves one without a value (after defaults and generated values) is not written
    /// (``CoreDataDialect/requiredProblems(entity:table:values:)``). Empty in seeds built before
    /// seedkit recorded it: such a seed's rows are then not checked.
    package var required: [String: [String]]
    /// Entity → its non-optional `UUID` attributes whose model default is a UUID instance
    /// (SwiftData's `let id = UUID()`): a row without a value gets a name-based UUID
    /// (``CoreDataDialect/nameBasedUUID(entity:attribute:key:)``), as the app gives each new object its own.
    package var generated: [String: [String]]
    /// Entity → attribute → its type, for attributes whose values are archived objects the app's
    /// own code writes (Transformable, composite, object ID): a row giving one a value is not
    /// written (``CoreDataDialect/unwritableMessage(entity:attribute:type:)``).
    ///
    /// The whole lineage's.
    package var unwritable: [String: [String: String]]
    /// Entity → the column of an enum case (a SwiftData enum without raw values, stored as a
    /// composite attribute: `folderType.user`) → the one value it holds, the case's name
    /// (docs/core-data.md, "Composite attributes").
    ///
    /// The whole lineage's.
    package var enumCases: [String: [String: String]] = [:]

    package init(
        renamings: [String: String] = [:], deletionRules: [String: [String: String]] = [:],
        oneToOne: [String: [String: OneToOne]] = [:],
        defaults: [String: [String: String]] = [:], attributeTypes: [String: [String: String]] = [:],
        history: [String: HistoryEntity] = [:], uniqueness: [String: [[String]]] = [:],
        required: [String: [String]] = [:], generated: [String: [String]] = [:],
        unwritable: [String: [String: String]] = [:], enumCases: [String: [String: String]] = [:]
    ) {
        self.renamings = renamings
        self.deletionRules = deletionRules
        self.oneToOne = oneToOne
        self.defaults = defaults
        self.attributeTypes = attributeTypes
        self.history = history
        self.uniqueness = uniqueness
        self.required = required
        self.generated = generated
        self.unwritable = unwritable
        self.enumCases = enumCases
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        renamings = try container.decodeIfPresent([String: String].self, forKey: .renamings) ?? [:]
        deletionRules = try container.decodeIfPresent([String: [String: String]].self, forKey: .deletionRules) ?? [:]
        oneToOne = try container.decodeIfPresent([String: [String: OneToOne]].self, forKey: .oneToOne) ?? [:]
        defaults = try container.decodeIfPresent([String: [String: String]].self, forKey: .defaults) ?? [:]
        attributeTypes = try container.decodeIfPresent([String: [String: String]].self, forKey: .attributeTypes) ?? [:]
        history = try container.decodeIfPresent([String: HistoryEntity].self, forKey: .history) ?? [:]
        uniqueness = try container.decodeIfPresent([String: [[String]]].self, forKey: .uniqueness) ?? [:]
        required = try container.decodeIfPresent([String: [String]].self, forKey: .required) ?? [:]
        generated = try container.decodeIfPresent([String: [String]].self, forKey: .generated) ?? [:]
        unwritable = try container.decodeIfPresent([String: [String: String]].self, forKey: .unwritable) ?? [:]
        enumCases = try container.decodeIfPresent([String: [String: String]].self, forKey: .enumCases) ?? [:]
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(renamings, forKey: .renamings)
        try container.encode(deletionRules, forKey: .deletionRules)
        try container.encode(oneToOne, forKey: .oneToOne)
        try container.encode(defaults, forKey: .defaults)
        try container.encode(attributeTypes, forKey: .attributeTypes)
        try container.encode(history, forKey: .history)
        try container.encode(uniqueness, forKey: .uniqueness)
        try container.encode(required, forKey: .required)
        try container.encode(generated, forKey: .generated)
        try container.encode(unwritable, forKey: .unwritable)
        // Only when there are some: a seed without enum cases records what it recorded before.
        if !enumCases.isEmpty { try container.encode(enumCases, forKey: .enumCases) }
    }

    private enum CodingKeys: String, CodingKey {
        case renamings, deletionRules, oneToOne, defaults, attributeTypes, history, uniqueness, required, generated,
            unwritable, enumCases
    }

    /// `self` with `other`'s facts on top (the model the CLI was given wins over what a seed recorded).
    package func merged(with other: CoreDataModelFacts?) -> CoreDataModelFacts {
        guard let other else { return self }
        return CoreDataModelFacts(
            renamings: renamings.merging(other.renamings) { $1 },
            deletionRules: deletionRules.merging(other.deletionRules) { $1 },
            oneToOne: oneToOne.merging(other.oneToOne) { $1 },
            defaults: defaults.merging(other.defaults) { $1 },
            attributeTypes: attributeTypes.merging(other.attributeTypes) { $1 },
            history: other.history.isEmpty ? history : other.history,
            uniqueness: uniqueness.merging(other.uniqueness) { $1 },
            required: required.merging(other.required) { $1 },
            generated: generated.merging(other.generated) { $1 },
            unwritable: unwritable.merging(other.unwritable) { $1 },
            enumCases: enumCases.merging(other.enumCases) { $1 })
    }

    /// The facts a seed recorded, or nil.
    package static func recorded(_ db: Database) throws -> CoreDataModelFacts? {
        guard let json = try SeedCatalog.meta(db)[metaKey] else { return nil }
        return try? JSONDecoder().decode(CoreDataModelFacts.self, from: Data(json.utf8))
    }

    /// The facts as the JSON a seed records (keys sorted, so that builds stay byte-identical).
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
