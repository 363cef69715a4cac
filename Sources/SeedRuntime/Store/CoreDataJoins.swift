import GRDB

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
    package struct JoinTable: Sendable, Equatable {
        package var name: String
        /// Holds the `Z_PK` of the row whose relationship this is.
        package var ownerColumn: String
        /// Holds the `Z_PK` of each related row.
        package var memberColumn: String
        /// Orders the members of each owner (the relationship is ordered), or nil.
        package var memberOrderColumn: String?
        /// Orders the owners of each member (the inverse is ordered), or nil.
        package var ownerOrderColumn: String?
    }

    /// SQL reading the members of one owner row (bound as `?`, its `Z_PK`) through `join`, each
    /// as `keyExpression` over the member's row `d` of `memberTable`, in the relationship's order.
    package func membersSQL(_ join: JoinTable, memberTable: String, keyExpression: String) -> String {
        let order = join.memberOrderColumn.map { "j.\(quoteIdentifier($0)), " } ?? ""
        let member = "j.\(quoteIdentifier(join.memberColumn))"
        return
            "SELECT \(keyExpression) FROM \(quoteIdentifier(join.name)) AS j JOIN \(quoteIdentifier(memberTable)) AS d ON \(primaryKeySQL(row: "d")) = \(member) WHERE j.\(quoteIdentifier(join.ownerColumn)) = ? ORDER BY \(order)\(member)"
    }

    /// The numbers of `entity` and of the entities it inherits from: a join column may be named after any.
    private func numbers(of entity: String) -> [Int64] {
        self.entity(named: entity).map { lineage(of: $0).map(\.number) } ?? []
    }

    /// The join table of `entity`'s to-many relationship `relationship` to `destination`, or nil
    /// when the store has none (the relationship is not many-to-many, or the store is not laid out so).
    package func joinTable(_ db: Database, entity: String, relationship: String, destination: String) throws
        -> JoinTable?
    {
        let owners = numbers(of: entity).map { "Z_\($0)" }
        let members = numbers(of: destination).map { "Z_\($0)\(relationship.uppercased())" }
        for table in try Self.joinTableNames(db) {
            guard let info = try TableInfo.read(db, table: table) else { continue }
            let columns = info.columns.map(\.name).filter { !$0.hasPrefix("Z_FOK_") }
            guard columns.count == 2, let member = columns.first(where: { members.contains($0) }),
                let owner = columns.first(where: {
                    $0 != member && Self.entityNumberPrefix(of: $0).map(owners.contains) == true
                })
            else { continue }
            return JoinTable(
                name: table, ownerColumn: owner, memberColumn: member,
                memberOrderColumn: info.column("Z_FOK_" + member.dropFirst(2))?.name,
                ownerOrderColumn: info.column("Z_FOK_" + owner.dropFirst(2))?.name)
        }
        return nil
    }

    /// One side of a join table holding the `Z_PK`s of `entity`'s rows.
    private struct JoinSide {
        var table: String
        /// Holds the row's `Z_PK`.
        var column: String
        /// Holds the related rows' `Z_PK`s.
        var other: String
        /// The table of the related rows.
        var otherTable: String
    }

    /// The join-table columns that hold `entity`'s rows (a reflexive relationship has two).
    private func joinSides(_ db: Database, entity: Entity) throws -> [JoinSide] {
        let numbers = Set(lineage(of: entity).map { "Z_\($0.number)" })
        var sides: [JoinSide] = []
        for join in try Self.joinTableNames(db) {
            let columns = (try TableInfo.read(db, table: join)?.columns ?? []).map(\.name).filter {
                !$0.hasPrefix("Z_FOK_")
            }
            guard columns.count == 2 else { continue }
            for (index, column) in columns.enumerated() {
                guard let prefix = Self.entityNumberPrefix(of: column), numbers.contains(prefix) else { continue }
                let other = columns[1 - index]
                guard let otherNumber = Self.entityNumberPrefix(of: other).flatMap({ Int64($0.dropFirst(2)) }),
                    let otherEntity = entities.first(where: { $0.number == otherNumber })
                else { continue }
                sides.append(
                    JoinSide(table: join, column: column, other: other, otherTable: tableName(otherEntity.name)))
            }
        }
        return sides
    }

    /// Why the row of `entity` whose `Z_PK` is `primaryKey` must not be deleted, following the
    /// deletion rules of its many-to-many relationships; nil when it may (it has no links, or
    /// every linked relationship's rule is Nullify: its join rows go with it).
    ///
    /// Deny keeps the row (Core Data refuses the save). Cascade keeps it while related rows
    /// remain: Core Data would delete them as well, and seedkit never deletes a row it cannot
    /// tell the user did not change; the migration deletes them (the row's delete waits for the
    /// migration's other changes, so the order does not matter). A relationship whose rule is
    /// not known (a seed built before seedkit recorded rules, and no model given) keeps the row.
    package func manyToManyDeleteBlock(_ db: Database, entityNumber: SQLValue, primaryKey: SQLValue) throws -> String? {
        guard primaryKey != .null, let entity = entities.first(where: { SQLValue.integer($0.number) == entityNumber })
        else { return nil }
        for side in try joinSides(db, entity: entity) {
            let linked =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM \(quoteIdentifier(side.table)) WHERE \(quoteIdentifier(side.column)) = ?",
                    arguments: [primaryKey]) ?? 0
            guard linked > 0 else { continue }
            let place = "\(side.table).\(side.column)"
            guard let (relationship, rule) = deletionRule(entity, joinColumn: side.other) else {
                return "still referenced by \(place)"
            }
            switch rule {
            case "Nullify": continue
            case "Cascade":
                return
                    "its relationship \(relationship) has the deletion rule Cascade: Core Data would delete its \(linked) related row\(linked == 1 ? "" : "s") too (\(place)), and seedkit never deletes rows it cannot tell the user did not change; delete them in the same migration"
            default:
                return "still related through \(relationship) (\(place)), whose deletion rule is \(rule)"
            }
        }
        return nil
    }

    /// ``manyToManyDeleteBlock(_:entityNumber:primaryKey:)`` for a row read from the store, whose
    /// values `column` gives by column name.
    package func manyToManyDeleteBlock(_ db: Database, row column: (String) -> SQLValue?) throws -> String? {
        try manyToManyDeleteBlock(db, entityNumber: column("Z_ENT") ?? .null, primaryKey: column("Z_PK") ?? .null)
    }

    /// The relationship of `entity` stored in join column `column` (`Z_1FAVORITEDBY` → favoritedBy) and its deletion rule.
    private func deletionRule(_ entity: Entity, joinColumn column: String) -> (String, String)? {
        guard let prefix = Self.entityNumberPrefix(of: column) else { return nil }
        let stored = column.dropFirst(prefix.count).uppercased()
        // A relationship that is its own inverse names its second column with a digit (`Z_4FRIENDS1`).
        let candidates = [stored, String(stored.reversed().drop { $0.isNumber }.reversed())]
        for ancestor in lineage(of: entity) {
            for (relationship, rule) in facts.deletionRules[modelName(of: ancestor)] ?? [:]
            where candidates.contains(relationship.uppercased()) {
                return (relationship, rule)
            }
        }
        return nil
    }

    /// Removes every join row of the row of `entity` whose `Z_PK` is `primaryKey`; each related row's `Z_OPT` + 1.
    func unlinkAll(_ db: Database, entity: Entity, primaryKey: SQLValue) throws {
        for side in try joinSides(db, entity: entity) {
            let others = try SQLValue.fetchAll(
                db,
                sql:
                    "SELECT \(quoteIdentifier(side.other)) FROM \(quoteIdentifier(side.table)) WHERE \(quoteIdentifier(side.column)) = ?",
                arguments: [primaryKey])
            guard !others.isEmpty else { continue }
            try db.execute(
                sql: "DELETE FROM \(quoteIdentifier(side.table)) WHERE \(quoteIdentifier(side.column)) = ?",
                arguments: [primaryKey])
            // The column holding this row is named after the other side's relationship, which changed.
            let relationship = side.column.dropFirst(Self.entityNumberPrefix(of: side.column)?.count ?? 0)
            for other in others {
                try recordUpdate(db, table: side.otherTable, primaryKey: other) {
                    propertyName(stored: String(relationship), entity: $0)
                }
                try bumpOptimisticLock(db, table: side.otherTable, primaryKey: other)
            }
        }
    }

    /// Writes the join rows of `owner`: `members` in the order given (ordered relationships get
    /// order keys from 2048 in steps of 1024), `owner` last among each member's owners when the
    /// inverse is ordered; each member's `Z_OPT` + 1 (its inverse changed) unless this run inserted it.
    package func link(
        _ db: Database, join: JoinTable, owner: SQLValue, members: [SQLValue], memberTable: String, ownerTable: String
    ) throws {
        for (index, member) in members.enumerated() {
            var columns = [join.ownerColumn, join.memberColumn]
            var values = [owner, member]
            if let order = join.memberOrderColumn {
                columns.append(order)
                values.append(.integer(Self.orderKey(at: index)))
            }
            if let order = join.ownerOrderColumn {
                let last = try Int64.fetchOne(
                    db,
                    sql:
                        "SELECT max(\(quoteIdentifier(order))) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.memberColumn)) = ?",
                    arguments: [member])
                columns.append(order)
                values.append(.integer(Self.orderKey(after: last)))
            }
            try db.execute(
                sql:
                    "INSERT INTO \(quoteIdentifier(join.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(values))
            // Both sides' relationships changed: the member column is named after the owner's, the owner column after the member's.
            let ownerRelationship = String(
                join.memberColumn.dropFirst(Self.entityNumberPrefix(of: join.memberColumn)?.count ?? 0))
            let memberRelationship = String(
                join.ownerColumn.dropFirst(Self.entityNumberPrefix(of: join.ownerColumn)?.count ?? 0))
            try recordUpdate(db, table: ownerTable, primaryKey: owner) {
                propertyName(stored: ownerRelationship, entity: $0)
            }
            try recordUpdate(db, table: memberTable, primaryKey: member) {
                propertyName(stored: memberRelationship, entity: $0)
            }
            try bumpOptimisticLock(db, table: memberTable, primaryKey: member)
        }
    }

    /// Join rows of one relationship written in bulk by a build, row after row of a fixture.
    package struct BulkLinks {
        let join: JoinTable
        let insert: Statement
        /// The last owner order key given per member, when the inverse is ordered.
        var ownerOrder: [Int64: Int64] = [:]

        /// Links `member` to `owner`: the member's order key is its `position` in the owner's list
        /// (ordered relationships), and the owner goes last among the member's owners written so
        /// far (the inverse is ordered).
        ///
        /// No `Z_OPT` changes: a build's rows are all at 1.
        package mutating func link(owner: Int64, member: Int64, position: Int) throws {
            var values: [SQLValue] = [.integer(owner), .integer(member)]
            if join.memberOrderColumn != nil { values.append(.integer(CoreDataDialect.orderKey(at: position))) }
            if join.ownerOrderColumn != nil {
                let next = CoreDataDialect.orderKey(after: ownerOrder[member])
                ownerOrder[member] = next
                values.append(.integer(next))
            }
            try insert.execute(arguments: StatementArguments(values))
        }
    }

    /// A writer of `join`'s rows for a build (see ``BulkLinks``).
    package func bulkLinks(_ db: Database, join: JoinTable) throws -> BulkLinks {
        let columns =
            [join.ownerColumn, join.memberColumn] + [join.memberOrderColumn, join.ownerOrderColumn].compactMap { $0 }
        return BulkLinks(
            join: join,
            insert: try db.makeStatement(
                sql:
                    "INSERT INTO \(quoteIdentifier(join.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
            ))
    }

    /// Tables named `Z_<digits><NAME>`: Core Data's join tables.
    static func joinTableNames(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*' ORDER BY name")
    }

    /// `Z_12` for `Z_12TAGS`; nil for names not of that form.
    static func entityNumberPrefix(of column: String) -> String? {
        guard column.hasPrefix("Z_") else { return nil }
        let digits = column.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, column.count > 2 + digits.count else { return nil }
        return "Z_" + digits
    }
}
