public import GRDB

/// Many-to-many relationships in a Core Data store: a join table per relationship pair.
///
/// Core Data names the join table and its columns after entity numbers (`Z_ENT`) and
/// relationship names. For `Album.assets` ↔ `Asset.albums` with Album = 26 and Asset = 34,
/// Photos' store has `Z_26ASSETS(Z_26ALBUMS, Z_34ASSETS, Z_FOK_34ASSETS)`: a column holding an
/// entity's `Z_PK` is `Z_<its number><the name of the relationship that points at it>`, and an
/// ordered side has a `Z_FOK_` column named after the column of the rows it orders. seedkit
/// does not derive the table's name from that rule (which side names it is not documented);
/// it finds, in the store's own schema, the table that has the member column and an owner
/// column, so a store whose layout differs is refused rather than guessed at.
extension CoreDataDialect {
    /// Where one side of a many-to-many relationship is stored.
    public struct JoinTable: Sendable, Equatable {
        public var name: String
        /// Holds the `Z_PK` of the row whose relationship this is.
        public var ownerColumn: String
        /// Holds the `Z_PK` of each related row.
        public var memberColumn: String
        /// Orders the members of each owner (the relationship is ordered), or nil.
        public var memberOrderColumn: String?
        /// Orders the owners of each member (the inverse is ordered), or nil.
        public var ownerOrderColumn: String?
    }

    /// The numbers of `entity` and of the entities it inherits from: a join column may be named after any.
    private func numbers(of entity: String) -> [Int64] {
        entities.first { $0.name == entity }.map { lineage(of: $0).map(\.number) } ?? []
    }

    /// The join table of `entity`'s to-many relationship `relationship` to `destination`, or nil
    /// when the store has none (the relationship is not many-to-many, or the store is not laid out so).
    public func joinTable(_ db: Database, entity: String, relationship: String, destination: String) throws -> JoinTable? {
        let owners = numbers(of: entity).map { "Z_\($0)" }
        let members = numbers(of: destination).map { "Z_\($0)\(relationship.uppercased())" }
        for table in try Self.joinTableNames(db) {
            guard let info = try TableInfo.read(db, table: table) else { continue }
            let columns = info.columns.map(\.name).filter { !$0.hasPrefix("Z_FOK_") }
            guard columns.count == 2, let member = columns.first(where: { members.contains($0) }),
                  let owner = columns.first(where: { $0 != member && Self.entityNumberPrefix(of: $0).map(owners.contains) == true }) else { continue }
            return JoinTable(
                name: table, ownerColumn: owner, memberColumn: member,
                memberOrderColumn: info.column("Z_FOK_" + member.dropFirst(2))?.name,
                ownerOrderColumn: info.column("Z_FOK_" + owner.dropFirst(2))?.name)
        }
        return nil
    }

    /// Who, through a join table, still points at the row of `table` whose `Z_PK` is `primaryKey`: `Z_1TAGS.Z_1BOOKS`, or nil.
    public func joinReferrer(_ db: Database, table: String, primaryKey: SQLValue) throws -> String? {
        let numbers = Set(entities.filter { tableName($0.name) == table }.map { "Z_\($0.number)" })
        guard !numbers.isEmpty, primaryKey != .null else { return nil }
        for join in try Self.joinTableNames(db) {
            for column in try TableInfo.read(db, table: join)?.columns ?? [] where !column.name.hasPrefix("Z_FOK_") {
                guard let prefix = Self.entityNumberPrefix(of: column.name), numbers.contains(prefix) else { continue }
                let found = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(join)) WHERE \(quoteIdentifier(column.name)) = ?", arguments: [primaryKey]) ?? 0
                if found > 0 { return "\(join).\(column.name)" }
            }
        }
        return nil
    }

    /// Tables named `Z_<digits><NAME>`: Core Data's join tables.
    static func joinTableNames(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*' ORDER BY name")
    }

    /// `Z_12` for `Z_12TAGS`; nil for names not of that form.
    static func entityNumberPrefix(of column: String) -> String? {
        guard column.hasPrefix("Z_") else { return nil }
        let digits = column.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, column.count > 2 + digits.count else { return nil }
        return "Z_" + digits
    }
}
