import Foundation
public import GRDB

/// One migration as the store recorded it.
public struct LedgerEntry: Sendable, Equatable {
    /// Whether the migration came with the seed (`seed`) or was applied to the store (`applied`).
    public enum Origin: String, Sendable { case seed, applied }

    /// The migration's number.
    public var number: Int
    /// The migration's name, after its number.
    public var name: String
    /// `sha256:` followed by the hex digest.
    public var checksum: String
    /// ISO 8601 UTC; nil for migrations the seed came with.
    public var appliedAt: String?
    /// Seed or applied.
    public var origin: Origin

    /// `0001-add-fourth-book`.
    public var id: String { Migration.id(number: number, name: name) }

    /// A ledger row.
    package init(number: Int, name: String, checksum: String, appliedAt: String?, origin: Origin) {
        self.number = number
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
        self.origin = origin
    }
}

/// Reads and writes the `_seedkit_migrations` table.
public enum MigrationLedger {
    /// The recorded migrations in number order; empty when the store has no ledger.
    public static func entries(_ db: Database) throws -> [LedgerEntry] {
        guard try db.tableExists(SeedCatalog.ledgerTable) else { return [] }
        return try Row.fetchAll(
            db, sql: "SELECT number, name, checksum, applied_at, origin FROM \(SeedCatalog.ledgerTable) ORDER BY number"
        ).map { row throws(SeedError) in
            let table = SeedCatalog.ledgerTable
            let origin: String = try SeedCatalog.value(row, 4, table, "origin")
            return LedgerEntry(
                number: try SeedCatalog.value(row, 0, table, "number"),
                name: try SeedCatalog.value(row, 1, table, "name"),
                checksum: try SeedCatalog.value(row, 2, table, "checksum"),
                appliedAt: try SeedCatalog.optionalValue(row, 3, table, "applied_at"),
                origin: LedgerEntry.Origin(rawValue: origin) ?? .applied)
        }
    }

    /// Records one migration.
    package static func record(_ entry: LedgerEntry, in db: Database) throws {
        try db.execute(sql: SeedCatalog.createLedger)
        try db.execute(
            sql:
                "INSERT INTO \(SeedCatalog.ledgerTable)(number, name, checksum, applied_at, origin) VALUES (?, ?, ?, ?, ?)",
            arguments: [entry.number, entry.name, entry.checksum, entry.appliedAt, entry.origin.rawValue])
    }

    /// The SHA-256 of each large JSON migration's bytes, by number, as the run that applied it
    /// read them (``recordFileDigest(number:sha256:in:)``); empty for a store without any.
    package static func fileDigests(_ db: Database) throws -> [Int: String] {
        guard try db.tableExists(SeedCatalog.fileDigestsTable) else { return [:] }
        let rows = try Row.fetchAll(db, sql: "SELECT number, sha256 FROM \(SeedCatalog.fileDigestsTable)")
        let table = SeedCatalog.fileDigestsTable
        return Dictionary(
            try rows.map { (row: Row) throws(SeedError) -> (Int, String) in
                (try SeedCatalog.value(row, 0, table, "number"), try SeedCatalog.value(row, 1, table, "sha256"))
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Records the bytes' digest of a large JSON migration the run applied, beside its ledger row:
    /// a later launch that finds the same bytes knows the checksum without scanning the file.
    package static func recordFileDigest(number: Int, sha256: String, in db: Database) throws {
        try db.execute(sql: SeedCatalog.createFileDigests)
        try db.execute(
            sql: "INSERT OR REPLACE INTO \(SeedCatalog.fileDigestsTable)(number, sha256) VALUES (?, ?)",
            arguments: [number, sha256])
    }

    /// Now, as the ledger writes it: `2026-11-22T03:01:23Z`.
    package static func timestamp(_ date: Date = Date()) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
