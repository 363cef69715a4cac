import Foundation
public import GRDB

/// Writes rows into a Core Data SQLite store the way Core Data itself does (SPEC §9).
///
/// Names in migrations are the model's: entity `BookCategory` is table `ZBOOKCATEGORY`
/// (sub-entities share their root entity's table), attribute or to-one relationship
/// `category` is column `ZCATEGORY`. A new row gets `Z_PK` = its root entity's
/// `Z_PRIMARYKEY.Z_MAX` + 1 (and `Z_MAX` moves on), `Z_ENT` from `Z_PRIMARYKEY`, `Z_OPT` 1.
/// A row that changes gets `Z_OPT` + 1, and so does the other side of every to-one
/// relationship that is set, changed or cleared (its to-many inverse changed). A to-one
/// relationship whose inverse is an *ordered* to-many has an order column beside it
/// (`ZBOOK` and `Z_FOK_BOOK` in `ZPAGE`): a row that joins a parent goes last in the
/// parent's order (see ``orderKeyStep``). Dates (`TIMESTAMP` columns) are seconds since
/// 2001-01-01 00:00:00 UTC. `Z_METADATA` is not touched.
public struct CoreDataDialect: StoreDialect {
    /// An entity as `Z_PRIMARYKEY` lists it.
    public struct Entity: Sendable, Equatable {
        public var number: Int64
        public var name: String
        public var superEntity: Int64
    }

    public let entities: [Entity]

    /// The gap between consecutive order keys (`Z_FOK_…` values) that seedkit writes. Core
    /// Data reads an ordered relationship by sorting on its order column, so only the order
    /// matters; the gap leaves room for Core Data to place rows in between. (1024 is what
    /// stores written by Core Data have been observed to use; it was not checked on a device here.)
    public static let orderKeyStep: Int64 = 1024

    /// The order column for to-one relationship column `column` (`ZBOOK` → `Z_FOK_BOOK`) when `table` has one.
    public static func orderColumn(for column: String, in table: TableInfo) -> String? {
        guard column.hasPrefix("Z"), !column.hasPrefix("Z_") else { return nil }
        return table.column("Z_FOK_" + column.dropFirst())?.name
    }

    public var name: String { "coredata" }

    /// The dialect for `db` when it is a Core Data store (it has `Z_PRIMARYKEY` and `Z_METADATA`), else nil.
    ///
    /// - throws: ``SeedError`` (refused) when `Z_PRIMARYKEY` disagrees with the tables: a row
    ///   whose `Z_PK` is above its entity's `Z_MAX` would collide with the next row Core Data adds.
    public static func detect(_ db: Database) throws -> CoreDataDialect? {
        guard let dialect = try read(db) else { return nil }
        if let problem = try dialect.keyProblems(db).first {
            throw SeedError(.refused, problem + "; nothing was written")
        }
        return dialect
    }

    /// The dialect of a Core Data store without judging it (for `verify`, which reports problems instead).
    public static func read(_ db: Database) throws -> CoreDataDialect? {
        guard try db.tableExists("Z_PRIMARYKEY"), try db.tableExists("Z_METADATA") else { return nil }
        let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { row in
            Entity(number: row[0], name: row[1], superEntity: row[2] ?? 0)
        }
        return CoreDataDialect(entities: entities)
    }

    /// Root entities whose table holds a Z_PK above their Z_MAX: a new row would reuse a key.
    public func keyProblems(_ db: Database) throws -> [String] {
        var problems: [String] = []
        for entity in entities where entity.superEntity == 0 {
            let table = tableName(entity.name)
            guard try db.tableExists(table) else { continue }
            let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(quoteIdentifier(table))") ?? 0
            let recorded = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity.number]) ?? 0
            if highest > recorded {
                problems.append("Z_PRIMARYKEY says the highest \(entity.name) Z_PK is \(recorded), but \(table) has \(highest): the store is inconsistent, and a new row would reuse a key")
            }
        }
        return problems
    }

    /// The entity whose root's table is `table`, for a row written there (the root itself).
    private func entity(forTable table: String) -> Entity? {
        entities.first { $0.superEntity == 0 && tableName($0.name) == table }
    }

    private func root(_ entity: Entity) -> Entity {
        lineage(of: entity).last ?? entity
    }

    /// `entity` and the entities it inherits from, nearest first.
    func lineage(of entity: Entity) -> [Entity] {
        var lineage = [entity]
        while let current = lineage.last, current.superEntity != 0, !lineage.contains(where: { $0.number == current.superEntity }),
              let parent = entities.first(where: { $0.number == current.superEntity }) {
            lineage.append(parent)
        }
        return lineage
    }

    public func tableName(_ name: String) -> String {
        if name.hasPrefix("Z") && name == name.uppercased() { return name }  // already a table name
        let entity = entities.first { $0.name == name }.map(root)
        return "Z" + (entity?.name ?? name).uppercased()
    }

    public func columnName(_ name: String) -> String {
        name.hasPrefix("Z") && name == name.uppercased() ? name : "Z" + name.uppercased()
    }

    public func columnType(_ column: ColumnInfo) -> ColumnType {
        column.declaredType.uppercased() == "TIMESTAMP" ? .referenceDate : column.type
    }

    public func insert(_ db: Database, into table: TableInfo, name: String, values: [(column: String, value: SQLValue)], references: [String: String]) throws {
        // A sub-entity's rows live in its root's table with the sub-entity's Z_ENT; keys come from the root's Z_MAX.
        guard let entity = entities.first(where: { $0.name == name }) ?? entity(forTable: table.name) else {
            throw SeedError(.configuration, "\(table.name) is not the table of an entity in Z_PRIMARYKEY")
        }
        let root = root(entity)
        let highest = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [root.number]) ?? 0
        let primaryKey = highest + 1
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [primaryKey, root.number])
        var all = [(column: "Z_PK", value: SQLValue.integer(primaryKey)), ("Z_ENT", .integer(entity.number)), ("Z_OPT", .integer(1))] + values
        for (column, value) in values where value != .null {
            if let order = Self.orderColumn(for: column, in: table) {
                all.append((order, try nextOrderKey(db, table: table, column: column, orderColumn: order, parent: value)))
            }
        }
        let columns = all.map { quoteIdentifier($0.column) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: all.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO \(quoteIdentifier(table.name)) (\(columns)) VALUES (\(marks))")
            .execute(arguments: StatementArguments(all.map(\.value)))
        for (column, value) in values where value != .null {
            if let parent = references[column] { try bumpOptimisticLock(db, table: parent, primaryKey: value) }
        }
    }

    public func update(_ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)], values: [(column: String, value: SQLValue)], references: [String: String]) throws {
        let ordered = values.map(\.column).filter { Self.orderColumn(for: $0, in: table) != nil }
        let before = try relationships(db, table: table, key: key, columns: Set(references.keys).union(ordered))
        var values = values
        for (column, value) in values {
            // A row that moves to another parent goes last in that parent's order; one that leaves has no place.
            guard let order = Self.orderColumn(for: column, in: table), !(before[column] ?? .null).isSame(as: value) else { continue }
            values.append((order, value == .null ? .null : try nextOrderKey(db, table: table, column: column, orderColumn: order, parent: value)))
        }
        let assignments = (values.map { "\(quoteIdentifier($0.column)) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(quoteIdentifier(table.name)) SET \(assignments) WHERE \(keyPredicate(key))")
            .execute(arguments: StatementArguments(values.map(\.value) + key.map(\.value)))
        for (column, value) in values {
            guard let parent = references[column], let old = before[column], !old.isSame(as: value) else { continue }
            if old != .null { try bumpOptimisticLock(db, table: parent, primaryKey: old) }
            if value != .null { try bumpOptimisticLock(db, table: parent, primaryKey: value) }
        }
    }

    public func delete(_ db: Database, from table: TableInfo, key: [(column: String, value: SQLValue)], references: [String: String]) throws {
        let before = try relationships(db, table: table, key: key, columns: Set(references.keys))
        try db.cachedStatement(sql: "DELETE FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))")
            .execute(arguments: StatementArguments(key.map(\.value)))
        for (column, value) in before where value != .null {
            if let parent = references[column] { try bumpOptimisticLock(db, table: parent, primaryKey: value) }
        }
    }

    /// The order key after the last row of `parent` in `table`'s ordered relationship.
    private func nextOrderKey(_ db: Database, table: TableInfo, column: String, orderColumn: String, parent: SQLValue) throws -> SQLValue {
        let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(\(quoteIdentifier(orderColumn))) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column)) = ?"), arguments: [parent]) ?? 0
        return .integer(last + Self.orderKeyStep)
    }

    /// The values of `columns` (to-one relationships) in the row with `key`.
    private func relationships(_ db: Database, table: TableInfo, key: [(column: String, value: SQLValue)], columns: Set<String>) throws -> [String: SQLValue] {
        let columns = columns.sorted()
        guard !columns.isEmpty, let row = try Row.fetchOne(db, sql: "SELECT \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table.name)) WHERE \(keyPredicate(key))", arguments: StatementArguments(key.map(\.value))) else { return [:] }
        var result: [String: SQLValue] = [:]
        for (index, column) in columns.enumerated() { result[column] = SQLValue.fromDatabaseValue(row[index]) ?? .null }
        return result
    }

    /// `Z_OPT` + 1 on the row a relationship points at: its to-many inverse changed.
    private func bumpOptimisticLock(_ db: Database, table: String, primaryKey: SQLValue) throws {
        try db.cachedStatement(sql: "UPDATE \(quoteIdentifier(table)) SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ?").execute(arguments: [primaryKey])
    }
}
