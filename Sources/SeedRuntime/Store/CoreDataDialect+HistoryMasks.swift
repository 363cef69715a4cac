import Foundation

/// The changed-properties mask (`ZCOLUMNS`) of an update: which bit each property of an entity
/// takes, as the real stores in `docs/swiftdata.md` show Core Data counting them.
///
/// Where no real store shows a property's place (a composite attribute's elements among the
/// attributes, a to-one relationship to the entity itself, …), every place Core Data might give
/// it is tried: an update whose bytes are the same in all of them is written, one whose bytes
/// differ is refused, naming the property and why (`docs/swiftdata.md`, "What stays refused").
extension CoreDataHistory {
    /// `ZCOLUMNS` for an update of an entity with these properties (every property the entity
    /// has, inherited ones included) where `changed` changed.
    ///
    /// As the real stores show (`docs/swiftdata.md`): the properties are counted to-one
    /// relationships first, then attributes (a composite attribute's elements each counting as
    /// one, the composite itself not), then to-many relationships, each group by name, a to-many
    /// to the entity itself after the others or not at all (ChefTime's `SDFolder` shows one or
    /// the other); property `i` is bit `0x80 >> (i % 8)` of byte `i / 8`, and the mask is
    /// `⌈n / 8⌉` bytes for `n` properties. Refused: entities with a parent or sub-entities, with a
    /// derived property (a transient one is not among the properties: it takes no bit), or with a relationship to an entity that has a parent or
    /// sub-entities, and an update whose bytes depend on a place no real store shows (``MaskLayout``).
    package static func columnsMask(
        entity: String, properties: [Property], changed: Set<String>, inherits: Bool = false
    ) throws(SeedError) -> Data {
        try MaskLayout(entity: entity, properties: properties, inherits: inherits).mask(changed: changed)
    }

    /// Where the properties no real store places could count: each field one way Core Data might
    /// count them.
    ///
    /// The defaults are the places the columns take.
    struct Placement: Equatable, Sendable {
        /// A composite attribute's elements among the attributes.
        enum Elements: CaseIterable, Sendable {
            /// At the composite's name, in their order (as the columns are: `ZPERSON, ZPLACE, ZYEAR`).
            case atComposite
            /// At the composite's name, by their own names.
            case atCompositeByName
            /// By their own names among the other attributes (`user` after `name`).
            case byOwnName
            /// After every other attribute.
            case afterAttributes
            /// Before every other attribute.
            case beforeAttributes
        }
        var elements = Elements.atComposite
        /// A to-one relationship to the entity itself after the other to-ones, not by name among them.
        var ownToOnesLast = false
        /// A to-many to the entity itself that is not a one-to-many after the other to-manys (with
        /// the one-to-manys to the entity), not by name among them.
        var ownManyToManysLast = false
        /// The to-manys to the entity itself, after the others, by name descending.
        var ownToManysDescending = false
        /// The to-manys to the entity itself not counted at all (the mask one property narrower).
        var ownToManysAbsent = false

        /// Every combination, the settled one first, then those varying one thing, then the rest.
        static let all: [Placement] = {
            var all: [Placement] = []
            for elements in Elements.allCases {
                for ownToOnesLast in [false, true] {
                    for ownManyToManysLast in [false, true] {
                        for ownToManysDescending in [false, true] {
                            for ownToManysAbsent in [false, true] {
                                all.append(
                                    Placement(
                                        elements: elements, ownToOnesLast: ownToOnesLast,
                                        ownManyToManysLast: ownManyToManysLast,
                                        ownToManysDescending: ownToManysDescending, ownToManysAbsent: ownToManysAbsent))
                            }
                        }
                    }
                }
            }
            return all.sorted { $0.varied.count < $1.varied.count }
        }()

        /// What differs from the settled placement, in a fixed order.
        var varied: [Doubt] {
            [
                elements != .atComposite ? Doubt.elements : nil, ownToOnesLast ? .ownToOne : nil,
                ownManyToManysLast ? .ownManyToMany : nil, ownToManysDescending ? .ownToManyOrder : nil,
                ownToManysAbsent ? .ownToManyCounted : nil,
            ].compactMap { $0 }
        }
    }

    /// A place no real store shows, for messages.
    enum Doubt: Sendable {
        case elements, ownToOne, ownManyToMany, ownToManyOrder, ownToManyCounted
    }

    /// The composite attribute an element belongs to and the element's own name (`folderType`,
    /// `user` for `folderType.user`; an enum with raw values has one element named as itself).
    static func elementParts(_ property: Property) -> (owner: String, element: String) {
        guard property.composite, let dot = property.name.firstIndex(of: ".") else {
            return (property.name, property.name)
        }
        return (String(property.name[..<dot]), String(property.name[property.name.index(after: dot)...]))
    }

    /// The properties in the order the mask counts them under `placement`.
    static func ordered(_ properties: [Property], _ placement: Placement) -> [Property] {
        // Each element's position in its composite, as the properties list them (the model's order).
        var declared: [String: Int] = [:]
        var counts: [String: Int] = [:]
        for property in properties where property.composite {
            let owner = elementParts(property).owner
            declared[property.name] = counts[owner, default: 0]
            counts[owner, default: 0] += 1
        }
        func group(_ property: Property) -> Int {
            switch property.kind {
            case .toOne: return placement.ownToOnesLast && property.ownEntity != nil ? 1 : 0
            case .attribute:
                switch placement.elements {
                case .afterAttributes: return property.composite ? 3 : 2
                case .beforeAttributes: return property.composite ? 2 : 3
                default: return 2
                }
            case .toMany:
                switch property.ownEntity {
                case .oneToMany: return 5
                case .other: return placement.ownManyToManysLast ? 5 : 4
                case nil: return 4
                }
            }
        }
        // Within a group: (first name, position, second name).
        func key(_ property: Property) -> (String, Int, String) {
            guard property.kind == .attribute else { return (property.name, 0, "") }
            let (owner, element) = elementParts(property)
            let position = declared[property.name] ?? 0
            switch placement.elements {
            case .atComposite, .afterAttributes, .beforeAttributes: return (owner, position, "")
            case .atCompositeByName: return (owner, 0, element)
            case .byOwnName: return (element, 0, owner)
            }
        }
        let counted =
            placement.ownToManysAbsent
            ? properties.filter { !($0.kind == .toMany && $0.ownEntity != nil) } : properties
        return counted.sorted { left, right in
            let (leftGroup, rightGroup) = (group(left), group(right))
            guard leftGroup == rightGroup else { return leftGroup < rightGroup }
            if leftGroup == 5 && placement.ownToManysDescending { return left.name > right.name }
            return key(left) < key(right)
        }
    }

    /// An entity's properties laid out for its changed-properties masks, computed once for every
    /// update of the entity: the bit each property takes, and the other bits it could take where
    /// no real store shows its place.
    package struct MaskLayout: Sendable {
        let entity: String
        let properties: [Property]
        /// Property name → its bit, as the stores settle it.
        let settled: [String: Int]
        /// Placements that give some property another bit, with each property's bit there.
        let alternatives: [(placement: Placement, bits: [String: Int])]

        /// Lays out `entity`'s properties; refuses an entity no real store shows how to count
        /// (a parent or sub-entities, a derived property, a relationship to an
        /// entity with a parent or sub-entities), whatever changes.
        package init(entity: String, properties: [Property], inherits: Bool = false) throws(SeedError) {
            self.entity = entity
            self.properties = properties
            if inherits {
                throw Self.refusal(
                    entity,
                    "\(entity) has a parent or sub-entities, and no real store shows how inherited properties count in the changed-properties mask (ZCOLUMNS)"
                )
            }
            if let odd = properties.first(where: \.unvouched) {
                throw Self.refusal(
                    entity,
                    "\(entity).\(odd.name) is derived, and no real store shows how such a property counts in the changed-properties mask (ZCOLUMNS)"
                )
            }
            if let odd = properties.first(where: { $0.kind != .attribute && $0.destinationInherits }) {
                throw Self.refusal(
                    entity,
                    "\(entity).\(odd.name) points at an entity with a parent or sub-entities, and no real store shows how such a relationship counts in the changed-properties mask (ZCOLUMNS)"
                )
            }
            func bits(_ placement: Placement) -> [String: Int] {
                Dictionary(
                    CoreDataHistory.ordered(properties, placement).enumerated().map { ($1.name, $0) },
                    uniquingKeysWith: { first, _ in first })
            }
            let settled = bits(Placement())
            var alternatives: [(placement: Placement, bits: [String: Int])] = []
            for placement in Placement.all.dropFirst() {
                let other = bits(placement)
                if other != settled && !alternatives.contains(where: { $0.bits == other }) {
                    alternatives.append((placement, other))
                }
            }
            self.settled = settled
            self.alternatives = alternatives
        }

        /// `ZCOLUMNS` for an update where `changed` changed; refused when it names no property,
        /// one the entity does not have, or its bytes differ where a property's place is not shown.
        package func mask(changed: Set<String>) throws(SeedError) -> Data {
            if let unknown = changed.sorted().first(where: { settled[$0] == nil }) {
                // `Shelf.books` on Book: Core Data keeps it in Book's table, but it is Shelf's property.
                throw Self.refusal(
                    entity,
                    unknown.contains(".")
                        ? "\(unknown) is a to-many relationship without an inverse, kept in \(entity)'s table, and no real store shows how Core Data records its change in persistent history"
                        : "\(entity) has no property '\(unknown)'")
            }
            guard !changed.isEmpty else {
                throw Self.refusal(entity, "the update of \(entity) names no changed property")
            }
            let bytes = Self.bytes(changed, settled) ?? Data()
            for (placement, bits) in alternatives where Self.bytes(changed, bits) != bytes {
                let moved = changed.sorted { (settled[$0] ?? 0) < (settled[$1] ?? 0) }.first { bits[$0] != settled[$0] }
                throw Self.refusal(entity, why(moved, placement))
            }
            return bytes
        }

        /// The mask's bytes where each counted property takes the bit `bits` gives it (`⌈n / 8⌉`
        /// bytes for the `n` properties counted), or nil when a property in `changed` is not counted.
        static func bytes(_ changed: Set<String>, _ bits: [String: Int]) -> Data? {
            var bytes = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
            for name in changed {
                guard let index = bits[name] else { return nil }
                bytes[index / 8] |= 0x80 >> UInt8(index % 8)
            }
            return Data(bytes)
        }

        /// Why the bytes are in doubt under `placement`: `moved` takes another bit there (or none),
        /// or, when nil, the mask is another width.
        private func why(_ moved: String?, _ placement: Placement) -> String {
            let property = properties.first { $0.name == moved }
            let doubt =
                placement.varied.first { doubt in
                    var single = Placement()
                    switch doubt {
                    case .elements: single.elements = placement.elements
                    case .ownToOne: single.ownToOnesLast = true
                    case .ownManyToMany: single.ownManyToManysLast = true
                    case .ownToManyOrder: single.ownToManysDescending = true
                    case .ownToManyCounted: single.ownToManysAbsent = true
                    }
                    let order = CoreDataHistory.ordered(properties, single)
                    guard let moved else { return order.count != properties.count }
                    return order.firstIndex { $0.name == moved } != settled[moved]
                } ?? placement.varied.first ?? .elements
            func names(_ matching: (Property) -> Bool) -> String {
                properties.filter(matching).map { "\(entity).\($0.name)" }.joined(separator: ", ")
            }
            let ownToManys = names { $0.kind == .toMany && $0.ownEntity != nil }
            guard let moved else {
                return
                    "the changed-properties mask's (ZCOLUMNS) width depends on whether \(ownToManys) (a to-many relationship to \(entity) itself) counts at all, which no real store shows (ChefTime's SDFolder.folders counts after the other to-manys or not at all)"
            }
            let cause: String
            switch doubt {
            case .elements:
                if let property, property.composite {
                    return
                        "\(entity).\(CoreDataHistory.elementParts(property).owner) is a composite attribute (a Codable enum or struct), and no real store shows where its elements count among \(entity)'s attributes in the changed-properties mask (ZCOLUMNS): an update of a relationship only is written, not one of an attribute"
                }
                var owners: [String] = []
                for element in properties where element.composite {
                    let owner = CoreDataHistory.elementParts(element).owner
                    if !owners.contains(owner) { owners.append(owner) }
                }
                cause =
                    "the elements of \(entity)'s composite attribute\(owners.count == 1 ? "" : "s") \(owners.joined(separator: ", ")) (a Codable enum or struct) count among its attributes: an update of a relationship only is written, not one of an attribute"
            case .ownToOne:
                cause =
                    "\(names { $0.kind == .toOne && $0.ownEntity != nil }) (a to-one relationship to \(entity) itself) counts among the other to-ones: by name, or after them"
            case .ownManyToMany:
                cause =
                    "\(names { $0.kind == .toMany && $0.ownEntity == .other }) (a to-many relationship to \(entity) itself whose inverse is not a to-one) counts among the other to-manys: by name, or after them"
            case .ownToManyOrder:
                cause =
                    "\(ownToManys) (to-many relationships to \(entity) itself, which count after the other to-manys) count among themselves"
            case .ownToManyCounted:
                if let property, property.kind == .toMany, property.ownEntity != nil {
                    return
                        "\(entity).\(moved) is a to-many relationship to \(entity) itself, and no real store shows whether it counts in the changed-properties mask (ZCOLUMNS): ChefTime's SDFolder.folders counts after the other to-manys or not at all (docs/swiftdata.md); an update of \(entity)'s other properties is written"
                }
                cause =
                    "\(ownToManys) (a to-many relationship to \(entity) itself) counts: after the other to-manys, or not at all"
            }
            return
                "where \(entity).\(moved) counts in the changed-properties mask (ZCOLUMNS) depends on how \(cause), which no real store shows"
        }

        static func refusal(_ entity: String, _ why: String) -> SeedError {
            SeedError(
                .refused,
                "cannot record the update of \(entity) in the store's persistent history: \(why); nothing was written. Pass --without-history to write without history entries"
            )
        }
    }
}
