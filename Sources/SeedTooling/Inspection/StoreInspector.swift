import Foundation
public import GRDB
public import SeedRuntime

/// What `seedkit inspect STORE` reports.
public struct StoreSummary: Sendable {
    /// What kind of store it is, by what it holds: seedkit's bookkeeping, Core Data's, or neither.
    public enum Kind: String, Sendable {
        case plain = "plain SQLite"
        case seed = "seedkit seed"
        case coreData = "Core Data"
    }

    /// The result of the integrity check the summary ran.
    public struct Integrity: Sendable {
        /// `quick_check`, or `header` for large stores when a full check was not asked for.
        public var method: String
        /// Whether the check found the store intact.
        public var ok: Bool
        /// What the check said (`ok`, or SQLite's first finding).
        public var detail: String
    }

    /// The store's path, as named on the command line.
    public var path: String
    /// What kind of store it is.
    public var kind: Kind
    /// The file's size in bytes.
    public var fileSize: Int
    /// SQLite's page size in bytes.
    public var pageSize: Int
    /// The pages the database holds.
    public var pageCount: Int
    /// The journal mode (`delete`, `wal`, …).
    public var journalMode: String
    /// Each table with its row count, in name order.
    public var tables: [(name: String, rows: Int)]
    /// The seed's metadata (`_seedkit_meta`: seed hash, seedkit version, …); empty for another
    /// store.
    public var meta: [String: String]
    /// The migrations the store's ledger records, in number order.
    public var ledger: [LedgerEntry]
    /// What the integrity check found.
    public var integrity: Integrity
    /// For a Core Data store: each entity of Z_PRIMARYKEY with its rows (by Z_ENT).
    public var entities: [(name: String, rows: Int)] = []
    /// For a Core Data store that tracks persistent history: how many transactions, and the last one.
    public var persistentHistory: String?
}

/// Read-only questions about a store: its summary and its rows.
public enum StoreInspector {
    /// Stores up to this size get a full `PRAGMA quick_check` by default.
    public static let fullCheckLimit = 64 << 20

    /// Summarises a store opened with ``StoreAccess/openReadOnly(_:)``.
    ///
    /// - Parameters:
    ///   - db: the store.
    ///   - path: the store's path, for its size and the summary.
    ///   - fullCheck: run `quick_check` whatever the size (true), never (false), or
    ///     only up to ``fullCheckLimit`` (nil), so that inspecting a big store stays fast.
    /// - Returns: the store's kind, size, tables, metadata, ledger and integrity.
    /// - Throws: a database error when the store cannot be read.
    public static func summary(_ db: Database, path: String, fullCheck: Bool? = nil) throws -> StoreSummary {
        let fileSize = FileFacts.size(path) ?? 0
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let names = try TableInfo.userTables(db)
        var tables: [(String, Int)] = []
        for name in names {
            let count: Int?
            do {
                count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(name))")
            } catch let error as DatabaseError where AppExtensions.missing(error) != nil {
                // SQLite counted through an index only the app can open: the table itself instead.
                count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(name)) NOT INDEXED")
            }
            tables.append((name, count ?? 0))
        }
        let meta = try SeedCatalog.meta(db)
        let kind: StoreSummary.Kind
        if try CoreDataDialect.isStore(db) {
            kind = .coreData
        } else if !meta.isEmpty {
            kind = .seed
        } else {
            kind = .plain
        }
        let wal = StoreAccess.isWALMode(path)
        let integrity: StoreSummary.Integrity
        if fullCheck ?? (fileSize <= fullCheckLimit) {
            do {
                let problems = try SeedMigrator.quickCheck(db, limit: 5)
                integrity = .init(
                    method: "quick_check", ok: problems == ["ok"], detail: problems.joined(separator: "; "))
            } catch let error as DatabaseError {
                // An index only the app can order: the check cannot run; the rest is shown.
                guard let reason = AppExtensions.notChecked(error, in: db) else { throw error }
                integrity = .init(method: "none", ok: true, detail: reason)
            }
        } else {
            // The header agrees with the file: every page is there (checked without reading them).
            let expected = pageSize * pageCount
            let ok = wal || expected == fileSize
            integrity = .init(
                method: "header", ok: ok,
                detail: ok
                    ? "page count matches the file size; run with --check (or seedkit verify) for a full check"
                    : "the header says \(expected) bytes, the file has \(fileSize)")
        }
        var summary = StoreSummary(
            path: path, kind: kind, fileSize: fileSize, pageSize: pageSize, pageCount: pageCount,
            journalMode: wal ? "wal" : "rollback journal", tables: tables, meta: meta,
            ledger: try MigrationLedger.entries(db), integrity: integrity)
        if let coreData = try CoreDataDialect.read(db) {
            summary.persistentHistory = try CoreDataDialect.historySummary(db)
            summary.entities = try coreData.entityRowCounts(db)
        }
        return summary
    }

    /// Rows of a Core Data entity in the app's terms, as a fetch of the entity returns them:
    /// its rows and its sub-entities' (with an `entity` column then), attribute names (the
    /// model's when given, else the column names without `Z`), to-one relationships as the
    /// target's key when a ref names it (else its `Z_PK`), dates as ISO 8601; bookkeeping
    /// columns (`Z_OPT`, order keys, entity-type columns) left out.
    ///
    /// The row's `Z_PK` is `id` (`Z_PK` when an attribute is called `id`). `filter` is SQL over the
    /// names shown (`price > 10`, `uuid = '…'`, a ref by its target's key) or the store's columns
    /// (`ZPRICE > 10`); `columns` picks names shown; `streamed` as for
    /// ``rows(_:table:filter:limit:columns:refs:streamed:)``.
    public static func entityRows(
        _ db: Database, entity name: String, model given: CoreDataModel?, refs givenRefs: [String: TableSpec.Reference],
        raw: Bool = false, filter: String? = nil, limit: Int? = nil, columns picked: [String]? = nil,
        streamed: Bool = false
    ) throws -> Tabular? {
        // Without a model, the one the store keeps names the attributes and says which are UUIDs.
        let model = try given ?? CoreDataModel.cachedModel(db)
        guard let coreData = try CoreDataDialect.read(db, facts: model?.facts),
            let entity = coreData.entity(named: name),
            let info = try TableInfo.read(db, table: coreData.tableName(name))
        else { return nil }
        // A to-one relationship no ref names shows its target's key when the model gives the target
        // one (a one-attribute uniqueness constraint); `raw` shows every ref as stored.
        var refs = raw ? [:] : givenRefs.merging(model?.defaultRefs(name) ?? [:]) { given, _ in given }
        // A to-many without an inverse is kept in this table as `Z<owner's Z_ENT><NAME>`
        // (`ZINGREDIENT.Z1SPEC`): shown as the owner's relationship (`Cocktail.spec`), by the owner's key.
        var ownedBy: [String: String] = [:]
        for pointer in try coreData.pointers(db) where pointer.table == info.name && pointer.ownersToMany {
            ownedBy[pointer.column] = pointer.relationship
            let owner = String(pointer.relationship.prefix { $0 != "." })
            if !raw, let key = model?.defaultKey(owner), key.count == 1 {
                refs[pointer.relationship] = TableSpec.Reference(table: owner, column: key[0])
            }
        }
        let family = coreData.family(of: entity)
        var names: [String] = []
        var expressions: [String] = []
        var parentKeys: [Int: String] = [:]
        if family.count > 1 {
            names.append("entity")
            expressions.append(coreData.entityNameSQL(entity, row: "t"))
        }
        // Columns only other entities sharing the table have (a sibling sub-entity's attributes) are not this entity's.
        var othersOnly = Set<String>()
        if let model {
            let own = Set(
                model.family(of: name).flatMap { member in
                    model.storedNames(member).map { coreData.columnName($0, in: member) }
                })
            let root = coreData.root(entity)
            for other in model.entities
            where coreData.entity(named: other.name).map({ coreData.root($0) == root }) == true {
                othersOnly.formUnion(
                    model.storedNames(other.name).map { coreData.columnName($0, in: other.name) })
            }
            othersOnly.subtract(own)
        }
        let uuids = coreData.uuidTextExpressions(info)
        for column in info.columns
        where !CoreDataDialect.isBookkeeping(column.name) && !othersOnly.contains(column.name.uppercased()) {
            var attribute =
                ownedBy[column.name]
                ?? CoreDataModel.attributeName(column.name, entity: name, model: model, dialect: coreData)
            if names.contains(attribute) { attribute += " (\(column.name))" }
            names.append(attribute)
            if let reference = refs[attribute],
                let parent = try TableInfo.read(db, table: coreData.tableName(reference.table)).map(coreData.adjusted)
            {
                // A parent keyed by a UUID attribute: the ref shows its text (TableInfo.readableSQL).
                parentKeys[expressions.count + 1] = info.parentKeySQL(
                    // + 1: id goes first
                    of: column.name, parent: parent,
                    keyColumn: coreData.columnName(reference.column, in: reference.table), row: "t")
                expressions.append("t.\(quoteIdentifier(column.name))")
            } else if let uuid = uuids[column.name] {
                expressions.append(uuid)  // a UUID attribute as its text, as fixtures and migrations write it
            } else if coreData.columnType(column) == .referenceDate {
                expressions.append(
                    "strftime('%Y-%m-%dT%H:%M:%SZ', t.\(quoteIdentifier(column.name)) + 978307200, 'unixepoch')")
            } else {
                expressions.append("t.\(quoteIdentifier(column.name))")
            }
        }
        names.insert(names.contains("id") ? CoreDataDialect.primaryKeyColumn : "id", at: 0)
        expressions.insert(coreData.primaryKeySQL(row: "t"), at: 0)
        // The rows as shown (a ref by its target's key), beside the store's own columns: --where
        // may name either. The outer query reads the shown names and each ref's parts back.
        var shown: [String] = []
        var hidden: [String] = []
        for (index, expression) in expressions.enumerated() {
            if let key = parentKeys[index] {
                shown.append("coalesce(\(key), \(expression)) AS \(quoteIdentifier(names[index]))")
                hidden.append("\(expression) AS \(quoteIdentifier("\u{1}id\(index)"))")
                hidden.append("\(key) AS \(quoteIdentifier("\u{1}key\(index)"))")
            } else {
                shown.append("\(expression) AS \(quoteIdentifier(names[index]))")
            }
        }
        var indices = Array(names.indices)
        if let picked {
            indices = try picked.map { wanted in
                guard let index = names.firstIndex(where: { $0.isSameName(as: wanted) }) else {
                    throw SeedError(
                        .configuration,
                        "entity \(name) has no attribute or relationship '\(wanted)' (it has \(names.joined(separator: ", ")))"
                    )
                }
                return index
            }
        }
        let inner =
            "SELECT t.*, \((shown + hidden).joined(separator: ", ")) FROM \(quoteIdentifier(info.name)) AS t WHERE \(coreData.familyFilter(entity, row: "t"))"
        var outerKeys: [Int: String] = [:]
        for (position, index) in indices.enumerated() where parentKeys[index] != nil {
            outerKeys[position] = quoteIdentifier("\u{1}key\(index)")
        }
        let outer = indices.map { parentKeys[$0] != nil ? quoteIdentifier("\u{1}id\($0)") : quoteIdentifier(names[$0]) }
        return try fetch(
            db, columns: indices.map { names[$0] }, expressions: outer, parentKeys: outerKeys,
            from: "FROM (\(inner)) AS e" + (filter.map { " WHERE (\($0))" } ?? ""),
            order: quoteIdentifier(names[0]), limit: limit, filter: filter, streamed: streamed)
    }

    /// Selects `expressions` (and each ref's parent key) and shows every ref by its parent's
    /// natural key, or by the value stored when no parent row has it; the stored values go to
    /// ``Tabular/references`` too.
    ///
    /// `parentKeys`: column index → SQL of its parent's key. `streamed`: the statement is prepared
    /// here and stepped while the rows are printed (``Tabular/stream``).
    private static func fetch(
        _ db: Database, columns: [String], expressions: [String], parentKeys: [Int: String], from: String,
        order: String, limit: Int?, filter: String?, streamed: Bool
    ) throws -> Tabular {
        let refColumns = parentKeys.keys.sorted()
        let list = (expressions + refColumns.compactMap { parentKeys[$0] }).joined(separator: ", ")
        func failure(_ error: any Error) -> any Error {
            guard let error = error as? DatabaseError, !error.isStoreFailure else { return error }
            // GRDB's advice on running several statements is for its API users, not for ours.
            let reason =
                (error.message ?? "").hasPrefix("Multiple statements found")
                ? "--where takes one SQL expression, and this one ends a statement and starts another (a ';')"
                : error.message ?? "\(error)"
            return SeedError(.configuration, "the query failed: \(reason)\(filter.map { " (--where \($0))" } ?? "")")
        }
        do {
            let statement = try db.makeStatement(
                sql: "SELECT \(list) \(from) ORDER BY \(order)" + (limit.map { " LIMIT \($0)" } ?? ""))
            let stream = RowSource(referenceColumns: refColumns) { body in
                var read = 0
                do {
                    try statement.forEachRow { row in
                        var values = Array(row[..<expressions.count])
                        var references: [Int: (key: SQLValue, id: SQLValue)] = [:]
                        for (offset, column) in refColumns.enumerated() {
                            let key = row[expressions.count + offset]
                            references[column] = (key: key, id: values[column])
                            if key != .null { values[column] = key }
                        }
                        read += 1
                        body(Tabular.Row(cells: values, references: references))
                    }
                    guard let limit, read == limit else { return 0 }
                    return (try Int.fetchOne(db, sql: "SELECT count(*) \(from)") ?? read) - read
                } catch {
                    throw failure(error)
                }
            }
            var tabular = Tabular(columns: columns, rows: [])
            tabular.stream = stream
            return streamed ? tabular : try tabular.held()
        } catch {
            throw failure(error)
        }
    }

    /// Rows of a table, in primary key (or rowid) order; a ref (in `refs`, by column name) shown by
    /// its parent's natural key (see ``Tabular/references``).
    ///
    /// - Parameters:
    ///   - db: the store.
    ///   - table: the table whose rows to read.
    ///   - filter: a SQL expression for WHERE, as the user wrote it.
    ///   - limit: at most this many rows; ``Tabular/omitted`` says how many more matched.
    ///   - columns: the columns to show (default: all).
    ///   - refs: the table's refs (the manifest's or the seed's); empty shows values as stored.
    ///   - streamed: the rows are read while a format prints them (``Tabular/stream``), so the
    ///     result is printed inside this database read; otherwise they are read here.
    /// - Returns: the rows, held or streamed.
    /// - Throws: ``SeedError`` (configuration) for an unknown table or column or a bad filter.
    public static func rows(
        _ db: Database, table: String, filter: String? = nil, limit: Int? = nil, columns: [String]? = nil,
        refs: [String: TableSpec.Reference] = [:], streamed: Bool = false
    ) throws -> Tabular {
        guard let info = try TableInfo.read(db, table: table) else {
            throw SeedError(
                .configuration,
                "no table '\(table)' (the store has \(try TableInfo.userTables(db).joined(separator: ", ")))")
        }
        var selected = info.columns.map(\.name)
        if let columns {
            selected = []
            for name in columns {
                guard let column = info.column(name) else {
                    throw SeedError(
                        .configuration,
                        "table \(info.name) has no column '\(name)' (it has \(info.columns.map(\.name).joined(separator: ", ")))"
                    )
                }
                selected.append(column.name)
            }
        }
        var parentKeys: [Int: String] = [:]
        let coreData = try CoreDataDialect.read(db)
        for (index, column) in selected.enumerated() {
            guard let reference = refs.first(where: { $0.key.isSameName(as: column) })?.value,
                let read = try TableInfo.read(db, table: reference.table),
                case let parent = coreData?.adjusted(read) ?? read, let keyColumn = parent.column(reference.column)
            else { continue }
            parentKeys[index] = info.parentKeySQL(
                of: column, parent: parent, keyColumn: keyColumn.name, row: quoteIdentifier(info.name))
        }
        let order = info.withoutRowID ? info.primaryKey.map(quoteIdentifier).joined(separator: ", ") : "rowid"
        let whereClause = filter.map { " WHERE \($0)" } ?? ""
        return try fetch(
            db, columns: selected, expressions: selected.map(quoteIdentifier), parentKeys: parentKeys,
            from: "FROM \(quoteIdentifier(info.name))\(whereClause)", order: order, limit: limit, filter: filter,
            streamed: streamed)
    }
}

extension StoreInspector {
    /// The rows `seedkit inspect STORE TABLE` shows: a table's, or a Core Data entity's in the
    /// app's terms when `table` names an entity and no table.
    ///
    /// Refs are shown by the parent's natural key: the manifest's refs, else those the seed
    /// recorded in itself; none with `raw` (the values as stored).
    ///
    /// - Parameters:
    ///   - db: the store, opened with ``StoreAccess/openReadOnly(_:notice:)``.
    ///   - table: a table or entity name.
    ///   - manifest: the project's manifest, or nil (the store's own specs and model are used).
    ///   - raw: whether refs show the values stored rather than the parent's key.
    ///   - filter: an SQL expression the rows must match.
    ///   - limit: at most this many rows, or nil for all.
    ///   - columns: only these columns, or nil for all.
    /// - Returns: the rows, streamed: read as they are printed (``Tabular/stream``).
    /// - Throws: ``SeedError`` when the table or a column does not exist or the filter is not
    ///   valid SQL; a database error when the store cannot be read.
    public static func tableRows(
        _ db: Database, table: String, manifest: Manifest?, raw: Bool, filter: String?, limit: Int?,
        columns: [String]?
    ) throws -> Tabular {
        var refs: [String: TableSpec.Reference] = [:]
        let specs = try manifest.map { $0.tables.map(\.spec) } ?? SeedCatalog.tableSpecs(db) ?? []
        for spec in specs where spec.name.isSameName(as: table) && !raw { refs = spec.refs }
        if try !db.tableExists(table),
            let entityRows = try entityRows(
                db, entity: table, model: manifest?.model, refs: refs, raw: raw, filter: filter, limit: limit,
                columns: columns, streamed: true)
        {
            return entityRows
        }
        return try rows(db, table: table, filter: filter, limit: limit, columns: columns, refs: refs, streamed: true)
    }
}

extension StoreSummary {
    /// Refuses a store whose integrity check failed, after its summary has shown the finding,
    /// so that the exit code says the store is damaged (3) and what to do about it.
    ///
    /// - Throws: ``SeedError`` (refused) naming the store, the check and what it found.
    public func requireIntact() throws(SeedError) {
        guard !integrity.ok else { return }
        throw SeedError(
            .refused, file: path,
            "the store is damaged (\(integrity.method): \(integrity.detail)); recover its data first (sqlite3 STORE .recover)"
        )
    }
}
