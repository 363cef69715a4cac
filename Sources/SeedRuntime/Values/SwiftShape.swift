/// A SwiftData entity's composite attributes in the Swift type's shape
/// (docs/swiftdata.md, "Giving a composite in the Swift shape"): the one place where a row that
/// gives a struct as a map of its members (`author: {person: Ada, place: London}`) or an enum without raw values as
/// its case's name (`folderType: user`) becomes the stored elements it stands for
/// (`author.person`, `author.place`; `folderType.user: user` and every other case NULL).
///
/// Every reader of rows hands its row here: a migration's `insert` rows and its `from:`/`to:`
/// (``MigrationRun``, so `migrate`, `check-upgrade` and an app at launch alike) and a build's
/// JSON fixture records (the tooling's `SwiftShapeFields`). The shapes come from the model's
/// facts (``CoreDataModelFacts/history``, whose composite elements are named by their Swift
/// path, and ``CoreDataModelFacts/enumCases``), which a seed records, so an app without the
/// model expands the same rows the CLI does.
///
/// ```swift
/// let shape = SwiftShape(entity: "Shelf", facts: facts)
/// let expanded = shape?.expand([("label", .string("A1")), ("placement", .string("window"))], entity: "Shelf")
/// // label: A1, placement.wall: null, placement.floor: null, placement.window: window
/// ```
package struct SwiftShape: Sendable {
    /// What a composite's value is made of.
    package enum Composite: Sendable, Equatable {
        /// A struct: its stored members, in the model's order.
        case structure([String])
        /// An enum without raw values: its cases, in the model's order (a column per case).
        case cases([String])
    }

    /// Composite attribute (as the model names it) → its shape.
    ///
    /// An enum with raw values has none: its one element is the attribute itself
    /// (`glasswareType: Coupe`).
    package let composites: [(name: String, shape: Composite)]
    /// The entity's attributes, lower-cased, that take no map (every attribute but a
    /// composite's JSON elements, `size.woods`): a map given to one is refused, not stored as text.
    private let scalarAttributes: Set<String>

    /// The shape of `entity`'s composites (its model name, as the facts key it); nil when the
    /// facts know none of its attributes.
    package init?(entity: String, facts: CoreDataModelFacts) {
        guard let properties = facts.history[entity]?.properties else { return nil }
        let cases = facts.enumCases[entity] ?? [:]
        let json = facts.attributeTypes[entity] ?? [:]
        var composites: [(name: String, shape: Composite)] = []
        var scalars = Set<String>()
        for property in properties where property.kind == .attribute {
            if json[property.name] != "JSON" { scalars.insert(property.name.lowercasedName) }
            guard property.composite, let dot = property.name.firstIndex(of: ".") else { continue }
            let owner = String(property.name[..<dot])
            let member = String(property.name[property.name.index(after: dot)...])
            let isCase = cases[property.name] != nil
            if let index = composites.firstIndex(where: { $0.name == owner }) {
                switch composites[index].shape {
                case .structure(let members): composites[index].shape = .structure(members + [member])
                case .cases(let names): composites[index].shape = .cases(names + [member])
                }
            } else {
                composites.append((owner, isCase ? .cases([member]) : .structure([member])))
            }
        }
        guard !composites.isEmpty || !scalars.isEmpty else { return nil }
        self.composites = composites
        scalarAttributes = scalars
    }

    /// The composite `name` names (either case), with its model name.
    package func composite(_ name: String) -> (name: String, shape: Composite)? {
        composites.first { $0.name.isSameName(as: name) }
    }

    /// The stored elements of composite `name`: `name.member` per member or case.
    package func elements(of composite: (name: String, shape: Composite)) -> [String] {
        switch composite.shape {
        case .structure(let members), .cases(let members): return members.map { composite.name + "." + $0 }
        }
    }

    /// A problem with one value of a row, found by ``expand(_:entity:)``.
    package struct Problem: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A map naming a member the struct does not have (2020, as a column the table lacks).
            case unknownMember
            /// An enum's value that is none of its cases (1550, as a case column's wrong value).
            case notACase
            /// A map for what is no struct, or a struct's value that is no map (2010).
            case wrongShape
            /// A composite given both whole and element by element (the code of a key given
            /// twice where the row was read: 2100 in a migration, 2001 in a JSON fixture).
            case givenTwice
        }

        /// The index of the value in the row as given.
        package var index: Int
        package var kind: Kind
        package var message: String

        /// The diagnostic code of the problem; `twice` is the reader's code for a key given twice.
        package func code(twice: DiagnosticCode) -> DiagnosticCode {
            switch kind {
            case .unknownMember: return .unknownColumn
            case .notACase: return .otherRule
            case .wrongShape: return .typeMismatch
            case .givenTwice: return twice
            }
        }
    }

    /// A row with its composites in stored elements, or the problems that stop it.
    package struct Expansion: Sendable {
        package var values: [(column: String, value: InputValue)]
        /// For each value of ``values``: the index of the value it came from in the row as given.
        package var sources: [Int]
        package var problems: [Problem]
    }

    /// `values` with each composite given in the Swift shape replaced by its elements; nil when
    /// the row gives none (and no map), so that a row in the stored form costs one look.
    ///
    /// - A struct's map gives the members it names, as the dotted form does (`author.person`);
    ///   members it leaves out are left out. `null` is the nil composite: every member NULL.
    /// - An enum's case name sets its case's column to the name and every other case's to
    ///   NULL (one case is the value); `null` sets them all to NULL.
    /// - A map given to an attribute that is no struct (nor a JSON element) is refused, as is a
    ///   composite given both whole and by its elements in one row.
    package func expand(_ values: [(column: String, value: InputValue)], entity: String) -> Expansion? {
        let givesShape = values.contains { column, value in
            if case .json(let text) = value, text.hasPrefix("{") { return true }
            return !column.contains(".") && composite(column) != nil
        }
        guard givesShape else { return nil }
        var result = Expansion(values: [], sources: [], problems: [])
        result.values.reserveCapacity(values.count)
        for (index, (column, value)) in values.enumerated() {
            func add(_ column: String, _ value: InputValue) {
                if case .json(let text) = value, text.hasPrefix("{"), scalarAttributes.contains(column.lowercasedName) {
                    result.problems.append(
                        Problem(
                            index: index, kind: .wrongShape,
                            message:
                                "\(entity): \(column) is given a map, but it is no struct (a Codable struct is a composite attribute; this one holds a single value; give JSON text as a string)"
                        ))
                    return
                }
                result.values.append((column, value))
                result.sources.append(index)
            }
            guard !column.contains("."), let found = composite(column) else {
                add(column, value)
                continue
            }
            let elements = elements(of: found)
            if let dotted = values.first(where: { other in
                elements.contains { $0.isSameName(as: other.column) }
            }) {
                result.problems.append(
                    Problem(
                        index: index, kind: .givenTwice,
                        message:
                            "\(entity): \(found.name) is given twice, whole (\(column)) and by its element \(dotted.column); give one form"
                    ))
                continue
            }
            if value == .null {
                for element in elements { add(element, .null) }
                continue
            }
            switch found.shape {
            case .structure(let members):
                guard case .json(let text) = value, text.hasPrefix("{"), let entries = Self.entries(text),
                    !entries.isEmpty
                else {
                    result.problems.append(
                        Problem(
                            index: index, kind: .wrongShape,
                            message:
                                "\(entity): \(found.name) is a struct (members \(members.joined(separator: ", "))): give it as a map of its members ({\(members.first ?? "member"): …}), or null for none, not \(value)"
                        ))
                    continue
                }
                var given: [String] = []
                for (key, member) in entries {
                    if given.contains(where: { $0.isSameName(as: key) }) {
                        result.problems.append(
                            Problem(
                                index: index, kind: .givenTwice,
                                message: "\(entity): \(found.name) gives its member '\(key)' twice; keep one"))
                        continue
                    }
                    given.append(key)
                    guard let name = members.first(where: { $0.isSameName(as: key) }) else {
                        result.problems.append(
                            Problem(
                                index: index, kind: .unknownMember,
                                message:
                                    "\(entity): \(found.name) has no member '\(key)' (its members: \(members.joined(separator: ", ")))"
                            ))
                        continue
                    }
                    add(found.name + "." + name, member)
                }
            case .cases(let names):
                guard case .string(let given) = value, let chosen = names.first(where: { $0 == given }) else {
                    let shown: String
                    if case .string(let text) = value { shown = "'\(text)'" } else { shown = value.description }
                    result.problems.append(
                        Problem(
                            index: index, kind: .notACase,
                            message:
                                "\(entity): \(found.name) is \(shown), which is none of its cases (\(names.joined(separator: ", "))); give the case's name"
                        ))
                    continue
                }
                for name in names { add(found.name + "." + name, name == chosen ? .string(name) : .null) }
            }
        }
        return result
    }

    /// The entries of a JSON object's text, each member's value as a row gives it; nil when it is no object.
    private static func entries(_ text: String) -> [(key: String, value: InputValue)]? {
        var bytes = Array(text.utf8)
        let document = bytes.withUnsafeMutableBytes { try? JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
        return document?.entries?.map { ($0.key, $0.node.inputValue) }
    }
}

extension SwiftShape {
    /// `row` in stored elements (each value keeping where it was written), with the problems
    /// that stop it; with problems, the row as written.
    package func storedForm(_ row: DataChanges.RowValues, entity: String) -> (
        row: DataChanges.RowValues, problems: [Problem]
    ) {
        guard let expansion = expand(row.values, entity: entity) else { return (row, []) }
        guard expansion.problems.isEmpty else { return (row, expansion.problems) }
        var stored = row
        stored.values = expansion.values
        stored.positions = row.positions.isEmpty ? [] : expansion.sources.map { row.position(of: $0) }
        return (stored, [])
    }
}

extension DataChanges.Operation {
    /// The operation with its rows, `from:` and `to:` in stored elements, for a reader that only
    /// looks at them (the tooling's simulated user); a row with a problem stays as written (the
    /// run that applies it reports the problem: ``MigrationRun``).
    package func inStoredForm(_ shape: SwiftShape) -> DataChanges.Operation {
        let changes = self.changes.map { change in
            var change = change
            change.from = shape.storedForm(change.from, entity: table).row
            change.to = shape.storedForm(change.to, entity: table).row
            return change
        }
        return DataChanges.Operation(
            kind, table: table, rows: rows.map { shape.storedForm($0, entity: table).row }, changes: changes)
    }
}
