import Foundation
import GRDB

/// seedkit's own tables inside a store: format metadata, table specs and the migration ledger.
///
/// ```
/// _seedkit_meta(key, value)                      format_version, content_hash, …
/// _seedkit_tables(name, position, key, refs, defaults)   natural keys, refs and defaults, as JSON
/// _seedkit_migrations(number, name, checksum, applied_at, origin)
/// _seedkit_file_digests(number, sha256)          the bytes of large JSON migrations applied
/// ```
package enum SeedCatalog {
    package static let metaTable = "_seedkit_meta"
    package static let tablesTable = "_seedkit_tables"
    package static let ledgerTable = "_seedkit_migrations"
    package static let fileDigestsTable = "_seedkit_file_digests"

    /// The version of seedkit's in-store format; a store with a higher one is refused.
    package static let formatVersion = 1

    /// Whether `name` is one of seedkit's bookkeeping tables (or SQLite's own).
    package static func isInternal(_ name: String) -> Bool {
        name.hasPrefix("_seedkit_") || name.hasPrefix("sqlite_")
    }

    static let createMeta =
        "CREATE TABLE IF NOT EXISTS \(metaTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID"
    static let createTables = """
        CREATE TABLE IF NOT EXISTS \(tablesTable) (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, \
        key TEXT NOT NULL, refs TEXT NOT NULL, defaults TEXT NOT NULL DEFAULT '{}') WITHOUT ROWID
        """
    static let createLedger = """
        CREATE TABLE IF NOT EXISTS \(ledgerTable) (number INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, \
        checksum TEXT NOT NULL, applied_at TEXT, origin TEXT NOT NULL CHECK (origin IN ('seed', 'applied')))
        """

    static let createFileDigests = """
        CREATE TABLE IF NOT EXISTS \(fileDigestsTable) (number INTEGER PRIMARY KEY NOT NULL, sha256 TEXT NOT NULL)
        """

    /// Creates seedkit's tables if they are missing.
    package static func create(_ db: Database) throws {
        try db.execute(sql: createMeta)
        try db.execute(sql: createTables)
        try db.execute(sql: createLedger)
    }

    /// Writes the metadata and table specs a seed carries.
    package static func writeSeedMetadata(_ db: Database, meta: [(String, String)], tables: [TableSpec]) throws {
        try create(db)
        for (key, value) in meta {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(metaTable)(key, value) VALUES (?, ?)", arguments: [key, value])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (position, spec) in tables.enumerated() {
            let key = String(decoding: try encoder.encode(spec.key), as: UTF8.self)
            let refs = String(decoding: try encoder.encode(spec.refs), as: UTF8.self)
            // Defaults as SQL literals, so that a value keeps its storage class.
            let defaults = String(decoding: try encoder.encode(spec.defaults.mapValues(\.sqlLiteral)), as: UTF8.self)
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO \(tablesTable)(name, position, key, refs, defaults) VALUES (?, ?, ?, ?, ?)",
                arguments: [spec.name, position, key, refs, defaults])
        }
    }

    /// The metadata of a seedkit seed; empty for other stores.
    package static func meta(_ db: Database) throws -> [String: String] {
        guard try db.tableExists(metaTable) else { return [:] }
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \(metaTable)") {
            let key: String = try value(row, 0, metaTable, "key")
            result[key] = try value(row, 1, metaTable, "value")
        }
        return result
    }

    /// The table specs recorded in the store, in load order; nil when the store has none.
    package static func tableSpecs(_ db: Database) throws -> [TableSpec]? {
        guard try db.tableExists(tablesTable) else { return nil }
        let decoder = JSONDecoder()
        // Seeds built before defaults were recorded have no such column.
        let hasDefaults =
            try Bool.fetchOne(
                db, sql: "SELECT count(*) FROM pragma_table_info(?) WHERE name = 'defaults'", arguments: [tablesTable])
            ?? false
        return try Row.fetchAll(
            db,
            sql: "SELECT name, key, refs, \(hasDefaults ? "defaults" : "'{}'") FROM \(tablesTable) ORDER BY position"
        ).map { row in
            func json<T: Decodable>(_ index: Int, _ column: String, as type: T.Type) throws -> T {
                let text: String = try value(row, index, tablesTable, column)
                do { return try decoder.decode(type, from: Data(text.utf8)) } catch {
                    throw foreign("\(tablesTable).\(column) holds text that is not the JSON seedkit writes there")
                }
            }
            return TableSpec(
                name: try value(row, 0, tablesTable, "name"), key: try json(1, "key", as: [String].self),
                refs: try json(2, "refs", as: [String: TableSpec.Reference].self),
                defaults: try json(3, "defaults", as: [String: String].self).compactMapValues(
                    SQLValue.init(sqlLiteral:)))
        }
    }

    // MARK: - Reading seedkit's tables as input

    /// What each column of seedkit's tables holds when seedkit wrote it, as SQL over the column.
    private static let expectations: [(table: String, column: String, holds: String, sql: String)] = [
        (metaTable, "key", "text", "typeof(key) = 'text'"),
        (metaTable, "value", "text", "typeof(value) = 'text'"),
        (tablesTable, "name", "text", "typeof(name) = 'text'"),
        (tablesTable, "position", "an integer", "typeof(position) = 'integer'"),
        (tablesTable, "key", "JSON text", "typeof(key) = 'text' AND json_valid(key)"),
        (tablesTable, "refs", "JSON text", "typeof(refs) = 'text' AND json_valid(refs)"),
        (tablesTable, "defaults", "JSON text", "typeof(defaults) = 'text' AND json_valid(defaults)"),
        (ledgerTable, "number", "an integer", "typeof(number) = 'integer'"),
        (ledgerTable, "name", "text", "typeof(name) = 'text'"),
        (ledgerTable, "checksum", "text", "typeof(checksum) = 'text'"),
        (ledgerTable, "applied_at", "text or NULL", "typeof(applied_at) IN ('text', 'null')"),
        (ledgerTable, "origin", "text", "typeof(origin) = 'text'"),
        (fileDigestsTable, "number", "an integer", "typeof(number) = 'integer'"),
        (fileDigestsTable, "sha256", "text", "typeof(sha256) = 'text'"),
    ]

    /// Refuses a store whose seedkit tables hold what seedkit never writes there: a blob or a
    /// number where it writes text, text that is not JSON where it writes JSON.
    ///
    /// Every command and the app's launch call check this before reading the tables, so such a
    /// store is one clear error (exit 3), whichever table is damaged and whatever the command
    /// reads.
    ///
    /// - throws: ``SeedError`` (refused) naming the first such column and what it holds.
    package static func requireWellFormed(_ db: Database) throws {
        var columns: [String: Set<String>] = [:]
        for (table, column, holds, sql) in expectations {
            if columns[table] == nil {
                columns[table] =
                    try db.tableExists(table)
                    ? Set(
                        try String.fetchAll(db, sql: "SELECT lower(name) FROM pragma_table_info(?)", arguments: [table])
                    ) : []
            }
            guard columns[table]?.contains(column) == true else { continue }
            let quoted = column.quotedDatabaseIdentifier
            guard
                let found = try Row.fetchOne(
                    db, sql: "SELECT typeof(\(quoted)), length(\(quoted)) FROM \(table) WHERE NOT (\(sql)) LIMIT 1")
            else { continue }
            let type: String = try value(found, 0, table, column)
            let length = try optionalValue(found, 1, table, column) as Int64? ?? 0
            let what =
                switch type {
                case "blob": "a blob (\(length) bytes)"
                case "null": "NULL"
                case "text": "text that is not JSON"
                default: "a value of type \(type)"
                }
            throw foreign("\(table).\(column) of a row holds \(what), where seedkit writes \(holds)")
        }
    }

    /// Column `index` of a row read from seedkit's table `table`, as `T`.
    ///
    /// seedkit's tables are written only by seedkit, but a store is a file anyone can hand over:
    /// a value of another storage class (a blob where seedkit writes text, text where it writes a
    /// number, NULL) makes the store foreign or corrupt, an error rather than a crash
    /// (docs/reference.md, exit codes).
    ///
    /// - Parameters:
    ///   - row: the row read.
    ///   - index: the column's index in `row`.
    ///   - table: the table read, for the message.
    ///   - column: the column read, for the message.
    ///   - writer: who writes the table (`seedkit`, `Core Data`), as the message says it.
    /// - Returns: the value, of the type seedkit writes there.
    /// - Throws: ``SeedError`` (refused) naming the table and column and what they hold.
    package static func value<T: DatabaseValueConvertible>(
        _ row: Row, _ index: Int, _ table: String, _ column: String, writer: String = "seedkit"
    ) throws(SeedError) -> T {
        let stored: DatabaseValue = row[index]
        if let decoded = T.fromDatabaseValue(stored) { return decoded }
        throw foreign(
            "\(table).\(column) of a row holds \(describe(stored)), not what \(writer) writes there", writer: writer)
    }

    /// An optional column of a bookkeeping table (seedkit's or Core Data's): NULL is nil, any other value must be a `T`.
    package static func optionalValue<T: DatabaseValueConvertible>(
        _ row: Row, _ index: Int, _ table: String, _ column: String, writer: String = "seedkit"
    ) throws(SeedError) -> T? {
        let stored: DatabaseValue = row[index]
        if stored.isNull { return nil }
        return try value(row, index, table, column, writer: writer) as T
    }

    /// The refused-store error for bookkeeping tables holding what their writer never writes.
    package static func foreign(_ what: String, writer: String = "seedkit") -> SeedError {
        writer == "seedkit"
            ? SeedError(
                .refused,
                "foreign or corrupt store: \(what); seedkit writes its own tables (_seedkit_*) only itself, so this store was made or changed by something else; nothing was written"
            )
            : SeedError(
                .refused,
                "foreign or corrupt store: \(what); this store was made or changed by something other than \(writer); nothing was written"
            )
    }

    private static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return "the integer \(number)"
        case .double(let number): return "the real \(number)"
        case .string: return "text"
        case .blob(let data): return "a blob (\(data.count) bytes)"
        }
    }
}
