import Foundation
import GRDB

/// Writes rows into a Core Data SQLite store the way Core Data itself does (docs/core-data.md, "Writing as Core Data does").
///
/// Names in migrations are the model's: entity `BookCategory` is table `ZBOOKCATEGORY`
/// (sub-entities share their root entity's table), attribute or to-one relationship
/// `category` is column `ZCATEGORY`; an entity a model version renamed is found under its
/// renaming identifier (``CoreDataModelFacts/renamings``). A new row gets `Z_PK` = its root
/// entity's `Z_PRIMARYKEY.Z_MAX` + 1 (and `Z_MAX` moves on; a `Z_MAX` of -1 is left as it is
/// and the key follows the table's highest `Z_PK`), `Z_ENT` from `Z_PRIMARYKEY`, `Z_OPT` 1,
/// and the model's defaults (the whole lineage's) for attributes it is not given.
/// A row that changes gets `Z_OPT` + 1, and so does the other side of every relationship
/// that is set, changed or cleared — unless that row was inserted by this same run (Core
/// Data saves it once, at `Z_OPT` 1). A to-one relationship to an entity with sub-entities
/// has an entity-type column beside it (`ZBOOK` and `Z1_BOOK`), which gets the target's
/// `Z_ENT`; a one-to-one relationship stores its key on both sides; a to-one relationship
/// whose inverse is an *ordered* to-many has an order column beside it (`ZBOOK` and
/// `Z_FOK_BOOK` in `ZPAGE`): a row that joins a parent goes last in the parent's order (see
/// ``orderKey(after:)``). Dates (`TIMESTAMP` columns) are seconds since 2001-01-01 00:00:00
/// UTC. `Z_METADATA` is not touched.
package struct CoreDataDialect: StoreDialect {
    /// An entity as `Z_PRIMARYKEY` lists it.
    package struct Entity: Sendable, Equatable {
        package var number: Int64
        package var name: String
        package var superEntity: Int64
    }

    package let entities: [Entity]
    /// What the model says beyond the schema (recorded in the seed, or from the manifest's model).
    package let facts: CoreDataModelFacts
    /// The store's tables, upper-cased, to find a renamed entity's table.
    let tables: Set<String>
    /// Derived-attribute triggers seedkit cannot run, by the table whose writes fire them.
    let blockedTables: [String: String]
    /// Rows this run inserted: linking them does not bump their `Z_OPT`; and, when the dialect
    /// writes persistent history, what changed, as Core Data would record it.
    let session = Session()
    /// Whether this run records its changes and writes them to the store's persistent history
    /// (``writeHistory(_:transaction:)``): set by ``detect(_:facts:allowingMissingHistory:allowingCloudKit:)``
    /// for a store that tracks history.
    package private(set) var writesHistory = false

    /// The first order key of an ordered relationship: Core Data's stores start at 2048.
    package static let firstOrderKey: Int64 = 2048
    /// The step between order keys (2048, 3072, 4096, …), leaving room to place rows in between.
    package static let orderKeyStep: Int64 = 1024

    /// The order key after `last` (nil: the relationship has no member yet).
    package static func orderKey(after last: Int64?) -> Int64 {
        last.map { $0 + orderKeyStep } ?? firstOrderKey
    }

    /// The order key of the member at `index` (0-based) of a relationship written from scratch.
    package static func orderKey(at index: Int) -> Int64 {
        firstOrderKey + Int64(index) * orderKeyStep
    }

    /// The order column for to-one relationship column `column` (`ZBOOK` → `Z_FOK_BOOK`) when `table` has one.
    package static func orderColumn(for column: String, in table: TableInfo) -> String? {
        guard column.hasPrefix("Z"), !column.hasPrefix("Z_") else { return nil }
        return table.column("Z_FOK_" + column.dropFirst())?.name
    }

    /// The entity-type column for to-one relationship column `column` (`ZBOOK` → `Z1_BOOK`)
    /// when `table` has one: Core Data adds it when the target entity has sub-entities.
    package static func entityTypeColumn(for column: String, in table: TableInfo) -> String? {
        guard column.hasPrefix("Z"), !column.hasPrefix("Z_") else { return nil }
        let relationship = column.dropFirst().uppercased()
        return table.columns.first { entityTypeRelationship($0.name)?.uppercased() == relationship }?.name
    }

    /// Whether `column` is Core Data bookkeeping rather than an attribute or relationship:
    /// `Z_PK`, `Z_ENT`, `Z_OPT`, order keys (`Z_FOK_…`) and entity-type columns (`Z1_BOOK`).
    package static func isBookkeeping(_ column: String) -> Bool {
        column.hasPrefix("Z_") || isEntityTypeColumn(column)
    }

    /// `Z<digits>_<NAME>`: an entity-type column.
    static func isEntityTypeColumn(_ column: String) -> Bool {
        entityTypeRelationship(column) != nil
    }

    /// `BOOK` for entity-type column `Z1_BOOK`; nil for other names.
    static func entityTypeRelationship(_ column: String) -> Substring? {
        guard column.hasPrefix("Z") else { return nil }
        let digits = column.dropFirst().prefix { $0.isASCII && $0.isNumber }
        let rest = column.dropFirst(1 + digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_"), rest.count > 1 else { return nil }
        return rest.dropFirst()
    }

    package var name: String { "coredata" }

    /// The composite elements the model has (`size.width`): the only dotted names that are columns.
    let compositeElements: Set<String>

    /// The columns Core Data keeps inverse-less to-many relationships in, by the owner's
    /// relationship (`Shelf.books` → `Z3BOOKS`, in the destination's table): the name a fixture,
    /// a migration and `inspect` give such a column (docs/core-data.md, "Deletes and pointers to a row").
    let heldToManyColumns: [String: String]
    /// Each entity's columns (by the model's name), by the rule the real stores show (``columnLayout(_:)``).
    let layouts: [String: ColumnLayout]
    /// Each table's property → column, its entities' (root first) merged: for a caller that knows only the table.
    private(set) var layoutsByTable: [SQLName: [String: String]] = [:]

    init(entities: [Entity], facts: CoreDataModelFacts, tables: Set<String>, blockedTables: [String: String]) {
        self.entities = entities
        self.facts = facts
        compositeElements = Set(
            facts.history.values.flatMap(\.properties).filter { $0.composite && $0.name.contains(".") }.map(\.name))
        layouts = facts.history.mapValues { Self.columnLayout(of: $0.properties) }
        self.tables = tables
        self.blockedTables = blockedTables
        heldToManyColumns = Self.heldToManyColumns(facts, entities: entities)
        for entity in entities {
            let model = modelName(of: entity)
            guard let layout = layouts[model] else { continue }
            layoutsByTable[SQLName(tableName(model)), default: [:]].merge(layout.columns) { first, _ in first }
        }
    }

    /// The dialect for writing into `db` when it is a Core Data store (it has `Z_PRIMARYKEY` and `Z_METADATA`), else nil.
    ///
    /// Registers on `db` the functions Core Data's derived-attribute triggers call to tell
    /// Core Data's own context that a row changed (they do nothing here: no context is open).
    ///
    /// A store that tracks persistent history gets history entries for what the dialect writes
    /// (``writesHistory``; the caller writes them with ``writeHistory(_:transaction:)``), unless
    /// `allowingMissingHistory`.
    ///
    /// - Parameters:
    ///   - db: the store.
    ///   - facts: the model's facts when the caller has the model (they win over the seed's).
    ///   - allowingMissingHistory: write without history entries although the store tracks history.
    ///   - allowingCloudKit: write history into a store mirrored to CloudKit (`ANSCK…` tables).
    /// - throws: ``SeedError`` (refused) when `Z_PRIMARYKEY` disagrees with the tables (a row
    ///   whose `Z_PK` is above its entity's `Z_MAX` would collide with the next row Core Data
    ///   adds), or when the store tracks persistent history that seedkit cannot write (see
    ///   ``refuseUnwritableHistory(_:tables:allowingCloudKit:)``) and `allowingMissingHistory` is false.
    /// - Returns: the dialect, or nil for a store that is not Core Data's.
    package static func detect(
        _ db: Database, facts: CoreDataModelFacts? = nil, allowingMissingHistory: Bool = false,
        allowingCloudKit: Bool = false
    ) throws -> CoreDataDialect? {
        guard var dialect = try read(db, facts: facts) else { return nil }
        if let problem = try (dialect.keyProblems(db) + dialect.numberedColumnProblems(db).map(\.message)).first {
            throw SeedError(.refused, problem + "; nothing was written")
        }
        if !allowingMissingHistory, let tables = try historyTables(db) {
            try dialect.refuseUnwritableHistory(db, tables: tables, allowingCloudKit: allowingCloudKit)
            dialect.writesHistory = true
        }
        registerTriggerFunctions(db)
        return dialect
    }

    /// The dialect of a Core Data store without judging it (for reading, and `verify`, which reports problems instead).
    package static func read(_ db: Database, facts: CoreDataModelFacts? = nil) throws -> CoreDataDialect? {
        guard try isStore(db) else { return nil }
        // Core Data's own entities (persistent history's CHANGE, TRANSACTION, TRANSACTIONSTRING at
        // 16001–16003, and any above) are not the model's: by name they would stand for an app's
        // `Transaction` or `Change` entity and its table (ZTRANSACTION), and their Z_MAX for its.
        let entities = try Row.fetchAll(
            db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < ? ORDER BY Z_ENT",
            arguments: [CoreDataHistory.changeEntity]
        ).map { row in
            Entity(
                number: try SeedCatalog.value(row, 0, "Z_PRIMARYKEY", "Z_ENT", writer: "Core Data"),
                name: try SeedCatalog.value(row, 1, "Z_PRIMARYKEY", "Z_NAME", writer: "Core Data"),
                superEntity: try SeedCatalog.optionalValue(row, 2, "Z_PRIMARYKEY", "Z_SUPER", writer: "Core Data") ?? 0)
        }
        let recorded = try CoreDataModelFacts.recorded(db) ?? CoreDataModelFacts()
        let tables = Set(
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0.uppercased() })
        return CoreDataDialect(
            entities: entities, facts: recorded.merged(with: facts), tables: tables,
            blockedTables: try derivedAttributeBlocks(db))
    }

    /// Root entities whose table holds a Z_PK above their Z_MAX: a new row would reuse a key.
    ///
    /// A `Z_MAX` of -1 is not a problem: Core Data leaves it so in stores that hold rows
    /// (observed).
    package func keyProblems(_ db: Database) throws -> [String] {
        var problems: [String] = []
        for entity in entities where entity.superEntity == 0 {
            let table = tableName(entity.name)
            guard try db.tableExists(table) else { continue }
            let recorded =
                try Int64.fetchOne(
                    db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity.number]) ?? 0
            if recorded < 0 { continue }
            let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(quoteIdentifier(table))") ?? 0
            if highest > recorded {
                problems.append(
                    "Z_PRIMARYKEY says the highest \(entity.name) Z_PK is \(recorded), but \(table) has \(highest): the store is inconsistent, and a new row would reuse a key"
                )
            }
        }
        return problems
    }

    // MARK: - Entities

    /// The entity the model calls `name`: found by its name, or by its renaming identifier when
    /// `Z_PRIMARYKEY` keeps the name it had before a model version renamed it.
    package func entity(named name: String) -> Entity? {
        if let renamed = facts.renamings[name], let entity = entities.first(where: { $0.name == renamed }) {
            return entity
        }
        return entities.first { $0.name == name }
    }

    /// The name the model uses for `entity` (its current name when it was renamed).
    package func modelName(of entity: Entity) -> String {
        facts.renamings.first { $0.value == entity.name }?.key ?? entity.name
    }

    /// The entity whose root's table is `table`, for a row written there (the root itself).
    private func entity(forTable table: String) -> Entity? {
        entities.first { $0.superEntity == 0 && tableName($0.name) == table }
    }

    /// The root of `entity`'s lineage: the entity whose table its rows live in.
    public func root(_ entity: Entity) -> Entity {
        lineage(of: entity).last ?? entity
    }

    /// `entity` and the entities it inherits from, nearest first.
    func lineage(of entity: Entity) -> [Entity] {
        var lineage = [entity]
        while let current = lineage.last, current.superEntity != 0,
            !lineage.contains(where: { $0.number == current.superEntity }),
            let parent = entities.first(where: { $0.number == current.superEntity })
        {
            lineage.append(parent)
        }
        return lineage
    }

    /// The model's names of the entity the model calls `name` and of its ancestors, nearest first.
    public func lineageNames(of name: String) -> [String] {
        entity(named: name).map { lineage(of: $0).map(modelName) } ?? [name]
    }

    /// The `Z_ENT` numbers of `entity` and of every entity inheriting from it: the rows a fetch of `entity` returns.
    package func family(of entity: Entity) -> [Int64] {
        entities.filter { lineage(of: $0).contains { $0.number == entity.number } }.map(\.number)
    }

    /// `Z_ENT IN (…)` for the rows of the entity the model calls `name` (and its sub-entities),
    /// or nil when `name` is not an entity of a table shared with others.
    package func rowFilter(_ name: String) -> String? {
        guard let entity = entity(named: name) else { return nil }
        return "Z_ENT IN (\(family(of: entity).map(String.init).joined(separator: ", ")))"
    }

    /// The rows of entity `name` itself, not of those inheriting from it, in a table aliased
    /// `alias` (what a build's read-back compares with the entity's fixture); nil for no entity.
    package func ownRowFilter(_ name: String, alias: String) -> String? {
        entity(named: name).map { "\(alias).Z_ENT = \($0.number)" }
    }

    package func tableName(_ name: String) -> String {
        if name.hasPrefix("Z") && name == name.uppercased() { return name }  // already a table name
        guard let entity = entity(named: name) else {
            // A table of the store that is no entity's (history, CloudKit's): itself.
            let upper = name.uppercased()
            return tables.contains(upper) && !tables.contains("Z" + upper) ? name : "Z" + upper
        }
        let root = root(entity)
        let stored = "Z" + root.name.uppercased()
        if tables.contains(stored) { return stored }
        let current = "Z" + modelName(of: root).uppercased()
        return tables.contains(current) ? current : stored
    }

    package func columnType(_ column: ColumnInfo) -> ColumnType {
        column.declaredType.uppercased() == "TIMESTAMP" ? .referenceDate : column.type
    }

    /// For reading rows in the app's terms (`diff`, `new-migration`, `check-upgrade`): each
    /// `UUID` attribute's column of `info` → SQL that reads its 16 bytes as the text form a
    /// migration gives (`0E8F1C0A-1D52-…`, upper case, as `UUID.uuidString`), and each JSON
    /// element's (a composite's `Codable` collection) → its text; other values as stored.
    package func uuidTextExpressions(_ info: TableInfo) -> [String: String] {
        var expressions: [String: String] = [:]
        for column in adjusted(info).columns where column.type == .uuid {
            expressions[column.name] = Self.uuidTextSQL(quoteIdentifier(column.name))
        }
        // A composite's Codable collection: its JSON as text (docs/core-data.md, "Composite attributes").
        for column in adjusted(info).columns where column.type == .json {
            let name = quoteIdentifier(column.name)
            expressions[column.name] = "CASE WHEN typeof(\(name)) = 'blob' THEN CAST(\(name) AS TEXT) ELSE \(name) END"
        }
        return expressions
    }

    /// SQL reading `expression`, a UUID attribute's value, as its text: 16 bytes in the form
    /// `UUID.uuidString` prints (8-4-4-4-12, upper case); any other value as it is.
    ///
    /// The one SQL rendering of a UUID (``SQLValue/uuidText`` is the Swift one).
    package static func uuidTextSQL(_ expression: String) -> String {
        let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(hex(\(expression)), \($0.0), \($0.1))" }
        return "CASE WHEN typeof(\(expression)) = 'blob' AND length(\(expression)) = 16 THEN "
            + parts.joined(separator: " || '-' || ") + " ELSE \(expression) END"
    }

    /// Columns typed as the model stores them: a `UUID` attribute's `BLOB` column converts the
    /// standard text form (`0E0D0C0B-0A09-…`) to its 16 bytes.
    package func adjusted(_ info: TableInfo) -> TableInfo {
        var info = info
        for entity in entities where tableName(entity.name) == info.name {
            for (attribute, type) in facts.attributeTypes[modelName(of: entity)] ?? [:]
            where type == "UUID" || type == "JSON" {
                guard let column = info.column(columnName(attribute, in: modelName(of: entity))),
                    let index = info.columns.firstIndex(of: column)
                else { continue }
                info.columns[index].type = type == "UUID" ? .uuid : .json
            }
        }
        return info
    }

    // MARK: - Writing

    @discardableResult
    package func insert(
        _ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)],
        references: [String: String]
    ) throws -> Int {
        try refuseBlocked(table.name)
        // A sub-entity's rows live in its root's table with the sub-entity's Z_ENT; keys come from the root's Z_MAX.
        guard let entity = entity(named: name) ?? entity(forTable: table.name) else {
            throw SeedError(.configuration, "\(table.name) is not the table of an entity in Z_PRIMARYKEY")
        }
        let primaryKey = try allocateKey(db, root: root(entity), table: table.name)
        var all =
            [
                (column: "Z_PK", value: SQLValue.integer(primaryKey)), ("Z_ENT", .integer(entity.number)),
                ("Z_OPT", .integer(1)),
            ] + values
        // What the row is not given gets the model's default, as Core Data gives every new object.
        for (attribute, literal) in (facts.defaults[modelName(of: entity)] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let column = table.column(columnName(attribute, in: modelName(of: entity))),
                !all.contains(where: { $0.column.isSameName(as: column.name) }),
                let value = SQLValue(sqlLiteral: literal)
            else { continue }
            all.append((column.name, value))
        }
        for (column, value) in values where value != .null {
            if let order = Self.orderColumn(for: column, in: table) {
                all.append(
                    (order, try nextOrderKey(db, table: table, column: column, orderColumn: order, parent: value)))
            }
            if let typeColumn = Self.entityTypeColumn(for: column, in: table), let parent = references[column] {
                all.append((typeColumn, try entityNumber(db, table: parent, primaryKey: value)))
            }
        }
        let columns = all.map { quoteIdentifier($0.column) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: all.count).joined(separator: ", ")
        try db.cachedStatement(
            sql: "INSERT OR ABORT INTO \(quoteIdentifier(table.name)) (\(columns)) VALUES (\(marks))"
        )
        .execute(binding: all.lazy.map(\.value))  // an empty blob as X'' (Statement+Direct)
        let changed = db.changesCount
        guard changed > 0 else { return 0 }  // vetoed by a trigger: no bookkeeping for a row that is not there
        session.insert(table.name, primaryKey)
        recordInsert(entity: entity, primaryKey: primaryKey)
        for (column, value) in values where value != .null {
            guard let parent = references[column] else { continue }
            if let inverse = oneToOneInverse(entity, column: column, parentTable: parent) {
                try setInverse(
                    db, parentTable: parent, parent: value, inverse: inverse, owner: .integer(primaryKey),
                    ownerTable: table.name, ownerColumn: column)
            }
            try recordInverseUpdate(db, entity: entity, column: column, parentTable: parent, parent: value)
            try bumpOptimisticLock(db, table: parent, primaryKey: value)
        }
        return changed
    }

    @discardableResult
    package func update(
        _ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)],
        values: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int {
        try refuseBlocked(table.name)
        let ordered = values.map(\.column).filter { Self.orderColumn(for: $0, in: table) != nil }
        let written = values.map(\.column).filter { !Self.isBookkeeping($0) }
        let before = try relationships(
            db, table: table, key: key,
            columns: Set(references.keys).union(ordered).union(written).union(["Z_PK", "Z_ENT"]))
        // The properties that change, for persistent history (before order keys and entity-type columns join the values).
        let changedColumns = values.filter {
            !Self.isBookkeeping($0.column) && !(before[$0.column] ?? .null).isSame(as: $0.value)
        }.map(\.column)
        var values = values
        for (column, value) in values {
            guard !(before[column] ?? .null).isSame(as: value) else { continue }
            // A row that moves to another parent goes last in that parent's order; one that leaves has no place.
            if let order = Self.orderColumn(for: column, in: table) {
                values.append(
                    (
                        order,
                        value == .null
                            ? .null
                            : try nextOrderKey(db, table: table, column: column, orderColumn: order, parent: value)
                    ))
            }
            if let typeColumn = Self.entityTypeColumn(for: column, in: table), let parent = references[column] {
                values.append(
                    (typeColumn, value == .null ? .null : try entityNumber(db, table: parent, primaryKey: value)))
            }
        }
        // One run is one save: it writes an object new in it at Z_OPT 1, and moves any other on once.
        let bumps =
            if case .integer(let key) = before["Z_PK"] ?? .null { session.bumps(table.name, key) } else { true }
        let assignments =
            (values.map { "\(quoteIdentifier($0.column)) = ?" } + (bumps ? ["Z_OPT = Z_OPT + 1"] : [])).joined(
                separator: ", ")
        try db.cachedStatement(
            sql: "UPDATE OR ABORT \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(keyPredicate(key))"
        )
        .execute(binding: (values + key).lazy.map(\.value))
        let changed = db.changesCount
        guard changed > 0 else { return 0 }
        let owner = before["Z_PK"] ?? .null
        let entity = entities.first { SQLValue.integer($0.number) == before["Z_ENT"] }
        if let entity {
            // A link of another entity's inverse-less to-many (`Shelf.books`) is the owner's change, not this row's.
            recordUpdate(
                entity: entity, primaryKey: owner,
                properties: Set(changedColumns.map { propertyName(ofColumn: $0, entity: entity) }).filter {
                    !$0.contains(".")
                })
        }
        for (column, value) in values {
            guard let parent = references[column], let old = before[column], !old.isSame(as: value) else { continue }
            let inverse = entity.flatMap { oneToOneInverse($0, column: column, parentTable: parent) }
            if old != .null {
                if let inverse { try clearInverse(db, parentTable: parent, parent: old, inverse: inverse) }
                try recordInverseUpdate(db, entity: entity, column: column, parentTable: parent, parent: old)
                try bumpOptimisticLock(db, table: parent, primaryKey: old)
            }
            if value != .null {
                if let inverse {
                    try setInverse(
                        db, parentTable: parent, parent: value, inverse: inverse, owner: owner, ownerTable: table.name,
                        ownerColumn: column)
                }
                try recordInverseUpdate(db, entity: entity, column: column, parentTable: parent, parent: value)
                try bumpOptimisticLock(db, table: parent, primaryKey: value)
            }
        }
        return changed
    }

    @discardableResult
    package func delete(
        _ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]
    ) throws -> Int {
        try refuseBlocked(table.name)
        let before = try relationships(
            db, table: table, key: key, columns: Set(references.keys).union(["Z_PK", "Z_ENT"]))
        try db.cachedStatement(sql: "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))")
            .execute(binding: key.lazy.map { $0.value })
        let changed = db.changesCount
        guard changed > 0 else { return 0 }
        let entity = entities.first { SQLValue.integer($0.number) == before["Z_ENT"] }
        if let entity { recordDelete(entity: entity, primaryKey: before["Z_PK"] ?? .null) }
        for (column, value) in before.sorted(by: { $0.key < $1.key }) where value != .null {
            guard let parent = references[column] else { continue }
            if let inverse = entity.flatMap({ oneToOneInverse($0, column: column, parentTable: parent) }) {
                try clearInverse(db, parentTable: parent, parent: value, inverse: inverse)
            }
            try recordInverseUpdate(db, entity: entity, column: column, parentTable: parent, parent: value)
            try bumpOptimisticLock(db, table: parent, primaryKey: value)
        }
        // The row's many-to-many links go with it (Nullify; the caller has checked the rules).
        if let entity, let primaryKey = before["Z_PK"] { try unlinkAll(db, entity: entity, primaryKey: primaryKey) }
        return changed
    }

    // MARK: - Helpers

    /// The next `Z_PK` of `root`'s table: `Z_MAX` + 1, moving `Z_MAX` on.
    ///
    /// A `Z_MAX` of -1 (Core Data does not track the highest key there) stays -1, and the key
    /// follows the table's highest.
    private func allocateKey(_ db: Database, root: Entity, table: String) throws -> Int64 {
        let recorded =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [root.number])
            ?? 0
        if recorded < 0 {
            return (try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(quoteIdentifier(table))") ?? 0) + 1
        }
        try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?").execute(arguments: [
            recorded + 1, root.number,
        ])
        return recorded + 1
    }

    /// The order key after the last row of `parent` in `table`'s ordered relationship.
    private func nextOrderKey(_ db: Database, table: TableInfo, column: String, orderColumn: String, parent: SQLValue)
        throws -> SQLValue
    {
        let last = try Int64.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT max(\(quoteIdentifier(orderColumn))) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column)) = ?"
            ), arguments: [parent])
        return .integer(Self.orderKey(after: last))
    }

    /// The `Z_ENT` of the row of `table` whose `Z_PK` is `primaryKey`.
    func entityNumber(_ db: Database, table: String, primaryKey: SQLValue) throws -> SQLValue {
        try SQLValue.fetchOne(
            db.cachedStatement(sql: "SELECT Z_ENT FROM \(quoteIdentifier(table)) WHERE Z_PK = ?"),
            arguments: [primaryKey]) ?? .null
    }

    /// The values of `columns` in the row with `key`.
    private func relationships(
        _ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)], columns: Set<String>
    ) throws -> [String: SQLValue] {
        let columns = columns.sorted()
        guard !columns.isEmpty,
            let row = try db.sqlRow(
                "SELECT \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))",
                binding: key.map { $0.value })
        else { return [:] }
        var result: [String: SQLValue] = [:]
        for (index, column) in columns.enumerated() { result[column] = row[index] }
        return result
    }

    /// The column in `parentTable` that holds the inverse of `entity`'s one-to-one relationship stored in `column`.
    func oneToOneInverse(_ entity: Entity, column: String, parentTable: String) -> String? {
        for ancestor in lineage(of: entity) {
            for (relationship, pair) in facts.oneToOne[modelName(of: ancestor)] ?? [:]
            where columnName(relationship, in: modelName(of: ancestor)).isSameName(as: column) {
                return columnName(pair.inverse, in: pair.destination)
            }
        }
        return nil
    }

    /// `Z_OPT` + 1 on a row whose relationships changed, unless this run inserted it (Core Data
    /// inserts and relates it in one save, at `Z_OPT` 1) or moved it on already (one save, one bump).
    func bumpOptimisticLock(_ db: Database, table: String, primaryKey: SQLValue) throws {
        if case .integer(let key) = primaryKey, !session.bumps(table, key) { return }
        try db.cachedStatement(sql: "UPDATE \(quoteIdentifier(table)) SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ?").execute(
            arguments: [primaryKey])
    }

}
