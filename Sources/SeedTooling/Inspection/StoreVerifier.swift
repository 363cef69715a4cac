import Foundation
public import GRDB
public import SeedRuntime

/// Checks the rows a store holds now: SQLite's integrity and foreign keys, and the
/// manifest's rules and checks (`seedkit verify`, docs/reference.md).
///
/// Read-only.
public enum StoreVerifier {
    /// One problem in a store: which row (by key), which column, why.
    public struct Finding: Sendable, Equatable {
        /// The table the problem is in, or nil for one about the whole store.
        public var table: String?
        /// The key of the row the problem is in, as its text, or nil for a table-level problem.
        public var key: String?
        /// The column the problem is in, or nil when it is about the row or table.
        public var column: String?
        /// The problem's code, as docs/reference.md lists it.
        public var code: DiagnosticCode
        /// What is wrong, in words.
        public var message: String
    }

    /// Which integrity check ``verify(_:manifest:)`` ran.
    public enum Integrity: Sendable, Equatable {
        /// `PRAGMA integrity_check` on a writable copy: pages, indexes, NOT NULL, UNIQUE and CHECK constraints.
        case full
        /// `PRAGMA integrity_check` on the read-only store, where SQLite does not load CHECK
        /// constraints (so cannot evaluate them); `reason` says why no copy was checked.
        case withoutCheckConstraints(String)

        /// How the `ok` line names it.
        public var summary: String {
            switch self {
            case .full: return "integrity_check with CHECK constraints"
            case .withoutCheckConstraints: return "integrity_check without CHECK constraints"
            }
        }
    }

    /// The largest store ``checkableCopy(of:size:)`` copies into memory: 64 MB.
    public static let copyLimit = 64 << 20

    /// A connection on which ``verify(_:manifest:)`` checks everything SQLite can: an in-memory
    /// copy of the store (SQLite's backup API) when the store is at most ``copyLimit`` bytes,
    /// else the read-only store itself, whose integrity_check skips CHECK constraints (a read-only
    /// connection does not load them).
    public static func checkableCopy(of store: DatabaseQueue, size: Int) throws -> (DatabaseQueue, Integrity) {
        guard size <= copyLimit else {
            return (
                store,
                .withoutCheckConstraints(
                    "the store is over \(copyLimit >> 20) MB, too large to check through a copy in memory")
            )
        }
        let path =
            try store.read { db in
                try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'")
            } ?? ""
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try StoreAccess.distrust(db, readBound: StoreAccess.readBound(forFileAt: path))
        }
        let copy = try DatabaseQueue(configuration: configuration)
        do { try store.backup(to: copy) } catch {
            return (
                store,
                .withoutCheckConstraints(
                    "a copy could not be made (\((error as? DatabaseError)?.message ?? "\(error)"))")
            )
        }
        return (copy, .full)
    }

    /// Every problem found; empty when the store is sound.
    public static func verify(_ db: Database, manifest: Manifest?) throws -> [Finding] {
        var findings: [Finding] = []
        // One finding per line: a row of integrity_check can hold several lines (and a heading).
        do {
            for row in try String.fetchAll(db, sql: "PRAGMA integrity_check") where row != "ok" {
                for line in row.split(separator: "\n") where !line.hasPrefix("*** in database ") {
                    findings.append(Finding(code: .storeRefused, message: "integrity: \(line)"))
                }
            }
        } catch let error as DatabaseError {
            // An index only the app can order cannot be checked: said, and the rest is verified.
            guard let reason = AppExtensions.notChecked(error, in: db) else { throw error }
            findings.append(Finding(code: .storeRefused, message: "integrity: \(reason)"))
        }
        let recorded = try SeedCatalog.tableSpecs(db)
        let specs = Dictionary(
            (manifest?.tables.map(\.spec) ?? recorded ?? []).map { ($0.name, $0) },
            uniquingKeysWith: { first, _ in first })
        for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
            let table: String = row[0]
            let rowid: Int64? = row[1]
            let parent: String = row[2]
            let key = try rowid.flatMap { try describeKey(db, table: table, rowid: $0, spec: specs[table]) }
            findings.append(
                Finding(
                    table: table, key: key, column: nil, code: .unresolvedReference,
                    message: "references a missing row of \(parent)"))
        }
        findings += try pointerFindings(db, facts: manifest?.model?.facts)
        findings += try numberedColumnFindings(db, facts: manifest?.model?.facts)
        guard let manifest else { return findings }
        // A Core Data manifest names entities and attributes: the dialect maps them to Z tables and columns.
        let coreData = try CoreDataDialect.read(db, facts: manifest.model?.facts)
        for problem in try coreData?.keyProblems(db) ?? [] {
            findings.append(Finding(table: CoreDataDialect.primaryKeyTable, code: .storeRefused, message: problem))
        }
        let dialect: any StoreDialect = coreData ?? PlainSQLiteDialect()
        for table in manifest.tables {
            guard let info = try TableInfo.read(db, table: dialect.tableName(table.name)) else {
                findings.append(
                    Finding(
                        table: table.name, code: .configuration,
                        message: "the manifest names table \(table.name), which the store does not have"))
                continue
            }
            // A ref is read as its parent's natural key, as the fixture wrote it and as rules check it in a build.
            var shown: [String: String] = [:]
            for (column, reference) in table.refs {
                guard let sqlColumn = info.column(dialect.columnName(column, in: table.name)),
                    let parent = try TableInfo.read(db, table: dialect.tableName(reference.table)),
                    let keyColumn = parent.column(dialect.columnName(reference.column, in: reference.table))
                else { continue }
                shown[sqlColumn.name.lowercasedName] = info.shownRefSQL(
                    of: sqlColumn.name, parent: parent, keyColumn: keyColumn.name, row: quoteIdentifier(info.name))
            }
            // A UUID attribute reads as its text, as fixtures and migrations write it (not as 16 bytes).
            let uuids = coreData?.uuidTextExpressions(info) ?? [:]
            func expression(_ column: String) -> String {
                shown[column.lowercasedName] ?? uuids[column] ?? quoteIdentifier(column)
            }
            let keyColumns =
                (table.key.isEmpty ? info.primaryKey : table.key.map { dialect.columnName($0, in: table.name) }).filter
            {
                info.column($0) != nil
            }
            let keySQL = keyColumns.isEmpty ? "rowid" : keyColumns.map(expression).joined(separator: ", ")
            let ruled = (table.rules + (manifest.model?.rules(for: table.name) ?? [])).filter {
                info.column(dialect.columnName($0.column, in: table.name)) != nil
            }
            // A Core Data entity's rules hold for its rows (and its sub-entities'), not for other entities sharing its table.
            let entityRows = dialect.rowFilter(table.name).map { " WHERE \($0)" } ?? ""
            if !ruled.isEmpty {
                let list = ruled.map { expression(dialect.columnName($0.column, in: table.name)) }.joined(
                    separator: ", ")
                try db.makeStatement(
                    sql: "SELECT \(list), \(keySQL) FROM \(quoteIdentifier(info.name))\(entityRows) ORDER BY rowid"
                ).forEachRow { row in
                    for (index, rules) in ruled.enumerated() {
                        let value = row[index]
                        for problem in rules.check(value) {
                            let key = row[ruled.count...].map(\.display).joined(separator: ", ")
                            findings.append(
                                Finding(
                                    table: table.name, key: key, column: rules.column, code: problem.code,
                                    message: problem.message))
                        }
                    }
                }
            }
            if let model = manifest.model, let entity = model.flattened(table.name), let coreData {
                // Its queries alias the table, so keys are read as stored there.
                let rawKeySQL = keyColumns.isEmpty ? "rowid" : keyColumns.map(quoteIdentifier).joined(separator: ", ")
                findings += try relationshipFindings(
                    db, entity: entity, model: model, table: info, keySQL: rawKeySQL, dialect: coreData)
            }
            for check in table.checks {
                do {
                    try db.makeStatement(
                        sql:
                            "SELECT \(keySQL) FROM \(quoteIdentifier(info.name)) WHERE NOT (\(check.sql)) ORDER BY rowid"
                    ).forEachRow { row in
                        let key = row.map(\.display).joined(separator: ", ")
                        findings.append(
                            Finding(table: table.name, key: key, column: nil, code: .otherRule, message: check.message))
                    }
                } catch let error as DatabaseError where !error.isStoreFailure {
                    findings.append(
                        Finding(
                            table: info.name, code: .configuration,
                            message: "check '\(check.sql)' does not run on this store: \(error.message ?? "")"))
                }
            }
        }
        return findings
    }

    /// A Core Data store's relationship columns that point at no row (these stores have no
    /// FOREIGN KEY constraints; docs/core-data.md, "Deletes and pointers to a row"): the model is
    /// the manifest's, else the one the store keeps (`Z_MODELCACHE`), else the facts a seed recorded.
    private static func pointerFindings(_ db: Database, facts: CoreDataModelFacts?) throws -> [Finding] {
        guard let coreData = try CoreDataDialect.read(db, facts: facts ?? CoreDataModel.cachedFacts(db)) else {
            return []
        }
        return try coreData.danglingPointerMessages(db).map { pointer, message in
            // In the model's terms (docs/core-data.md, "Deletes and pointers to a row"): the
            // relationship, its message naming the column a sqlite3 user would query.
            Finding(table: pointer.owner, column: pointer.property, code: .unresolvedReference, message: message)
        }
    }

    /// Columns the model's rule numbers (`ZID1`, docs/swiftdata.md, "Composite attributes") that
    /// the entity's table lacks: the model does not describe the store, which `migrate` refuses.
    private static func numberedColumnFindings(_ db: Database, facts: CoreDataModelFacts?) throws -> [Finding] {
        guard let coreData = try CoreDataDialect.read(db, facts: facts ?? CoreDataModel.cachedFacts(db)) else {
            return []
        }
        return try coreData.numberedColumnProblems(db).map {
            Finding(table: $0.entity, code: .storeRefused, message: $0.message)
        }
    }

    /// The one-to-one pairs of a Core Data store whose sides disagree (1550): what `build`
    /// refuses in the seed it wrote, where fixtures gave one target to two rows (each side
    /// holds one row; Core Data sets both).
    ///
    /// `givenOnly`: only pairs whose other side is set and points elsewhere (what fixtures gave,
    /// before the build completes the sides they leave empty).
    package static func oneSidedFindings(
        _ db: Database, manifest: Manifest, dialect: CoreDataDialect, givenOnly: Bool = false
    ) throws -> [Finding] {
        guard let model = manifest.model else { return [] }
        var findings: [Finding] = []
        for table in manifest.tables {
            guard let entity = model.flattened(table.name),
                let info = try TableInfo.read(db, table: dialect.tableName(table.name))
            else { continue }
            let keyColumns =
                (table.key.isEmpty ? info.primaryKey : table.key.map { dialect.columnName($0, in: table.name) })
                .filter { info.column($0) != nil }
            let keySQL = keyColumns.isEmpty ? "rowid" : keyColumns.map(quoteIdentifier).joined(separator: ", ")
            for relationship in entity.relationships where !relationship.toMany {
                findings += try oneSidedPairs(
                    db, entity: entity, relationship: relationship, model: model, table: info, keySQL: keySQL,
                    dialect: dialect, givenOnly: givenOnly)
            }
        }
        return findings
    }

    /// A Core Data model's relationship rules: a non-optional to-one must be set (1570); a
    /// to-many's related rows, counted through its inverse, must be within minCount (1580) and maxCount (1590).
    private static func relationshipFindings(
        _ db: Database, entity: CoreDataModel.Entity, model: CoreDataModel, table: TableInfo, keySQL: String,
        dialect: CoreDataDialect
    ) throws -> [Finding] {
        var findings: [Finding] = []
        func key(_ row: Row, from index: Int) -> String {
            (index..<row.count).map { SQLValue.fromDatabaseValue(row[$0])?.display ?? "NULL" }.joined(separator: ", ")
        }
        for relationship in entity.relationships {
            if !relationship.toMany {
                findings += try oneSidedPairs(
                    db, entity: entity, relationship: relationship, model: model, table: table, keySQL: keySQL,
                    dialect: dialect)
                guard !relationship.optional,
                    table.column(dialect.columnName(relationship.name, in: entity.name)) != nil
                else {
                    continue
                }
                for row in try Row.fetchAll(
                    db,
                    sql: dialect.rowsWithoutSQL(
                        dialect.columnName(relationship.name, in: entity.name), select: keySQL, from: table.name)
                ) {
                    findings.append(
                        Finding(
                            table: entity.name, key: key(row, from: 0), column: relationship.name,
                            code: .missingRequired, message: "\(relationship.name) is required but missing"))
                }
                continue
            }
            guard relationship.minCount != nil || relationship.maxCount != nil, let inverse = relationship.inverseName,
                let destination = model.flattened(relationship.destination),
                let back = destination.relationships.first(where: { $0.name == inverse })
            else { continue }
            let countSQL: String
            if !back.toMany {
                countSQL = dialect.pointingCountSQL(
                    table: dialect.tableName(destination.name),
                    column: dialect.columnName(inverse, in: destination.name))
            } else if let join = try dialect.joinTable(
                db, entity: entity.name, relationship: relationship.name, destination: destination.name)
            {
                countSQL = dialect.linkCountSQL(join)  // many-to-many
            } else {
                continue
            }
            let sql = dialect.perRowCountSQL(countSQL, select: keySQL, from: table.name)
            for row in try Row.fetchAll(db, sql: sql) {
                let count: Int = row[0]
                if let minimum = relationship.minCount, count < minimum {
                    findings.append(
                        Finding(
                            table: entity.name, key: key(row, from: 1), column: relationship.name, code: .tooFewRelated,
                            message:
                                "\(relationship.name) has \(count) related row\(count == 1 ? "" : "s"), fewer than the minimum \(minimum)"
                        ))
                }
                if let maximum = relationship.maxCount, count > maximum {
                    findings.append(
                        Finding(
                            table: entity.name, key: key(row, from: 1), column: relationship.name,
                            code: .tooManyRelated,
                            message: "\(relationship.name) has \(count) related rows, more than the maximum \(maximum)")
                    )
                }
            }
        }
        return findings
    }

    /// A one-to-one relationship stores its key on both sides (`ZPOST.ZCOLOR` and `ZCOLOR.ZPOST`):
    /// a row whose target does not point back is one-sided (1550).
    private static func oneSidedPairs(
        _ db: Database, entity: CoreDataModel.Entity, relationship: CoreDataModel.Relationship, model: CoreDataModel,
        table: TableInfo, keySQL: String, dialect: CoreDataDialect, givenOnly: Bool = false
    ) throws -> [Finding] {
        guard let inverse = relationship.inverseName,
            model.flattened(relationship.destination)?.relationships.first(where: { $0.name == inverse })?.toMany
                == false,
            let column = table.column(dialect.columnName(relationship.name, in: entity.name)),
            let target = try TableInfo.read(db, table: dialect.tableName(relationship.destination)),
            let back = target.column(dialect.columnName(inverse, in: relationship.destination))
        else { return [] }
        let sql = dialect.oneSidedPairsSQL(
            table: table.name, column: column.name, target: target.name, back: back.name,
            keys: keySQL.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }, entity: entity.name)
        // A key column holding a UUID attribute shows its text, as fixtures write it.
        let keyColumns = keySQL.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let uuids = Set(dialect.uuidTextExpressions(table).keys.map(quoteIdentifier))
        return try Row.fetchAll(db, sql: sql).filter { !givenOnly || !$0.hasNull(atIndex: 1) }.map { row in
            let key = (2..<row.count).map { index in
                let value = SQLValue.fromDatabaseValue(row[index])
                let uuid = keyColumns.indices.contains(index - 2) && uuids.contains(keyColumns[index - 2])
                return (uuid ? value?.uuidText : nil) ?? value?.display ?? "NULL"
            }.joined(separator: ", ")
            let backValue = SQLValue.fromDatabaseValue(row[1])?.display ?? "NULL"
            return Finding(
                table: entity.name, key: key, column: relationship.name, code: .otherRule,
                message:
                    "one-sided one-to-one: \(relationship.name) points at \(relationship.destination) \(SQLValue.fromDatabaseValue(row[0])?.display ?? "NULL"), whose \(inverse) is \(backValue); Core Data sets both sides"
            )
        }
    }

    private static func describeKey(_ db: Database, table: String, rowid: Int64, spec: TableSpec?) throws -> String? {
        guard let info = try TableInfo.read(db, table: table), !info.withoutRowID else { return "rowid \(rowid)" }
        let key = (spec?.key.isEmpty == false ? spec?.key : nil) ?? info.primaryKey
        guard !key.isEmpty else { return "rowid \(rowid)" }
        // A ref in the key is shown by its parent's key, as everywhere else.
        var expressions: [String] = []
        for column in key {
            if let reference = spec?.refs.first(where: { $0.key.isSameName(as: column) })?.value,
                let parent = try TableInfo.read(db, table: reference.table),
                let keyColumn = parent.column(reference.column)
            {
                expressions.append(
                    info.shownRefSQL(
                        of: info.column(column)?.name ?? column, parent: parent, keyColumn: keyColumn.name,
                        row: quoteIdentifier(info.name)))
            } else {
                expressions.append(quoteIdentifier(column))
            }
        }
        let row = try db.sqlRow(
            "SELECT \(expressions.joined(separator: ", ")) FROM \(quoteIdentifier(table)) WHERE rowid = ?",
            binding: [.integer(rowid)])
        return row.map { row in row.map(\.display).joined(separator: ", ") }
    }
}
