import Foundation
import GRDB

/// Persistent-history entries for what seedkit writes into a Core Data store that tracks
/// history (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`; `Z_ENT` 16001–16003), written as
/// the real stores in `docs/swiftdata.md` show Core Data writing them: one transaction per run
/// under the author `seedkit`, one change per inserted, updated or deleted row, `Z_MAX` moved.
///
/// What the real stores do not show is refused with ``SeedError/Kind/refused`` before anything
/// is written: an update whose changed-properties mask (`ZCOLUMNS`) cannot be vouched for, a
/// delete when `ACHANGE` keeps tombstones, history tables whose columns differ from the real ones.
///
/// Call ``write(_:transaction:in:)`` inside the same SQLite transaction as the rows it records,
/// after they are written, so that the history commits or rolls back with them.
package enum CoreDataHistory {
    /// `Z_ENT` of the three history entities, as `Z_PRIMARYKEY` keeps them.
    package static let changeEntity = 16001
    package static let transactionEntity = 16002
    package static let stringEntity = 16003

    /// The columns the real stores' history tables have (`docs/swiftdata.md`).
    static let changeColumns = [
        "Z_PK", "Z_ENT", "Z_OPT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS",
    ]
    static let transactionColumns = [
        "Z_PK", "Z_ENT", "Z_OPT", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP",
        "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN",
    ]
    static let stringColumns = ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]

    /// What happened to a row: `ZCHANGETYPE` 0, 1, 2.
    package enum Kind: Int, Sendable, Comparable {
        case insert = 0
        case update = 1
        case delete = 2
        package static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A property of an entity, as the changed-properties mask counts it.
    package struct Property: Sendable, Equatable {
        /// Recorded in a seed's model facts by these names (``CoreDataModelFacts/Property/kind``).
        package enum Kind: String, Sendable, Codable { case attribute, toOne, toMany }
        package var name: String
        package var kind: Kind
        /// Transient and derived properties: never seen in a mask, so an entity with one is refused.
        package var unvouched: Bool
        /// A relationship whose destination entity has a parent or sub-entities (or is not known):
        /// the one real store with such a to-one (Notes' `ICCloudState.cloudSyncingObject`) shows a
        /// mask one bit wider than the entity's properties, so an entity with one is refused.
        package var destinationInherits: Bool
        /// An element of a composite attribute (a SwiftData `Codable` enum or struct), named
        /// `folderType.user` (an enum with raw values: as the composite).
        ///
        /// Each counts as one property, the composite itself not (ChefTime's `SDFolder`); where
        /// among the attributes, no store shows.
        package var composite: Bool
        /// How a relationship points at its own entity (`SDFolder.parentFolder`, `.folders`), or nil.
        package var ownEntity: OwnEntity?

        /// How a relationship points at the entity it belongs to.
        package enum OwnEntity: Sendable, Equatable {
            /// A to-many whose inverse is a to-one (`SDFolder.folders`, inverse `parentFolder`): after
            /// the other to-manys or not counted at all (ChefTime's `SDFolder` shows one or the other).
            case oneToMany
            /// A to-one (counted: `SDFolder.parentFolder`), or a to-many whose inverse is a to-many or
            /// missing: no store shows its place.
            case other
        }

        package init(
            name: String, kind: Kind, unvouched: Bool = false, destinationInherits: Bool = false,
            composite: Bool = false, ownEntity: OwnEntity? = nil
        ) {
            self.name = name
            self.kind = kind
            self.unvouched = unvouched
            self.destinationInherits = destinationInherits
            self.composite = composite
            self.ownEntity = ownEntity
        }
    }

    /// One row seedkit wrote.
    package struct Change: Sendable, Equatable {
        /// The entity's name, for messages.
        package var entityName: String
        /// The row's `Z_ENT`.
        package var entity: Int
        /// The row's `Z_PK`.
        package var primaryKey: Int64
        package var kind: Kind
        /// For updates: the names of the properties that changed (relationships whose other
        /// side changed included: Core Data records those as updates, see `docs/swiftdata.md`).
        package var changed: Set<String>

        package init(entityName: String, entity: Int, primaryKey: Int64, kind: Kind, changed: Set<String> = []) {
            self.entityName = entityName
            self.entity = entity
            self.primaryKey = primaryKey
            self.kind = kind
            self.changed = changed
        }
    }

    /// Who the transaction says wrote it.
    package struct Transaction: Sendable, Equatable {
        /// `ZAUTHORTS` → this string: what an app's history consumers filter on.
        package var author: String = "seedkit"
        /// `ZBUNDLEIDTS` → this string (real stores: the app's bundle identifier).
        package var bundleID: String = "seedkit"
        /// `ZPROCESSIDTS` → this string (real stores: the process name).
        package var processID: String = "seedkit"
        /// `ZCONTEXTNAMETS` → this string, or NULL as every real store read shows.
        package var contextName: String? = nil
        /// When; stored as seconds since 2001-01-01 UTC.
        package var timestamp: Date = Date()

        package init(
            author: String = "seedkit", bundleID: String = "seedkit", processID: String = "seedkit",
            contextName: String? = nil, timestamp: Date = Date()
        ) {
            self.author = author
            self.bundleID = bundleID
            self.processID = processID
            self.contextName = contextName
            self.timestamp = timestamp
        }
    }

    /// What ``write(_:transaction:in:)`` wrote.
    package struct Written: Sendable, Equatable {
        /// The new `ATRANSACTION.Z_PK`.
        package var transaction: Int64
        /// The `ACHANGE.Z_PK`s, in the order written.
        package var changes: [Int64]
    }

    /// Whether the store has the history tables (all three must be there to write).
    package static func tracksHistory(_ db: Database) throws -> Bool {
        try Int.fetchOne(
            db,
            sql:
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ATRANSACTION', 'ACHANGE', 'ATRANSACTIONSTRING')"
        ) == 3
    }

    /// Writes one `ATRANSACTION` and one `ACHANGE` per change, and moves `Z_MAX` of 16001–16003.
    ///
    /// `masks` gives `ZCOLUMNS` for each update (by index in `changes`), computed with
    /// ``columnsMask(entity:properties:changed:inherits:)``; an update without one is refused. With
    /// no changes nothing is written and nil returned.
    @discardableResult
    package static func write(
        _ changes: [Change], masks: [Int: Data], transaction: Transaction = Transaction(), in db: Database
    ) throws -> Written? {
        guard !changes.isEmpty else { return nil }
        try checkTables(db)
        for (index, change) in changes.enumerated() where change.kind == .update && masks[index] == nil {
            throw SeedError(
                .refused,
                "cannot record the update of \(change.entityName) \(change.primaryKey) in the store's persistent history: no changed-properties mask (ZCOLUMNS) for it; nothing was written"
            )
        }
        if changes.contains(where: { $0.kind == .delete }), let tombstone = try tombstoneColumns(db).first {
            throw SeedError(
                .refused,
                "cannot record deletes in the store's persistent history: ACHANGE keeps tombstones (\(tombstone)…), and no real store shows which attribute each tombstone column holds; nothing was written. Pass --without-history to write without history entries"
            )
        }
        let strings = try [transaction.author, transaction.bundleID, transaction.processID, transaction.contextName].map
        { name in
            try name.map { try internedString($0, in: db) }
        }
        let transactionKey = try nextKey(entity: transactionEntity, table: "ATRANSACTION", in: db)
        try db.execute(
            sql: """
                INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP, ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID, ZQUERYGEN)
                VALUES (?, ?, NULL, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL)
                """,
            arguments: [
                transactionKey, transactionEntity, strings[0], strings[1], strings[3], strings[2],
                transaction.timestamp.timeIntervalSinceReferenceDate,
            ])
        try setMax(entity: transactionEntity, name: "TRANSACTION", to: transactionKey, in: db)
        // Inserts, then updates, then deletes; by entity number, then key (the real stores' order).
        let ordered = changes.indices.sorted {
            (changes[$0].kind, changes[$0].entity, changes[$0].primaryKey) < (
                changes[$1].kind, changes[$1].entity, changes[$1].primaryKey
            )
        }
        var key = try nextKey(entity: changeEntity, table: "ACHANGE", in: db) - 1
        var written: [Int64] = []
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)"
        )
        for index in ordered {
            let change = changes[index]
            key += 1
            try insert.execute(arguments: [
                key, changeEntity, change.kind.rawValue, change.entity, change.primaryKey, transactionKey,
                change.kind == .update ? masks[index] : nil,
            ])
            written.append(key)
        }
        try setMax(entity: changeEntity, name: "CHANGE", to: key, in: db)
        return Written(transaction: transactionKey, changes: written)
    }

    /// Refuses history tables that are not shaped as the real stores' are.
    static func checkTables(_ db: Database) throws {
        for (table, expected) in [
            ("ACHANGE", changeColumns), ("ATRANSACTION", transactionColumns), ("ATRANSACTIONSTRING", stringColumns),
        ] {
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).map
            { $0.uppercased() }
            guard !columns.isEmpty else {
                throw SeedError(
                    .refused, "cannot write persistent history: the store has no \(table) table; nothing was written")
            }
            let extra =
                table == "ACHANGE"
                ? columns.filter { !expected.contains($0) && !$0.hasPrefix("ZTOMBSTONE") }
                : columns.filter { !expected.contains($0) }
            if let missing = expected.first(where: { !columns.contains($0) }) ?? extra.first {
                throw SeedError(
                    .refused,
                    "cannot write persistent history: \(table) has columns (\(columns.joined(separator: ", "))) unlike the real stores' (\(expected.joined(separator: ", "))), at \(missing); nothing was written"
                )
            }
        }
    }

    static func tombstoneColumns(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM pragma_table_info('ACHANGE') WHERE upper(name) LIKE 'ZTOMBSTONE%' ORDER BY cid")
    }

    /// The `ATRANSACTIONSTRING` row holding `name`, added if there is none.
    static func internedString(_ name: String, in db: Database) throws -> Int64 {
        if let existing = try Int64.fetchOne(
            db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ? ORDER BY Z_PK LIMIT 1", arguments: [name])
        {
            return existing
        }
        let key = try nextKey(entity: stringEntity, table: "ATRANSACTIONSTRING", in: db)
        try db.execute(
            sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
            arguments: [key, stringEntity, name])
        try setMax(entity: stringEntity, name: "TRANSACTIONSTRING", to: key, in: db)
        return key
    }

    /// `max(Z_MAX, max(Z_PK)) + 1`: a real store's `Z_MAX` for strings runs ahead of its rows.
    static func nextKey(entity: Int, table: String, in db: Database) throws -> Int64 {
        let recorded =
            try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)") ?? 0
        return max(recorded, highest) + 1
    }

    /// Moves `Z_MAX` up to `key` (adding the `Z_PRIMARYKEY` row, named as the real stores name it, if missing).
    static func setMax(entity: Int, name: String, to key: Int64, in db: Database) throws {
        if try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) == 0 {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                arguments: [entity, name, key])
        } else {
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND (Z_MAX IS NULL OR Z_MAX < ?)",
                arguments: [key, entity, key])
        }
    }
}
