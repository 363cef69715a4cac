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

    static let createMeta = "CREATE TABLE IF NOT EXISTS \(metaTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID"
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
            try db.execute(sql: "INSERT OR REPLACE INTO \(metaTable)(key, value) VALUES (?, ?)", arguments: [key, value])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (position, spec) in tables.enumerated() {
            let key = String(decoding: try encoder.encode(spec.key), as: UTF8.self)
            let refs = String(decoding: try encoder.encode(spec.refs), as: UTF8.self)
            // Defaults as SQL literals, so that a value keeps its storage class.
            let defaults = String(decoding: try encoder.encode(spec.defaults.mapValues(\.sqlLiteral)), as: UTF8.self)
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(tablesTable)(name, position, key, refs, defaults) VALUES (?, ?, ?, ?, ?)",
                arguments: [spec.name, position, key, refs, defaults])
        }
    }

    /// The metadata of a seedkit seed; empty for other stores.
    package static func meta(_ db: Database) throws -> [String: String] {
        guard try db.tableExists(metaTable) else { return [:] }
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \(metaTable)") {
            result[row[0]] = row[1]
        }
        return result
    }

    /// The table specs recorded in the store, in load order; nil when the store has none.
    package static func tableSpecs(_ db: Database) throws -> [TableSpec]? {
        guard try db.tableExists(tablesTable) else { return nil }
        let decoder = JSONDecoder()
        // Seeds built before defaults were recorded have no such column.
        let hasDefaults = try Bool.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info(?) WHERE name = 'defaults'", arguments: [tablesTable]) ?? false
        return try Row.fetchAll(db, sql: "SELECT name, key, refs, \(hasDefaults ? "defaults" : "'{}'") FROM \(tablesTable) ORDER BY position").map { row in
            let key = try decoder.decode([String].self, from: Data((row[1] as String).utf8))
            let refs = try decoder.decode([String: TableSpec.Reference].self, from: Data((row[2] as String).utf8))
            let literals = try decoder.decode([String: String].self, from: Data((row[3] as String).utf8))
            return TableSpec(name: row[0], key: key, refs: refs, defaults: literals.compactMapValues(SQLValue.init(sqlLiteral:)))
        }
    }
}
