import Foundation
import GRDB

/// What a run writes into a store that tracks persistent history, recorded as Core Data records
/// it (`docs/swiftdata.md`), and written by ``CoreDataHistory`` in the run's own transaction:
///
/// - each row inserted, updated (with the properties that changed) or deleted;
/// - the other side of each relationship that changed, when the relationship has an inverse: a
///   row whose to-one is set records an update of the row it now points at (its inverse
///   changed), a to-one changed or cleared records updates of the old and the new target, a
///   deleted row records an update of each row it pointed at, a many-to-many link records an
///   update of both rows; a one-to-one that takes its target from another row records an update
///   of that row too;
/// - one change per row per run, merged as one Core Data save merges an object's changes.
extension CoreDataDialect {
    /// Refuses (before anything is written) a store whose persistent history seedkit cannot write.
    package func refuseUnwritableHistory(_ db: Database, tables: String, allowingCloudKit: Bool) throws {
        let mirrored = try Self.cloudKitTables(db)
        if !mirrored.isEmpty && !allowingCloudKit {
            throw SeedError(
                .refused,
                """
                the store is mirrored to CloudKit (\(mirrored.prefix(3).joined(separator: ", "))\(mirrored.count > 3 ? ", …" : "")): \
                NSPersistentCloudKitContainer exports what persistent history records, so the rows seedkit writes, recorded on \
                every device that migrates its own store, would be exported by each of them and duplicate in the user's CloudKit \
                database; nothing was written. Pass --allow-cloudkit when that cannot happen (the entities seedkit writes are not \
                mirrored, or one device only ever runs this), or --without-history to write the rows with no history entries (what CloudKit then does with them, once the app edits them, seedkit cannot say)
                """)
        }
        guard try CoreDataHistory.tracksHistory(db) else {
            throw SeedError(
                .refused,
                "the store tracks Core Data persistent history (\(tables)) without all three of ATRANSACTION, ACHANGE and ATRANSACTIONSTRING, unlike every real store read (docs/swiftdata.md), so seedkit cannot record what it writes; nothing was written. Apply this data update through Core Data in the app, or pass --without-history to write without history entries"
            )
        }
        do { try CoreDataHistory.checkTables(db) } catch let error as SeedError {
            throw SeedError(
                .refused,
                error.diagnostics.map(\.message).joined(separator: "; ")
                    + ". Pass --without-history to write without history entries")
        }
        if facts.history.isEmpty {
            throw SeedError(
                .refused,
                """
                the store tracks Core Data persistent history (\(tables)), and seedkit has no model to record what it writes: \
                the history entries need every entity's properties, which neither the seed (built by an earlier seedkit) \
                nor a model given here records; nothing was written. Give the model (the manifest's \
                model:, or a store that keeps it in Z_MODELCACHE), rebuild the seed with this seedkit, or pass --without-history \
                to write without history entries
                """)
        }
    }

    /// Refuses a build template whose CloudKit mirroring tables hold rows: record metadata of the
    /// device the store was copied from (its records' names, its zone), which every user's store
    /// would otherwise start with, whatever `--allow-cloudkit` or `--without-history` say.
    package static func refuseCloudKitRows(_ db: Database) throws {
        for table in try cloudKitTables(db) {
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table))") ?? 0
            guard rows > 0 else { continue }
            throw SeedError(
                .refused,
                "the template holds CloudKit mirroring metadata (\(table): \(rows) row\(rows == 1 ? "" : "s")) from the device it was copied from, which every seed built from it would give every user; nothing was written. Make the template with seedkit init --coredata STORE, which empties it, or copy the store the app creates before it syncs"
            )
        }
    }

    /// The store's CloudKit mirroring tables (`ANSCKRECORDMETADATA`, …), if any.
    package static func cloudKitTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ANSCK%' ORDER BY name")
    }

    // MARK: - Recording

    /// The model's name of the property stored in column `column` of `entity`'s rows (an
    /// attribute or a to-one relationship); the column's own name when the model has none (so
    /// that the changed-properties mask refuses it, naming it).
    func propertyName(ofColumn column: String, entity: Entity) -> String {
        historyProperties(entity).first {
            $0.kind != .toMany && columnName($0.name, in: modelName(of: entity)).isSameName(as: column)
        }?.name
            // Another entity's inverse-less to-many kept in this table: `Shelf.books` for `Z3BOOKS`.
            ?? heldToManyColumns.first {
                lineageNames(of: modelName(of: entity)).contains(heldDestination($0.key))
                    && $0.value.isSameName(as: column)
            }?.key
            ?? column
    }

    /// The entity an inverse-less to-many named `Owner.relationship` points at.
    private func heldDestination(_ name: String) -> String {
        let owner = String(name.prefix { $0 != "." })
        let relationship = String(name.drop { $0 != "." }.dropFirst())
        return facts.history[owner]?.properties.first { $0.name == relationship }?.destination ?? ""
    }

    /// The inverse of the to-one relationship stored in `column` of `entity`'s rows, or nil.
    func inverseName(ofColumn column: String, entity: Entity) -> String? {
        historyProperties(entity).first {
            $0.kind == .toOne && columnName($0.name, in: modelName(of: entity)).isSameName(as: column)
        }?.inverse
    }

    /// The property of `entity` whose upper-cased name is `stored` (a join column's suffix: `FAVORITES`,
    /// or `FRIENDS1` for the second side of a relationship that is its own inverse).
    func propertyName(stored: String, entity: Entity) -> String? {
        let candidates = [stored.uppercased(), String(stored.uppercased().reversed().drop { $0.isNumber }.reversed())]
        let properties = historyProperties(entity)
        for candidate in candidates {
            if let found = properties.first(where: { $0.name.uppercased() == candidate }) { return found.name }
        }
        return nil
    }

    private func historyProperties(_ entity: Entity) -> [CoreDataModelFacts.Property] {
        facts.history[modelName(of: entity)]?.properties ?? []
    }

    /// Records that this run inserted the row of `entity` whose `Z_PK` is `primaryKey`.
    func recordInsert(entity: Entity, primaryKey: Int64) {
        guard writesHistory else { return }
        session.record(
            .init(entityName: modelName(of: entity), entity: Int(entity.number), primaryKey: primaryKey, kind: .insert))
    }

    /// Records that this run deleted the row of `entity` whose `Z_PK` is `primaryKey`.
    func recordDelete(entity: Entity, primaryKey: SQLValue) {
        guard writesHistory, case .integer(let key) = primaryKey else { return }
        session.record(
            .init(entityName: modelName(of: entity), entity: Int(entity.number), primaryKey: key, kind: .delete))
    }

    /// Records an update of `properties` of the row of `entity` whose `Z_PK` is `primaryKey`.
    func recordUpdate(entity: Entity, primaryKey: SQLValue, properties: Set<String>) {
        guard writesHistory, !properties.isEmpty, case .integer(let key) = primaryKey else { return }
        session.record(
            .init(
                entityName: modelName(of: entity), entity: Int(entity.number), primaryKey: key, kind: .update,
                changed: properties))
    }

    /// Records an update of the row of `table` whose `Z_PK` is `primaryKey` (its entity read from
    /// its `Z_ENT`), of the property `property` names for that entity; nothing when it names none.
    func recordUpdate(_ db: Database, table: String, primaryKey: SQLValue, property: (Entity) -> String?) throws {
        guard writesHistory, primaryKey != .null else { return }
        let number = try SQLValue.fetchOne(
            db.cachedStatement(sql: "SELECT Z_ENT FROM \(quoteIdentifier(table)) WHERE Z_PK = ?"),
            arguments: [primaryKey])
        guard let entity = entities.first(where: { SQLValue.integer($0.number) == number }), let name = property(entity)
        else { return }
        recordUpdate(entity: entity, primaryKey: primaryKey, properties: [name])
    }

    /// Records the update of the row a to-one relationship (stored in `column` of `entity`'s
    /// rows) points at, or pointed at: its inverse changed.
    ///
    /// Nothing when the relationship has no inverse. Another entity's inverse-less to-many kept in
    /// this table (`Shelf.books` in `Z3BOOKS`) is the owner's own property: the owner's update
    /// records it, as pegase's own history shows (an Account inserted into a folder:
    /// EntityFolderAccount `08`, bit 4, `children`).
    func recordInverseUpdate(_ db: Database, entity: Entity?, column: String, parentTable: String, parent: SQLValue)
        throws
    {
        guard writesHistory, let entity, parent != .null else { return }
        let property = propertyName(ofColumn: column, entity: entity)
        if let dot = property.firstIndex(of: ".") {
            let relationship = String(property[property.index(after: dot)...])
            try recordUpdate(db, table: parentTable, primaryKey: parent) { _ in relationship }
            return
        }
        guard let inverse = inverseName(ofColumn: column, entity: entity) else { return }
        try recordUpdate(db, table: parentTable, primaryKey: parent) { _ in inverse }
    }

    // MARK: - Writing

    /// Writes the run's recorded changes to the store's persistent history (one transaction,
    /// see ``CoreDataHistory/write(_:masks:transaction:in:)``), in the run's SQLite transaction,
    /// after its rows.
    ///
    /// Nothing when the dialect does not write history or nothing changed.
    ///
    /// - throws: ``SeedError`` (refused) when an update's changed-properties mask cannot be
    ///   vouched for, or the model lacks an entity written: the caller rolls the run back.
    @discardableResult
    package func writeHistory(_ db: Database, transaction: CoreDataHistory.Transaction) throws -> CoreDataHistory
        .Written?
    {
        guard writesHistory else { return nil }
        let changes = session.recorded()
        var masks: [Int: Data] = [:]
        // Laid out once per entity: a migration may update many rows of one.
        var layouts: [String: CoreDataHistory.MaskLayout] = [:]
        // Every refusal is named, once each, not only the first the run met (issue 42).
        var refusals: [Diagnostic] = []
        func refuse(_ error: SeedError) {
            for diagnostic in error.diagnostics where !refusals.contains(where: { $0.message == diagnostic.message }) {
                refusals.append(diagnostic)
            }
        }
        for (index, change) in changes.enumerated() where change.kind == .update {
            guard let entity = facts.history[change.entityName] else {
                refuse(
                    SeedError(
                        .refused,
                        "cannot record the update of \(change.entityName) in the store's persistent history: the model seedkit has lists no entity \(change.entityName); nothing was written. Pass --without-history to write without history entries"
                    ))
                continue
            }
            if layouts[change.entityName] == nil {
                let properties = entity.properties.map { property in
                    CoreDataHistory.Property(
                        name: property.name, kind: property.kind,
                        unvouched: property.unvouched,
                        // A destination the facts do not list is refused as one that inherits.
                        destinationInherits: property.kind != .attribute
                            && (property.destination.flatMap { facts.history[$0]?.inherits } ?? true),
                        composite: property.composite,
                        ownEntity: ownEntity(property, of: change.entityName, entity))
                }
                do {
                    layouts[change.entityName] = try CoreDataHistory.MaskLayout(
                        entity: change.entityName, properties: properties, inherits: entity.inherits)
                } catch {
                    refuse(error)
                }
            }
            guard let layout = layouts[change.entityName] else { continue }
            do { masks[index] = try layout.mask(changed: change.changed) } catch { refuse(error) }
        }
        if !refusals.isEmpty { throw SeedError(.refused, refusals) }
        return try CoreDataHistory.write(changes, masks: masks, transaction: transaction, in: db)
    }

    /// How `property` of `name` points at its own entity: a to-many whose inverse (on the same
    /// entity) is a to-one is a one-to-many (`SDFolder.folders`); any other relationship to it is
    /// `.other`; nil for attributes and relationships to other entities.
    private func ownEntity(
        _ property: CoreDataModelFacts.Property, of name: String, _ entity: CoreDataModelFacts.HistoryEntity
    ) -> CoreDataHistory.Property.OwnEntity? {
        guard property.kind != .attribute, property.destination == name else { return nil }
        let inverseIsToOne = entity.properties.contains { $0.name == property.inverse && $0.kind == .toOne }
        return property.kind == .toMany && inverseIsToOne ? .oneToMany : .other
    }

    // MARK: - Builds

    /// The highest `Z_PK` of each root entity's table (or its `Z_MAX` when higher), before a
    /// build loads rows: ``recordBuiltRows(_:after:)`` takes every row above it as inserted.
    package func keyMarks(_ db: Database) throws -> [Int64: Int64] {
        var marks: [Int64: Int64] = [:]
        for entity in entities where entity.superEntity == 0 && entity.number < CoreDataHistory.changeEntity {
            let table = tableName(entity.name)
            guard try db.tableExists(table) else { continue }
            let recorded =
                try Int64.fetchOne(
                    db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity.number]) ?? 0
            let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(quoteIdentifier(table))") ?? 0
            marks[entity.number] = max(recorded, highest)
        }
        return marks
    }

    /// Refuses to write history for a build into a template that holds rows: seedkit records a
    /// build as one transaction of inserts only, true only when every row it relates is its own.
    package func refuseHistoryForTemplateWithRows(_ db: Database) throws {
        guard writesHistory else { return }
        for entity in entities where entity.superEntity == 0 && entity.number < CoreDataHistory.changeEntity {
            let table = tableName(entity.name)
            guard try db.tableExists(table),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table))") ?? 0 > 0
            else { continue }
            throw SeedError(
                .refused,
                "the template tracks Core Data persistent history and already holds rows (\(table)): seedkit records a build as one transaction that inserts every row, which is what Core Data records only when no row it relates existed before; nothing was written. Build into the store as the app creates it, without rows (seedkit init --coredata empties one), or pass --without-history"
            )
        }
    }

    /// Records every row of a root entity's table above its mark (``keyMarks(_:)``) as inserted.
    package func recordBuiltRows(_ db: Database, after marks: [Int64: Int64]) throws {
        guard writesHistory else { return }
        for entity in entities where entity.superEntity == 0 {
            guard let mark = marks[entity.number] else { continue }
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT Z_ENT, Z_PK FROM \(quoteIdentifier(tableName(entity.name))) WHERE Z_PK > ? ORDER BY Z_PK",
                arguments: [mark])
            for row in rows {
                let number: Int64 = row[0]
                guard let rowEntity = entities.first(where: { $0.number == number }) else { continue }
                recordInsert(entity: rowEntity, primaryKey: row[1])
            }
        }
    }
}

extension CoreDataDialect {
    /// What a store's persistent history holds, for `inspect`: `tracked: 14 transactions, 2390
    /// changes in all; the last by seedkit at 2026-11-26T07:00:00Z, with 3 changes` (what each
    /// count counts, in so many words); nil when the store does not track history.
    package static func historySummary(_ db: Database) throws -> String? {
        guard let tables = try historyTables(db) else { return nil }
        guard try CoreDataHistory.tracksHistory(db) else {
            return "tracked (\(tables)), but without all three history tables: seedkit writes no history here"
        }
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION") ?? 0
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE") ?? 0
        var summary =
            "tracked: \(count) transaction\(count == 1 ? "" : "s"), \(total) change\(total == 1 ? "" : "s") in all"
        if let last = try Row.fetchOne(
            db,
            sql: """
                SELECT t.Z_PK, t.ZTIMESTAMP, coalesce((SELECT s.ZNAME FROM ATRANSACTIONSTRING AS s WHERE s.Z_PK = t.ZAUTHORTS), t.ZAUTHOR) AS author,
                       (SELECT count(*) FROM ACHANGE AS c WHERE c.ZTRANSACTIONID = t.Z_PK) AS changes
                FROM ATRANSACTION AS t ORDER BY t.Z_PK DESC LIMIT 1
                """)
        {
            let seconds: Double? = last["ZTIMESTAMP"]
            let formatter = ISO8601DateFormatter()
            let when =
                seconds.map { formatter.string(from: Date(timeIntervalSinceReferenceDate: $0.rounded(.down))) }
                ?? "an unknown time"
            let changes: Int = last["changes"] ?? 0
            let author: String? = last["author"]
            summary +=
                "; the last " + (author.map { "by \($0) at \(when)" } ?? "at \(when), without an author")
                + ", with \(changes) change\(changes == 1 ? "" : "s")"
        }
        let mirrored = try cloudKitTables(db)
        if !mirrored.isEmpty { summary += "; mirrored to CloudKit (\(mirrored.count) ANSCK… tables)" }
        return summary
    }
}
