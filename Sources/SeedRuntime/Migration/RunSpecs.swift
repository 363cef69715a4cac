import GRDB

/// The table specs a migration run works with — natural keys, refs and defaults — in the store's
/// names and in the names migrations use, built once through the dialect from the run's options
/// (a manifest's tables) or else the seed's catalog, and again after a schema step (a `.sql`
/// migration may add tables and record their specs).
struct RunSpecs {
    /// What a to-many relationship (no column) needs to find its Core Data join table: the
    /// relationship's name and its ref, as the migration names them.
    typealias WrittenRef = (relationship: String, reference: TableSpec.Reference)

    /// By SQL table name, in SQL column names (refs name their parent table as migrations do).
    private var bySQLTable: [String: TableSpec] = [:]
    /// The same by the name migrations use: sub-entities sharing a Core Data table each have their own.
    private var byName: [String: TableSpec] = [:]
    /// Refs as migrations name them, by SQL table and SQL column.
    private var writtenRefs: [String: [SQLName: WrittenRef]] = [:]
    /// SQL table → SQL column → the name migrations use for it (key and ref columns), for reports.
    private var writtenColumns: [String: [SQLName: String]] = [:]
    /// SQL table → ref column → the table (a Core Data entity) migrations name as holding the ref.
    private var refOwners: [String: [SQLName: String]] = [:]

    init() {}

    /// The specs `written` (in the names migrations use) as `dialect` stores them.
    init(_ written: [TableSpec], dialect: any StoreDialect) {
        let specs = written.map { dialect.storeSpec($0, keepingReferencedTables: true) }
        bySQLTable = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        byName = Dictionary(zip(written.map(\.name), specs).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        for spec in written {
            let table = dialect.tableName(spec.name)
            for column in spec.key + Array(spec.refs.keys) {
                writtenColumns[table, default: [:]][SQLName(dialect.columnName(column, in: spec.name))] = column
            }
            for (column, reference) in spec.refs {
                let stored = SQLName(dialect.columnName(column, in: spec.name))
                writtenRefs[table, default: [:]][stored] = (column, reference)
                // A sub-entity's own ref is named by it; an inherited one by the ancestor listed first.
                refOwners[table, default: [:]][stored] = refOwners[table]?[stored] ?? spec.name
            }
        }
    }

    /// The specs of a run on `db`: the options' tables, else the ones the seed recorded; and for
    /// a Core Data entity neither names, its key from its uniqueness constraint.
    static func read(_ db: Database, options: SeedMigrator.Options, dialect: any StoreDialect) throws -> RunSpecs {
        var written = try options.tables ?? SeedCatalog.tableSpecs(db) ?? []
        // A Core Data entity nothing names is keyed by its uniqueness constraint (a store the app created, no manifest).
        if let coreData = dialect as? CoreDataDialect {
            written += try coreData.defaultSpecs(db, except: Set(written.map(\.name)))
        }
        return RunSpecs(written, dialect: dialect)
    }

    /// The spec of SQL table `table`.
    func spec(sqlTable table: String) -> TableSpec? { bySQLTable[table] }

    /// The spec of the table (or entity) migrations call `name`.
    func spec(named name: String) -> TableSpec? { byName[name] }

    /// The spec of SQL table `table` as an operation naming it `name` sees it: a Core Data
    /// entity's own, or else its nearest listed ancestor's (never a sibling sub-entity's).
    func spec(of table: String, as name: String, coreData: CoreDataDialect?) -> TableSpec? {
        guard let coreData, coreData.entity(named: name) != nil else { return byName[name] ?? bySQLTable[table] }
        return coreData.lineageNames(of: name).lazy.compactMap { self.byName[$0] }.first
    }

    /// The ref of SQL column `column` of SQL table `table` as migrations name it.
    func writtenRef(_ table: String, _ column: SQLName) -> WrittenRef? { writtenRefs[table]?[column] }

    /// The name migrations use for SQL column `column` of SQL table `table`, when a key or ref names it.
    func writtenColumn(_ table: String, _ column: SQLName) -> String? { writtenColumns[table]?[column] }

    /// Ref column `column` of SQL table `table` as a user reads it: `Entity.relationship` (the
    /// table and the ref as migrations name them), or nil when no spec names it.
    func writtenRefName(_ table: String, _ column: SQLName) -> String? {
        guard let owner = refOwners[table]?[column], let ref = writtenRefs[table]?[column] else { return nil }
        return "\(owner).\(ref.relationship)"
    }
}
