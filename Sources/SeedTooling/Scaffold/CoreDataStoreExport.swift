import Foundation
import GRDB
import SeedRuntime

/// What `seedkit init --coredata STORE` takes from a store that carries its model
/// (`Z_MODELCACHE`): one CSV fixture per concrete entity holding the store's rows, and the store
/// with those rows taken out, as the template the seed is built into.
///
/// Values are written as a fixture gives them to `build`: dates as ISO 8601 (UTC) when they
/// fall on a whole second, else as seconds since 2001 (so they read back exactly), UUIDs in their text form, Binary as base64, Booleans as
/// `true`/`false`, NULL as an empty field and the empty string as `""`. A to-one relationship
/// holds the related row's key when its entity has a one-column uniqueness constraint (the
/// manifest's ref); otherwise the `Z_PK` the build gives that row: its line in the related
/// entity's fixture, which lists rows in `Z_PK` order.
struct CoreDataStoreExport {
    let model: CoreDataModel
    private(set) var plan: CoreDataScaffold

    /// Fixture text by entity, and notes (what the fixture could not hold) by entity.
    var fixtures: [String: String] = [:]
    var notes: [String: [String]] = [:]
    /// Rows exported, by entity.
    var rowCounts: [String: Int] = [:]

    init(model: CoreDataModel) {
        self.model = model
        self.plan = CoreDataScaffold(model: model)
    }

    /// The root entity of `entity`'s lineage: its rows live in the root's table.
    func root(_ entity: String) -> String {
        var name = entity
        var seen: Set<String> = [entity]
        while let parent = model.entity(name)?.parent, seen.insert(parent).inserted { name = parent }
        return name
    }

    func table(_ entity: String) -> String { CoreDataDialect.storeTable(ofRoot: root(entity)) }

    /// Reads every concrete entity's rows from the store at `path`.
    mutating func read(_ db: Database) throws {
        let numbers = try CoreDataDialect.entityNumbers(db)
        // Entity → the store's key → line number in its fixture (1-based): the key a build gives the row.
        var positions: [String: [Int64: Int]] = [:]
        var rowsByEntity: [String: [[SQLName: SQLValue]]] = [:]
        for entity in plan.concreteEntities {
            let number = numbers[entity.renamingIdentifier ?? entity.name] ?? numbers[entity.name]
            let table = table(entity.name)
            guard let number, try db.tableExists(table) else {
                notes[entity.name, default: []].append(
                    "no rows exported: the store has no \(number == nil ? "\(CoreDataDialect.primaryKeyTable) row" : "table \(table)") for \(entity.name)"
                )
                continue
            }
            let rows = try CoreDataDialect.rows(db, table: table, entity: number)
            rowsByEntity[entity.name] = rows
            positions[entity.name] = Dictionary(
                rows.enumerated().compactMap { index, row in CoreDataDialect.primaryKey(of: row).map { ($0, index + 1) }
                },
                uniquingKeysWith: { first, _ in first })
        }
        // A key of several columns: the first of them whose values tell the entity's rows apart names them in refs.
        for entity in plan.concreteEntities {
            guard let key = plan.key(entity.name), key.count > 1, let rows = rowsByEntity[entity.name] else { continue }
            let storeColumns = model.storeColumns(entity.name)
            for column in key {
                let name = SQLName(storeColumns[column] ?? CoreDataDialect.storeColumn(ofProperty: column))
                let values = rows.map { $0[name] ?? .null }
                if !values.contains(.null), Set(values).count == values.count {
                    plan.distinguishingKeyColumn[entity.name] = column
                    break
                }
            }
        }
        let dialect = try CoreDataDialect.read(db, facts: model.facts)
        for entity in plan.concreteEntities {
            guard let flat = model.flattened(entity.name) else { continue }
            let columns = plan.columns(entity.name)
            // Each property's column, by the rule the real stores show (`ZID1` for the later of two asking for `ZID`).
            let storeColumns = model.storeColumns(entity.name)
            func storeColumn(_ property: String) -> String {
                storeColumns[property] ?? CoreDataDialect.storeColumn(ofProperty: property)
            }
            // Many-to-many relationships listed on this side: the related rows' keys, from the join table.
            var joins: [(name: String, destination: String, sql: String)] = []
            for relationship in plan.listedManyToMany(entity.name) {
                guard
                    let join = try dialect?.joinTable(
                        db, entity: entity.name, relationship: relationship.name,
                        destination: relationship.destination)
                else { continue }
                let order = join.memberOrderColumn.map { quoteIdentifier($0) + ", " } ?? ""
                joins.append(
                    (
                        relationship.name, relationship.destination,
                        "SELECT \(quoteIdentifier(join.memberColumn)) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.ownerColumn)) = ? ORDER BY \(order)\(quoteIdentifier(join.memberColumn))"
                    ))
            }
            var lines = [(columns + joins.map(\.name)).map { CSVFormat.field($0) }.joined(separator: ",")]
            // Links to a row whose key is NULL cannot be listed by key: counted, and said in a note.
            var unlisted: [String: Int] = [:]
            var unnamed: [String: Int] = [:]
            let inherits = root(entity.name) != entity.name || model.entities.contains { $0.parent == entity.name }
            for row in rowsByEntity[entity.name] ?? [] {
                var fields: [String] = []
                for column in columns {
                    if let attribute = flat.attributes.first(where: { $0.name == column }) {
                        fields.append(
                            CSVFormat.field(
                                value(
                                    row[SQLName(storeColumn(column))],
                                    type: attribute.storesJSON ? "JSON" : attribute.type)
                            ))
                    } else if let relationship = flat.relationships.first(where: { $0.name == column }) {
                        var stored = storeColumn(column)
                        // Another entity's inverse-less to-many: the dialect's column for it (`Z3BOOKS` for `Shelf.books`).
                        if relationship.ownersToMany, let held = dialect?.columnName(column, in: entity.name) {
                            stored = held
                        }
                        let value = row[SQLName(stored)] ?? .null
                        let target: Int64? =
                            switch value {
                            case .integer(let number): number
                            case .real(let number): Int64(exactly: number)
                            default: nil
                            }
                        // A to-one relationship's column holds the target's Z_PK: anything else is not Core Data's.
                        if target == nil && value != .null {
                            throw SeedCatalog.foreign(
                                "\(stored) of an \(entity.name) row holds \(value), not the primary key of a row Core Data writes there",
                                writer: "Core Data")
                        }
                        let key = try reference(
                            target, to: relationship.destination, db: db, positions: positions, from: entity.name)
                        // A link the fixture cannot name is counted and said, never dropped in silence.
                        if target != nil && key == nil { unnamed[column, default: 0] += 1 }
                        fields.append(CSVFormat.field(key))
                    } else {
                        fields.append("")
                    }
                }
                for join in joins {
                    let members = try Int64.fetchAll(
                        db, sql: join.sql, arguments: [CoreDataDialect.primaryKey(of: row) ?? 0])
                    let keys = try members.compactMap {
                        try reference($0, to: join.destination, db: db, positions: positions, from: entity.name)
                    }
                    if keys.count < members.count { unlisted[join.name, default: 0] += members.count - keys.count }
                    fields.append(CSVFormat.field(Self.keyList(keys)))
                }
                lines.append(fields.joined(separator: ","))
            }
            // A many-to-many no fixture lists (its destination has no one-column key): its links
            // are counted and said, never dropped in silence (XCServerCoreData's Configuration.repositories).
            for relationship in plan.unlistedManyToMany(entity.name) {
                guard
                    let join = try dialect?.joinTable(
                        db, entity: entity.name, relationship: relationship.name,
                        destination: relationship.destination)
                else { continue }
                let owners = (rowsByEntity[entity.name] ?? []).compactMap { CoreDataDialect.primaryKey(of: $0) }
                guard !owners.isEmpty else { continue }
                let count =
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT count(*) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.ownerColumn)) IN (\(owners.map(String.init).joined(separator: ", ")))"
                    ) ?? 0
                guard count > 0 else { continue }
                let keyless = plan.key(relationship.destination)?.count == 1 ? entity.name : relationship.destination
                notes[entity.name, default: []].append(
                    "\(count) link\(count == 1 ? "" : "s") of \(entity.name).\(relationship.name) left out: \(keyless) has no one-column key, so a fixture cannot list them"
                )
            }
            for (name, count) in unlisted.sorted(by: { $0.key < $1.key }) {
                notes[entity.name, default: []].append(
                    "\(count) link\(count == 1 ? "" : "s") of \(entity.name).\(name) left out: the related row has no key"
                )
            }
            for (name, count) in unnamed.sorted(by: { $0.key < $1.key }) {
                let destination = flat.relationships.first { $0.name == name }?.destination ?? name
                notes[entity.name, default: []].append(
                    "\(count) link\(count == 1 ? "" : "s") of \(entity.name).\(name) left out: no column of \(destination)'s key tells its rows apart, so a ref cannot name them"
                )
            }
            if inherits, plan.key(entity.name) == nil, rowsByEntity[entity.name]?.isEmpty == false {
                notes[entity.name, default: []].append(
                    "\(entity.name) shares its table with other entities of its lineage, so a relationship to it without a key cannot be given as a \(CoreDataDialect.primaryKeyColumn); such relationships are left empty"
                )
            }
            fixtures[entity.name] = lines.joined(separator: "\n") + "\n"
            rowCounts[entity.name] = lines.count - 1
        }
    }

    /// A many-to-many's keys as one CSV field: `Mint, Lime`, or a JSON array when a key holds a
    /// comma, starts with `[` or has spaces at an end (docs/core-data.md); nil for none.
    static func keyList(_ keys: [String]) -> String? {
        guard !keys.isEmpty else { return nil }
        let plain = keys.allSatisfy {
            !$0.isEmpty && !$0.contains(",") && !$0.hasPrefix("[") && $0.trimmingCharacters(in: .whitespaces) == $0
        }
        if plain { return keys.joined(separator: ", ") }
        return "[" + keys.map(DocNode.quote).joined(separator: ",") + "]"
    }

    /// A to-one's value: the related row's key, or the Z_PK the build gives it; nil when unknown.
    func reference(
        _ target: Int64?, to destination: String, db: Database, positions: [String: [Int64: Int]], from entity: String
    ) throws -> String? {
        guard let target else { return nil }
        if let column = plan.refColumn(destination),
            let attribute = model.flattened(destination)?.attributes.first(where: { $0.name == column })
        {
            let value = try CoreDataDialect.value(
                db,
                column: model.storeColumns(destination)[column] ?? CoreDataDialect.storeColumn(ofProperty: column),
                table: table(destination),
                primaryKey: target)
            return self.value(value, type: attribute.type)
        }
        // Only where the destination's table holds that entity alone does a line number stay its Z_PK.
        let alone = root(destination) == destination && !model.entities.contains { $0.parent == destination }
        guard alone, let position = positions[destination]?[target] else { return nil }
        return String(position)
    }

    /// `value`, stored for an attribute of `type`, as a fixture writes it; nil for NULL.
    func value(_ value: SQLValue?, type: String) -> String? {
        guard let value else { return nil }
        switch value {
        case .null:
            return nil
        case .integer(let number):
            if type == "Boolean" { return number == 0 ? "false" : "true" }
            if type == "Date" { return Self.isoDate(Double(number)) }
            return String(number)
        case .real(let number):
            if type == "Date" { return Self.isoDate(number) }
            return Self.number(number)
        case .text(let text):
            return text
        case .blob(let data):
            if type == "UUID", data.count == 16 {
                let b = data
                let uuid = UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    ))
                return uuid.uuidString
            }
            // A composite's Codable collection: its JSON, when the bytes are text (else base64, as any Binary).
            if type == "JSON", let text = String(validating: data, as: UTF8.self) { return text }
            return Data(data).base64EncodedString()
        }
    }

    /// A number as its shortest text that reads back as the same Double.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Seconds since 2001-01-01 UTC as a fixture gives them back exactly: ISO 8601 (UTC) for a
    /// whole second; otherwise the number of seconds itself (which `build` also takes for a
    /// Date), since a fraction read from ISO 8601 text can come back a bit off in the last digit.
    static func isoDate(_ seconds: Double) -> String? {
        guard seconds.isFinite else { return nil }
        guard seconds == seconds.rounded(), abs(seconds) < 1e11 else { return "\(seconds)" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds)) + "Z"
    }

    /// A copy of the store at `path` with every row taken out (entity tables, join tables, history),
    /// `Z_MAX` back to 0, `Z_METADATA` and `Z_MODELCACHE` kept: the store as the app created it.
    static func emptiedTemplate(_ path: String) throws(SeedError) -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-init-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: path), to: scratch)
            let queue = try DatabaseQueue(path: scratch.path)
            try queue.writeWithoutTransaction { db in
                try db.inTransaction {
                    try CoreDataDialect.emptyIntoTemplate(db)
                    return .commit
                }
                try db.execute(sql: "VACUUM")
            }
            try queue.close()
            return try Data(contentsOf: scratch)
        } catch {
            throw SeedError(
                .io, file: path,
                "cannot make the template from the store: \((error as? DatabaseError)?.message ?? "\(error)"); nothing was written"
            )
        }
    }
}
