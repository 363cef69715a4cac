import Foundation
import GRDB

/// The Core Data bookkeeping the rest of seedkit asks about — what makes a store a Core Data
/// store, the SQL that reads rows by `Z_PK` and `Z_ENT`, the store's specs in its own names, and
/// the names messages quote — so that build, migrate, inspect, verify, diff and release spell
/// none of it themselves (a test, `CoreDataSeamTests`, keeps it so).
extension CoreDataDialect {
    /// The column holding a row's primary key.
    package static let primaryKeyColumn = "Z_PK"
    /// The table numbering entities and allocating keys.
    package static let primaryKeyTable = "Z_PRIMARYKEY"
    /// The table holding the model's version hashes.
    package static let metadataTable = "Z_METADATA"
    /// What makes a store a Core Data store, as messages say it.
    package static let storeTables = "\(primaryKeyTable) and \(metadataTable)"

    // MARK: - Names

    /// Whether `column` holds an attribute or a to-one relationship (`ZTITLE`), not bookkeeping (`Z_PK`, `Z_FOK_BOOK`).
    package static func isAttributeColumn(_ column: String) -> Bool {
        column.hasPrefix("Z") && !column.hasPrefix("Z_")
    }

    /// The name an attribute stored in `column` has when the model does not say: `ZTITLE` → `title`.
    package static func attributeName(ofColumn column: String) -> String {
        String(column.dropFirst()).lowercased()
    }

    // MARK: - Detection

    /// Whether `db` is a Core Data store: it has `Z_PRIMARYKEY` and `Z_METADATA`.
    package static func isStore(_ db: Database) throws -> Bool {
        try db.tableExists(primaryKeyTable) && db.tableExists(metadataTable)
    }

    // MARK: - Specs

    /// `specs` in the store's own names (entity and attribute names become `Z` tables and
    /// columns), defaults included, for `db` when it is a Core Data store; as they are otherwise.
    package static func storeSpecs(_ specs: [TableSpec], in db: Database, facts: CoreDataModelFacts? = nil) throws
        -> [TableSpec]
    {
        guard let coreData = try read(db, facts: facts) else { return specs }
        return specs.map { coreData.storeSpec($0) }
    }

    // MARK: - Building

    /// The columns every row a build inserts in bulk gets as written SQL: the entity's `Z_ENT` and `Z_OPT` 1.
    package func bulkInsertConstants(_ entity: Entity) -> [(column: String, sql: String)] {
        [("Z_ENT", String(entity.number)), ("Z_OPT", "1")]
    }

    /// What the join table of `entity.relationship` looks like, for the message when a template has none.
    package static func joinTableShape(entity: String, relationship: String, destination: String) -> String {
        "a table Z_<n>… with columns Z_<\(destination)'s Z_ENT>\(relationship.uppercased()) and one for \(entity)"
    }

    // MARK: - Reading rows

    /// `SELECT Z_PK FROM table WHERE predicate`: the key of the row (or rows) `predicate` finds.
    package func primaryKeySQL(from table: String, where predicate: String) -> String {
        "SELECT Z_PK FROM \(quoteIdentifier(table)) WHERE \(predicate)"
    }

    /// Each entity's rows (by its own `Z_ENT`, sub-entities apart), for entities whose table exists.
    package func entityRowCounts(_ db: Database) throws -> [(name: String, rows: Int)] {
        var counts: [(name: String, rows: Int)] = []
        for entity in entities {
            let table = tableName(entity.name)
            guard try db.tableExists(table) else { continue }
            counts.append(
                (
                    entity.name,
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \(quoteIdentifier(table)) WHERE Z_ENT = ?",
                        arguments: [entity.number]) ?? 0
                ))
        }
        return counts
    }

    /// The rows of `entity` and its sub-entities in the table aliased `row`: `row.Z_ENT IN (…)`.
    package func familyFilter(_ entity: Entity, row: String) -> String {
        "\(row).Z_ENT IN (\(family(of: entity).map(String.init).joined(separator: ", ")))"
    }

    /// The model's entity name of each row of `entity`'s family in the table aliased `row`: `CASE row.Z_ENT WHEN … END`.
    package func entityNameSQL(_ entity: Entity, row: String) -> String {
        let family = family(of: entity)
        let cases = entities.filter { family.contains($0.number) }.map {
            "WHEN \($0.number) THEN '\(modelName(of: $0).replacingOccurrences(of: "'", with: "''"))'"
        }
        return "CASE \(row).Z_ENT \(cases.joined(separator: " ")) END"
    }

    /// The primary key of the row aliased `row`: `row.Z_PK`.
    package func primaryKeySQL(row: String) -> String {
        "\(row).Z_PK"
    }

    // MARK: - Verifying

    /// `SELECT columns FROM table WHERE column IS NULL ORDER BY Z_PK`: rows whose to-one relationship is not set.
    package func rowsWithoutSQL(_ column: String, select columns: String, from table: String) -> String {
        "SELECT \(columns) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL ORDER BY Z_PK"
    }

    /// The number of rows of `table` whose `column` points at the row aliased `p`.
    package func pointingCountSQL(table: String, column: String) -> String {
        "SELECT count(*) FROM \(quoteIdentifier(table)) AS c WHERE c.\(quoteIdentifier(column)) = p.Z_PK"
    }

    /// The number of rows `join` links to the row aliased `p` (many-to-many).
    package func linkCountSQL(_ join: JoinTable) -> String {
        "SELECT count(*) FROM \(quoteIdentifier(join.name)) WHERE \(quoteIdentifier(join.ownerColumn)) = p.Z_PK"
    }

    /// `SELECT (count), columns FROM table AS p ORDER BY p.Z_PK`: each row with a count of its related rows.
    package func perRowCountSQL(_ count: String, select columns: String, from table: String) -> String {
        "SELECT (\(count)), \(columns) FROM \(quoteIdentifier(table)) AS p ORDER BY p.Z_PK"
    }

    /// Rows of `table` (aliased `p`) of `entity` whose one-to-one `column` points at a row of
    /// `target` (aliased `c`) whose `back` does not point at them: `p.column, c.back, p.keys…`.
    package func oneSidedPairsSQL(
        table: String, column: String, target: String, back: String, keys: [String], entity: String
    ) -> String {
        let own = rowFilter(entity).map { " AND p.\($0)" } ?? ""
        return """
            SELECT p.\(quoteIdentifier(column)), c.\(quoteIdentifier(back)), \(keys.map { "p." + $0 }.joined(separator: ", "))
            FROM \(quoteIdentifier(table)) AS p LEFT JOIN \(quoteIdentifier(target)) AS c ON c.Z_PK = p.\(quoteIdentifier(column))
            WHERE p.\(quoteIdentifier(column)) IS NOT NULL AND c.\(quoteIdentifier(back)) IS NOT p.Z_PK\(own) ORDER BY p.Z_PK
            """
    }

    // MARK: - Release

    /// Whether `keyColumns` are the store's own key (`Z_PK`), which differs from store to store.
    package static func isStoreAssignedKey(_ keyColumns: [String]) -> Bool {
        keyColumns == [primaryKeyColumn]
    }
}

extension StoreDialect {
    /// `spec` (in the names migrations use) in the store's names: table, key, ref and default
    /// columns, and — unless `keepingReferencedTables` (the name migrations use says which of a
    /// shared table's entities a ref means) — the referenced tables.
    package func storeSpec(_ spec: TableSpec, keepingReferencedTables: Bool = false) -> TableSpec {
        TableSpec(
            name: tableName(spec.name), key: spec.key.map { columnName($0, in: spec.name) },
            refs: Dictionary(
                spec.refs.map { column, reference in
                    (
                        columnName(column, in: spec.name),
                        TableSpec.Reference(
                            table: keepingReferencedTables ? reference.table : tableName(reference.table),
                            column: columnName(reference.column, in: reference.table))
                    )
                }, uniquingKeysWith: { first, _ in first }),
            defaults: Dictionary(
                spec.defaults.map { (columnName($0.key, in: spec.name), $0.value) },
                uniquingKeysWith: { first, _ in first }))
    }
}
