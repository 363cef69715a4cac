import Foundation
import SeedRuntime

/// What `seedkit init --coredata` writes for a model: one table per concrete entity, its
/// fixture's header, the key the model makes obvious (a uniqueness constraint), and refs for
/// to-one relationships whose destination has such a key.
struct CoreDataScaffold {
    let model: CoreDataModel
    /// The entities a build from a store's rows cannot fill, each with why (``findUnfillable(_:)``).
    let unfillable: [(entity: String, why: String)]
    /// Their names.
    let emptied: Set<String>

    init(model: CoreDataModel) {
        self.model = model
        unfillable = Self.findUnfillable(model)
        emptied = Set(unfillable.map(\.entity))
    }

    /// Entities that can have rows of their own (abstract ones have only their sub-entities').
    var concreteEntities: [CoreDataModel.Entity] { model.entities.filter { !$0.isAbstract } }

    /// The fixture columns of `entity`: supported attributes and to-one relationships, inherited
    /// ones first; then the inverse-less to-manys its table keeps, but those of an owner the seed
    /// leaves empty (``unfillable``).
    func columns(_ entity: String) -> [String] {
        guard let flat = model.flattened(entity) else { return [] }
        return flat.attributes.filter { !$0.transient && CoreDataModel.supportedTypes.contains($0.type) }.map(\.name)
            + flat.relationships.filter { !$0.toMany && !($0.ownersToMany && emptied.contains($0.destination)) }.map(
                \.name)
    }

    func header(_ entity: String) -> String { columns(entity).joined(separator: ",") }

    /// The many-to-many relationships `init --coredata STORE` lists in `entity`'s fixture: of
    /// each pair, the side named first (`Cocktail.garnish` of `Cocktail.garnish` ↔
    /// `Garnish.cocktails`), when the other side has a one-column key and the seed fills both.
    func listedManyToMany(_ entity: String) -> [CoreDataModel.Relationship] {
        guard let flat = model.flattened(entity) else { return [] }
        return flat.relationships.filter { relationship in
            guard model.manyToMany(entity, relationship.name) != nil, !emptied.contains(entity),
                !emptied.contains(relationship.destination), key(relationship.destination)?.count == 1
            else { return false }
            let side = "\(entity).\(relationship.name)"
            let other = "\(relationship.destination).\(relationship.inverseName ?? "")"
            return side <= other
        }
    }

    /// Many-to-many relationships of `entity` whose links no fixture lists (one side has no
    /// one-column key), on the side ``listedManyToMany(_:)`` would list them from.
    func unlistedManyToMany(_ entity: String) -> [CoreDataModel.Relationship] {
        guard let flat = model.flattened(entity), !emptied.contains(entity) else { return [] }
        let listed = Set(listedManyToMany(entity).map(\.name))
        return flat.relationships.filter { relationship in
            guard model.manyToMany(entity, relationship.name) != nil, !listed.contains(relationship.name),
                !emptied.contains(relationship.destination)
            else { return false }
            let otherListed = listedManyToMany(relationship.destination).contains {
                $0.name == relationship.inverseName && $0.destination == entity
            }
            return !otherListed
                && "\(entity).\(relationship.name)" <= "\(relationship.destination).\(relationship.inverseName ?? "")"
        }
    }

    /// The first uniqueness constraint of `entity` (its own or inherited) whose names are all fixture columns.
    func key(_ entity: String) -> [String]? { model.defaultKey(entity) }

    /// For an entity whose key has several columns, the one column of it whose values tell the
    /// store's rows apart (objc.io Moody's Country: `numericISO3166Code` of `[numericISO3166Code,
    /// uniquenessDummy]`), found in the store `init --coredata STORE` reads.
    var distinguishingKeyColumn: [String: String] = [:]

    /// The column a relationship to `entity` names its rows by (a ref): its one-column key, or the
    /// column of its key that tells the store's rows apart; nil when neither exists.
    func refColumn(_ entity: String) -> String? {
        guard let key = key(entity) else { return nil }
        return key.count == 1 ? key[0] : distinguishingKeyColumn[entity]
    }

    /// The entities a build from the store's rows cannot fill, each with why, in the model's
    /// order: one whose model requires an attribute seedkit does not write (a Transformable, a
    /// composite it refuses; no default fills it), and one whose to-one relationship points at
    /// such an entity (its rows would name rows the seed does not hold).
    ///
    /// `init --coredata STORE` marks them `migrate_only: true`: the seed leaves them empty,
    /// migrations change users' rows.
    static func findUnfillable(_ model: CoreDataModel) -> [(entity: String, why: String)] {
        let concreteEntities = model.entities.filter { !$0.isAbstract }
        var found: [(entity: String, why: String)] = []
        for entity in concreteEntities {
            guard let flat = model.flattened(entity.name),
                let attribute = flat.attributes.first(where: {
                    !$0.optional && !$0.transient && !$0.derived && $0.defaultValue == nil
                        && !CoreDataModel.supportedTypes.contains($0.type)
                })
            else { continue }
            let type = attribute.type.split(separator: ":").first.map(String.init) ?? attribute.type
            found.append(
                (entity.name, "\(entity.name).\(attribute.name) (\(type)) is required, and seedkit does not write it"))
        }
        var grew = true
        while grew {
            grew = false
            for entity in concreteEntities where !found.contains(where: { $0.entity == entity.name }) {
                // Another entity's inverse-less to-many is optional: its column is left out instead (``columns(_:)``).
                guard let flat = model.flattened(entity.name),
                    let relationship = flat.relationships.first(where: { relationship in
                        !relationship.toMany && !relationship.ownersToMany
                            && found.contains { model.family(of: relationship.destination).contains($0.entity) }
                    })
                else { continue }
                found.append(
                    (
                        entity.name,
                        "its \(relationship.name) points at \(relationship.destination), which the seed leaves empty"
                    ))
                grew = true
            }
        }
        return concreteEntities.compactMap { entity in found.first { $0.entity == entity.name } }
    }

    /// The seed's file name for a project made from the store `template`: `seed` with the
    /// store's extension (`seed.store` for `default.store`).
    static func seedName(template: String) -> String {
        let pathExtension = (template as NSString).pathExtension
        return "seed" + (pathExtension.isEmpty ? "" : "." + pathExtension)
    }

    /// The manifest.
    ///
    /// With `store` (the template's file name, made from a store by `init --coredata STORE`): no
    /// `model:` line (the template's `Z_MODELCACHE` has it), and what an entity without a key means
    /// for the rows exported from the store.
    func manifest(modelPath: String, hasTemplate: Bool, store: (template: String, source: String)? = nil) -> String {
        var lines = [
            "# The seed's manifest for a Core Data store: seedkit build reads it (paths are relative to this file).",
            "# Tables are the model's entities; a fixture's columns are attributes and to-one relationships.",
        ]
        if let store {
            let output = "../build/" + Self.seedName(template: store.template)
            lines += [
                "# No model: line: seedkit reads the model from the template's Z_MODELCACHE.",
                "template: \(Self.yamlScalar(store.template))   # \(store.source) with its rows taken out (they are in data/): the store as the app created it",
                "output: \(Self.yamlScalar(output))",
                "tables:",
            ]
        } else {
            lines += [
                "model: \(Self.yamlScalar(modelPath))",
                hasTemplate
                    ? "template: empty.sqlite        # the empty store your app creates with this model (never changed)"
                    : "template: empty.sqlite        # not here yet: run the app once with an empty store, copy its .sqlite here",
                "output: ../build/seed.sqlite",
                "tables:",
            ]
        }
        for entity in model.entities where entity.isAbstract {
            lines.append("  # \(entity.name) is abstract: its rows are its sub-entities' rows")
        }
        let unfilled = store == nil ? [] : unfillable
        for entity in concreteEntities {
            lines.append("  \(entity.name):")
            if let why = unfilled.first(where: { $0.entity == entity.name })?.why {
                lines.append("    migrate_only: true")
                lines.append("    # \(why): the seed leaves \(entity.name) empty (the store's rows")
                lines.append("    # are not in data/), and migrations update or delete the rows users' stores have")
            } else {
                lines.append("    file: data/\(entity.name).csv")
            }
            if let key = key(entity.name) {
                lines.append(
                    "    key: \(Self.yamlKey(key))"
                        + String(repeating: " ", count: max(1, 22 - Self.yamlKey(key).count))
                        + "# the model's uniqueness constraint")
            } else if store != nil {
                lines.append(
                    "    # No key: the model has no uniqueness constraint on \(entity.name), so the store knew its rows only by"
                )
                lines.append(
                    "    # \(CoreDataDialect.primaryKeyColumn). The fixture lists them in \(CoreDataDialect.primaryKeyColumn) order, and the build numbers them 1, 2, … in that order; a"
                )
                lines.append(
                    "    # relationship to \(entity.name) holds that number (the row's line in the fixture). Migrations find a"
                )
                lines.append(
                    "    # row by its key: name what identifies a \(entity.name) across releases before the first one.")
            } else {
                lines.append(
                    "    # No key: the model has no uniqueness constraint on \(entity.name). Migrations find a row in a"
                )
                lines.append(
                    "    # user's store by its key, and without one that is \(CoreDataDialect.primaryKeyColumn), which differs from store to store;"
                )
                lines.append("    # name what identifies a \(entity.name) across releases")
                // Text that is always there names a row best: non-optional Strings first, then other Strings.
                let attributes = model.flattened(entity.name)?.attributes ?? []
                let strings = attributes.filter { $0.type == "String" }.sorted { !$0.optional && $1.optional }.map(
                    \.name)
                let example = (strings + columns(entity.name).filter { !strings.contains($0) }).prefix(2)
                if !example.isEmpty {
                    lines.append(
                        "    # (key: \(example[example.startIndex]), or a list: key: [\(example.joined(separator: ", "))])."
                    )
                }
            }
            guard let flat = model.flattened(entity.name) else { continue }
            let unsupported = flat.attributes.filter { !CoreDataModel.supportedTypes.contains($0.type) }
            if !unsupported.isEmpty {
                lines.append(
                    "    # not in the fixture: " + unsupported.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
                        + ", which seedkit does not write")
            }
            var refs: [String] = []
            var unkeyed: [String] = []
            let fixtureColumns = columns(entity.name)
            for relationship in flat.relationships where !relationship.toMany {
                if relationship.ownersToMany, !fixtureColumns.contains(relationship.name) {
                    lines.append(
                        "    # not in the fixture: \(relationship.name) (\(relationship.destination)'s to-many without an inverse, kept in this table), as the seed leaves \(relationship.destination) empty"
                    )
                    continue
                }
                if let column = refColumn(relationship.destination) {
                    refs.append("      \(relationship.name): \(relationship.destination).\(column)")
                } else {
                    unkeyed.append(relationship.name)
                }
            }
            // The rows a store's many-to-many links (init --coredata STORE lists them on one side).
            let listed = store == nil ? [] : listedManyToMany(entity.name).map(\.name)
            for relationship in flat.relationships where listed.contains(relationship.name) {
                if let key = key(relationship.destination) {
                    refs.append("      \(relationship.name): \(relationship.destination).\(key[0])   # many-to-many")
                }
            }
            if !refs.isEmpty {
                lines.append("    refs:")
                lines += refs
            }
            // A many-to-many is listed on either side, by the other side's one-column key.
            for relationship in flat.relationships
            where model.manyToMany(entity.name, relationship.name) != nil && !listed.contains(relationship.name) {
                guard let key = key(relationship.destination), key.count == 1 else { continue }
                lines.append(
                    "    # \(relationship.name) (many-to-many to \(relationship.destination)) can be set here: add a column \(relationship.name) listing \(relationship.destination) keys, and refs: { \(relationship.name): \(relationship.destination).\(key[0]) }"
                )
            }
            for name in unkeyed where store == nil {
                let destination = flat.relationships.first { $0.name == name }?.destination ?? ""
                lines.append(
                    "    # \(name) holds a \(destination) by its key: once \(destination) has a one-column key, add refs: { \(name): \(destination).<key> }"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a YAML scalar: as it is when it is plain, otherwise double-quoted.
    static func yamlScalar(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "._/-".unicodeScalars.contains(scalar)) && scalar.isASCII
            }
        // A JSON string literal is a YAML double-quoted scalar.
        return plain ? text : DocNode.quote(text)
    }

    static func yamlKey(_ columns: [String]) -> String {
        columns.count == 1 ? columns[0] : "[" + columns.joined(separator: ", ") + "]"
    }
}
