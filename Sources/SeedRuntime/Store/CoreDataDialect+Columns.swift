import GRDB

/// The column of each property, entity by entity: Core Data names a column `Z` + the property's
/// name in upper case (a composite's element: the element's own name), and when two properties of
/// an entity ask for the same name it numbers the later one (`ZID1`). Both real SwiftData stores
/// read show the rule (docs/swiftdata.md, "Composite attributes"): names are given in the order of the
/// properties by name, a composite's elements in their order at its place, and the first to ask
/// keeps the name (MetaCocktails' `Cocktail`: `author.id` in `ZID`, the cocktail's own `id` in
/// `ZID1`; its `IngredientBase`: `id` in `ZID`, `prep.id` in `ZID1`).
extension CoreDataDialect {
    /// The columns of an entity's properties by the rule, and the properties it cannot place.
    package struct ColumnLayout: Sendable, Equatable {
        /// Property (attribute, composite element or to-one relationship) → its column.
        package var columns: [String: String] = [:]
        /// Property → why seedkit does not place its column: a clash no real store shows.
        package var unplaced: [String: String] = [:]
        /// Property → the property that kept the name it asked for, for each numbered column.
        package var numberedAfter: [String: String] = [:]
    }

    /// The columns Core Data gives `properties` (an entity's attributes and to-one relationships,
    /// inherited ones included; to-manys have no column of their own), by the rule above.
    ///
    /// What the stores show is followed: a plain attribute and a composite's element asking for
    /// the same name, the later by name getting `1`. A clash they do not show is not placed, named
    /// in ``ColumnLayout/unplaced`` with why: a to-one relationship in it, two composite elements,
    /// a third property, or a numbered name another property asks for.
    package static func columnLayout(_ properties: [(name: String, toOne: Bool)]) -> ColumnLayout {
        func owner(_ name: String) -> Substring { name.split(separator: ".", maxSplits: 1).first ?? Substring(name) }
        let asked = properties.map { storeColumn(ofProperty: $0.name) }
        let order = properties.indices.sorted { (owner(properties[$0].name), $0) < (owner(properties[$1].name), $1) }
        var layout = ColumnLayout()
        var first: [String: Int] = [:]
        var numbered: Set<String> = []
        for index in order {
            let (name, column) = (properties[index].name, asked[index])
            guard let taken = first[column] else {
                first[column] = index
                layout.columns[name] = column
                continue
            }
            let other = properties[taken]
            let pair = [other, properties[index]]
            let why: String? =
                if pair.contains(where: \.toOne) {
                    "a to-one relationship"
                } else if pair.allSatisfy({ $0.name.contains(".") }) || !pair.contains(where: { $0.name.contains(".") })
                {
                    pair[0].name.contains(".") ? "two composite elements" : "two attributes"
                } else if numbered.contains(column) {
                    "a third property"
                } else if asked.contains(where: { $0.isSameName(as: column + "1") }) {
                    "a numbered name another property asks for"
                } else {
                    nil
                }
            if let why {
                layout.unplaced[name] =
                    "\(name) and \(other.name) both ask for column \(column): Core Data gives it to \(other.name) and numbers the other, which no real store read shows for \(why)"
            } else {
                numbered.insert(column)
                layout.columns[name] = column + "1"
                layout.numberedAfter[name] = other.name
            }
        }
        return layout
    }

    /// The layout of the entity the model calls `name`, from the properties the facts list for it.
    static func columnLayout(of properties: [CoreDataModelFacts.Property]) -> ColumnLayout {
        columnLayout(properties.filter { $0.kind != .toMany }.map { ($0.name, $0.kind == .toOne) })
    }

    /// The columns Core Data keeps inverse-less to-many relationships in (``heldToManyColumns``),
    /// by the owner's relationship: `Z<owner's Z_ENT><NAME>` in the destination's table.
    static func heldToManyColumns(_ facts: CoreDataModelFacts, entities: [Entity]) -> [String: String] {
        func modelName(_ entity: Entity) -> String {
            facts.renamings.first { $0.value == entity.name }?.key ?? entity.name
        }
        var held: [String: String] = [:]
        for entity in entities {
            // The column carries the number of the entity that declares the relationship, not of one inheriting it.
            var inherited = Set<String>()
            var current = entity
            for _ in entities {
                guard current.superEntity != 0, let parent = entities.first(where: { $0.number == current.superEntity })
                else { break }
                inherited.formUnion(facts.history[modelName(parent)]?.properties.map(\.name) ?? [])
                current = parent
            }
            let name = modelName(entity)
            for property in facts.history[name]?.properties ?? []
            where property.kind == .toMany && property.inverse == nil && property.destination != nil
                && !inherited.contains(property.name)
            {
                held["\(name).\(property.name)"] = "Z\(entity.number)\(property.name.uppercased())"
            }
        }
        return held
    }

    /// The column of property `name` of `table` (the entity a migration or fixture names, or the
    /// SQL table of its rows: then the first entity stored there that has such a property), by
    /// ``columnLayout(_:)``; a column's own name (`ZID1`) as it is.
    package func columnName(_ name: String, in table: String) -> String {
        if name.hasPrefix("Z") && name == name.uppercased() { return name }
        if let column = layouts[factsName(table)]?.columns[name] ?? layoutsByTable[SQLName(tableName(table))]?[name] {
            return column
        }
        // A dotted name that is no element of the model's composites is no column (`prep.id` of a
        // composite seedkit refused must not land in the entity's own ZID).
        if name.contains(".") {
            // An inverse-less to-many of another entity, kept in this table (`Shelf.books` → `Z3BOOKS`).
            if let column = heldToManyColumns[name] { return column }
            if !compositeElements.contains(name) { return "Z" + name.uppercased() }
        }
        return Self.storeColumn(ofProperty: name)
    }

    /// Each numbered column the layouts predict that its table lacks, said as a refusal naming
    /// both properties: the model does not describe the store, and writing would miss the column.
    ///
    /// `detect` refuses the store for the first; `verify` reports each, by entity.
    package func numberedColumnProblems(_ db: Database) throws -> [(entity: String, message: String)] {
        var problems: [(entity: String, message: String)] = []
        var read: [String: TableInfo?] = [:]
        for entity in entities {
            let model = modelName(of: entity)
            guard let layout = layouts[model] else { continue }
            let table = tableName(model)
            if read[table] == nil { read[table] = try TableInfo.read(db, table: table) }
            guard let info = read[table] ?? nil else { continue }  // no table: not this check's to say
            for (property, other) in layout.numberedAfter.sorted(by: { $0.key < $1.key }) {
                guard let column = layout.columns[property], info.column(column) == nil else { continue }
                problems.append(
                    (
                        model,
                        "\(model).\(property): Core Data numbers its column \(column) (\(other), first by name, keeps \(Self.storeColumn(ofProperty: property))), but \(table) has no column \(column): the model does not fit the store"
                    ))
            }
        }
        for (table, info) in read.sorted(by: { $0.key < $1.key }) {
            guard let info else { continue }
            problems += unplacedNumberedColumns(info, table: table)
        }
        return problems
    }

    /// Columns of `info` that look numbered (`ZSIZE1`: a name of letters and digits after `Z`,
    /// ending in digits) beside a column some property of its entities asks for (`ZSIZE`), which no
    /// property asks for by the rule: Core Data numbered a name seedkit gives to one property only,
    /// as it may do for sibling sub-entities that each have a `size`.
    ///
    /// No real store read shows which of them it moves, so writing either could land in the other's
    /// column: refused, naming them.
    func unplacedNumberedColumns(_ info: TableInfo, table: String) -> [(entity: String, message: String)] {
        let family = entities.map(modelName).filter { SQLName(tableName($0)) == SQLName(table) }
        var asking: [SQLName: [String]] = [:]
        for entity in family {
            for (property, column) in layouts[entity]?.columns ?? [:] {
                asking[SQLName(column), default: []].append("\(entity).\(property)")
            }
        }
        let held = Set(heldToManyColumns.values.map(SQLName.init))
        var problems: [(entity: String, message: String)] = []
        for column in info.columns where !Self.isBookkeeping(column.name) && !held.contains(SQLName(column.name)) {
            let base = String(column.name.reversed().drop { $0.isASCII && $0.isNumber }.reversed())
            guard base.count < column.name.count, base.count > 1, base.hasPrefix("Z"), !base.contains("_"),
                asking[SQLName(column.name)] == nil, let owners = asking[SQLName(base)]?.sorted(), !owners.isEmpty
            else { continue }
            problems.append(
                (
                    String(owners[0].prefix { $0 != "." }),
                    "\(table).\(column.name) is a column Core Data numbered beside \(base), which \(owners.joined(separator: ", ")) \(owners.count == 1 ? "asks" : "ask") for, and no property asks for it by the rule seedkit follows (docs/swiftdata.md): which property is stored where, no real store read shows"
                ))
        }
        return problems
    }
}
