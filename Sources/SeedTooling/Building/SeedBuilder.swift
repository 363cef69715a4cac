import Foundation
import GRDB
public import SeedRuntime

/// Compiles a manifest's fixtures into a seed SQLite file (`seedkit build`, docs/reference.md).
///
/// ```swift
/// let builder = SeedBuilder(manifest: try Manifest.load(path: "seeds/seedkit.yml"), migrations: migrations)
/// let summary = try builder.build(to: URL(fileURLWithPath: "build/seed.sqlite"))
/// ```
///
/// Everything is validated and every problem reported in one ``SeedError``; on any error
/// no output is written and an earlier output is left as it was. Success replaces the
/// output atomically (temporary file, fsync, rename). Identical inputs give identical bytes.
public struct SeedBuilder: Sendable {
    /// The project's manifest: the schema, the fixtures and their rules.
    public var manifest: Manifest
    /// The migrations present at build time; the seed records them as already contained.
    ///
    /// Empty while they are read beside the build (``init(manifest:readingMigrations:)``):
    /// ``readMigrations()`` gives them.
    public var migrations: [Migration]
    /// The migrations being read on another thread, or nil.
    var reading: MigrationReading?
    /// Called on the building thread after each batch: table, rows so far, bytes read, file size.
    public var progress: (@Sendable (_ table: String, _ rows: Int, _ bytesRead: Int, _ fileSize: Int) -> Void)?
    /// Fill a Core Data template that tracks persistent history without history entries.
    ///
    /// By default such a template gets one transaction (author `seedkit`) inserting every row.
    public var allowsMissingHistory = false
    /// Write history into a template mirrored to CloudKit (`ANSCK…` tables); refused by default.
    public var allowsCloudKit = false
    /// The time of the history transaction a build into a template that tracks history writes:
    /// fixed (2001-01-01, Core Data's reference date, unless given, as from SOURCE_DATE_EPOCH)
    /// so that a build stays byte-identical for identical inputs.
    public var historyTimestamp = Date(timeIntervalSinceReferenceDate: 0)
    /// Read every loaded table back through SQLite and fail the build (exit 4) when it differs
    /// from the fixture's converted records (docs/reference.md, "What build checks").
    ///
    /// On by default.
    public var readsBack = true
    /// Counts each statement the build runs on the seed: its work, counted rather than clocked
    /// (a test doubles the rows and expects at most twice the count).
    package var statements: StatementCount?

    /// What a build did.
    public struct Summary: Sendable {
        /// Each table with the rows loaded, in load order.
        public var tables: [(name: String, rows: Int)]
        /// The seed's size in bytes.
        public var bytes: Int
        /// How long the build took, in seconds.
        public var seconds: Double
        /// The hash of the seed's content (`_seedkit_meta`), the same for the same rows whatever
        /// the file's bytes.
        public var contentHash: String
        /// How many migrations the seed records as applied.
        public var migrations: Int
    }

    /// The most diagnostics a build collects before it stops listing them.
    public static let diagnosticLimit = 1000

    /// A builder of `manifest`'s fixtures, with `migrations` recorded in the seed as applied.
    public init(manifest: Manifest, migrations: [Migration]) {
        self.manifest = manifest
        self.migrations = migrations
    }

    /// Builds the seed into `output`, atomically.
    ///
    /// - throws: ``SeedError``: `.invalidData` with every fixture problem, `.configuration`
    ///   for manifest, schema and file problems, `.io` when the output can't be written.
    public func build(to output: URL) throws(SeedError) -> Summary {
        try migrationsFirst { () throws(SeedError) in try buildNow(to: output) }
    }

    private func buildNow(to output: URL) throws(SeedError) -> Summary {
        let start = Date()
        try refuseUnfitOutput(output)
        let directory = output.deletingLastPathComponent()
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw SeedError(.io, file: output.path, "cannot create the output folder: \(error.localizedDescription)")
        }
        // The seed is written beside the output, then renamed: a folder that refuses new files is named as such.
        guard access(directory.path, W_OK) == 0 else {
            throw SeedError(
                .io, file: output.path,
                "the folder \(directory.path) is read-only: the seed is written beside its output and renamed into place; make the folder writable or choose another --output; nothing was written"
            )
        }
        let temporary = Self.temporaryURL(for: output)
        ProcessTemporaryFile.removeStale(beside: output)  // those of builds that were killed
        removeDatabaseFiles(temporary)
        defer { removeDatabaseFiles(temporary) }
        let (tables, hash) = try buildDatabase(at: temporary)
        // Migrations read beside the build: the output is not one of them (an empty .sql file).
        if reading != nil { try refuseOutputAmong(try readMigrations().map(\.file), output) }
        try SeedInstaller.fsync(path: temporary.path)
        guard rename(temporary.path, output.path) == 0 else {
            throw SeedError(
                .io, file: output.path, "cannot move the built seed into place: \(String(cString: strerror(errno)))")
        }
        try? SeedInstaller.fsync(path: directory.path)
        let size = FileFacts.size(output.path) ?? 0
        return Summary(
            tables: tables, bytes: size, seconds: Date().timeIntervalSince(start), contentHash: hash,
            migrations: try readMigrations().count)
    }

    /// Where a build of `output` writes before the rename: a hidden file beside it, named
    /// after this process, so that an interrupted build can be cleaned up (see the CLI).
    public static func temporaryURL(for output: URL) -> URL {
        ProcessTemporaryFile.url(beside: output)
    }

    /// Where ``isUpToDate(_:)`` builds: `seedkit-check-<pid>.sqlite` in the temporary folder.
    public static var checkURL: URL { ProcessTemporaryFile.url(temporary: "check") }

    /// Builds into a temporary file and compares it byte for byte with `output`.
    ///
    /// - returns: true when `output` exists and equals a fresh build. Never writes `output`.
    public func isUpToDate(_ output: URL) throws(SeedError) -> Bool {
        let temporary = Self.checkURL
        ProcessTemporaryFile.removeStale(temporary: "check")
        defer { removeDatabaseFiles(temporary) }
        _ = try migrationsFirst { () throws(SeedError) in try buildDatabase(at: temporary) }
        guard let existing = FileManager.default.contents(atPath: output.path),
            let fresh = FileManager.default.contents(atPath: temporary.path)
        else { return false }
        return existing == fresh
    }

    private func removeDatabaseFiles(_ url: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    // MARK: - Building

    /// Why this manifest can't be built, or nil.
    public static func unsupported(_ manifest: Manifest) -> SeedError? {
        let unfiled = manifest.tables.filter { !$0.hasFile && $0.query == nil && !$0.migrateOnly }.map { table in
            Diagnostic(
                file: manifest.path, line: table.line, column: table.column, code: .configuration,
                message:
                    "table '\(table.name)' has no file: or query: (a build loads every table from its fixture or its query; give it migrate_only: true if the seed leaves it empty and only migrations change its rows)"
            )
        }
        if !unfiled.isEmpty { return SeedError(.configuration, unfiled) }
        guard case .none = manifest.source else { return nil }
        if manifest.model != nil {
            return SeedError(
                .configuration, file: manifest.path,
                "a Core Data seed is built by filling a template: add template: (a store the app created with this model)"
            )
        }
        return SeedError(
            .configuration, file: manifest.path, "a build needs schema: (a .sql file) or template: (an empty store)")
    }

    private func buildDatabase(at path: URL) throws(SeedError) -> (tables: [(name: String, rows: Int)], hash: String) {
        if let error = Self.unsupported(manifest) { throw error }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.journalMode = .default
        if let statements {
            configuration.prepareDatabase { db in statements.count(db) }
        }
        let queue: DatabaseQueue
        do {
            if case .template(let template) = manifest.source {
                try copyTemplate(template, to: path)
            }
            queue = try DatabaseQueue(path: path.path, configuration: configuration)
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(databaseError: error, file: path.path)
        }
        do {
            let result = try queue.writeWithoutTransaction { db in
                do {
                    return try build(db)
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
            try queue.close()
            return result
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(databaseError: error)
        }
    }

    private func copyTemplate(_ template: URL, to path: URL) throws(SeedError) {
        let shown = displayPath(template)
        guard FileManager.default.fileExists(atPath: template.path) else {
            throw SeedError(.configuration, file: shown, "the template store does not exist")
        }
        // StoreAccess: a plain read-only connection leaves -wal and -shm beside a WAL-mode
        // template (SwiftData's default.store is one).
        let source: DatabaseQueue
        do { source = try StoreAccess.openReadOnly(template.path) } catch {
            throw SeedError(
                .configuration, file: shown,
                "cannot use the template store: \(error.diagnostics.map(\.message).joined(separator: "; "))")
        }
        do {
            let destination = try DatabaseQueue(path: path.path)
            try source.backup(to: destination)
            try destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try destination.close()
            try source.close()
        } catch {
            throw SeedError(
                .configuration, file: shown,
                "cannot use the template store: \((error as? DatabaseError)?.message ?? "\(error)")")
        }
    }

    private func build(_ db: Database) throws -> (tables: [(name: String, rows: Int)], hash: String) {
        // A seed is one self-contained file, written once: no journal on disk while building
        // (the file is renamed into place only when whole), a fixed page size so identical
        // inputs give identical bytes. The journal is kept in memory, not off: a multi-row
        // INSERT that fails must leave none of its rows (TableLoader re-runs them one by one),
        // and only a journal lets SQLite roll a failed statement back.
        try db.execute(sql: "PRAGMA page_size = 4096")
        try db.execute(sql: "PRAGMA journal_mode = MEMORY")
        try db.execute(sql: "PRAGMA synchronous = OFF")
        try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        try db.execute(sql: "PRAGMA cache_size = -16384")
        var contentHash = SHA256()
        contentHash.update("seedkit-seed-format:\(SeedCatalog.formatVersion)\n".utf8)
        try db.execute(sql: "BEGIN")
        if case .schema(let schema) = manifest.source {
            let shown = displayPath(schema)
            guard FileManager.default.fileExists(atPath: schema.path) else {
                throw SeedError(
                    .configuration, file: shown, "the schema file does not exist (manifest: \(manifest.path))")
            }
            try FileFacts.refuseSpecial(schema.path, shown: shown, what: "the schema")
            guard let data = FileManager.default.contents(atPath: schema.path),
                let sql = String(data: data, encoding: .utf8)
            else {
                throw SeedError(.configuration, file: shown, "cannot read the schema file (not readable, or not UTF-8)")
            }
            do { try db.execute(sql: sql) } catch let error as DatabaseError {
                throw SeedError(.configuration, file: shown, "the schema does not run: \(error.message ?? "\(error)")")
            }
        }
        for sql in try String.fetchAll(
            db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name")
        {
            contentHash.update(sql.utf8)
            contentHash.update([0])
        }
        // A Core Data template: entities and attributes map to Z tables and columns, rows get Z_ENT and Z_OPT.
        // A refusal is the template's: it names the template store.
        let template: String? = if case .template(let url) = manifest.source { displayPath(url) } else { nil }
        func aboutTemplate<T>(_ body: () throws -> T) throws -> T {
            do { return try body() } catch let error as SeedError where error.kind == .refused {
                throw template.map(error.about(store:)) ?? error
            }
        }
        let coreData = try aboutTemplate {
            try CoreDataDialect.detect(
                db, facts: manifest.model?.facts, allowingMissingHistory: allowsMissingHistory,
                allowingCloudKit: allowsCloudKit)
        }
        // History records the build as one transaction of inserts: only true of a template without rows.
        try aboutTemplate { try coreData?.refuseHistoryForTemplateWithRows(db) }
        // A template is the store as the app created it: one seedkit wrote (a seed, a store it
        // migrated) would give every seed built from it that store's ledger.
        if let template, case let ledger = try MigrationLedger.entries(db), !ledger.isEmpty {
            let listed = ledger.prefix(3).map(\.id).joined(separator: ", ") + (ledger.count > 3 ? ", …" : "")
            throw SeedError(
                .refused,
                "the template is a store seedkit has written (its ledger lists \(ledger.count) migration\(ledger.count == 1 ? "" : "s"): \(listed)), not the store as the app created it: every seed built from it would claim those migrations; nothing was written. Make the template with seedkit init --coredata STORE, which takes seedkit's tables out"
            ).about(store: template)
        }
        // Another device's CloudKit record metadata must not ship in a seed, with history or without.
        if coreData != nil { try aboutTemplate { try CoreDataDialect.refuseCloudKitRows(db) } }
        let keyMarks = try coreData?.keyMarks(db) ?? [:]
        if manifest.model != nil && coreData == nil {
            throw SeedError(
                .configuration, file: manifest.path,
                "the template is not a Core Data store (it has no \(CoreDataDialect.storeTables)): use the store the app created with this model"
            )
        }
        let dialect: any StoreDialect = coreData ?? PlainSQLiteDialect()
        let plans = try resolveManifest(db, dialect: dialect, coreData: coreData)
        try aboutTemplate { try coreData?.refuseDerivedAttributes(in: plans.map(\.table.name)) }
        let keyIndexes = try ensureUniqueKeys(db, plans: plans)

        var diagnostics: [Diagnostic] = []
        var counts: [(name: String, rows: Int)] = []
        let rowsBefore = try tableRowCounts(db, plans: plans)
        try noteRowsBefore(db, plans: plans, counts: rowsBefore)
        let deferral = Deferral(plans: plans)
        if !manifest.sources.isEmpty {
            // sources: loaded into a scratch database that query: tables read (never into the seed).
            let scratch = try SourceDatabase.load(manifest, diagnostics: &diagnostics)
            if !diagnostics.isEmpty { throw SeedError(.invalidData, capped(diagnostics)) }
            let unprepared = SourceDatabase.unpreparedQueries(manifest, in: scratch.queue)
            if !unprepared.isEmpty { throw SeedError(.configuration, unprepared) }
            deferral.sources = scratch
        }
        for (index, plan) in plans.enumerated() {
            let (rows, hash) = try load(plan, index: index, deferral: deferral, db: db, diagnostics: &diagnostics)
            counts.append((plan.config.name, rows))
            contentHash.update("\(plan.table.name)\n".utf8)
            contentHash.update(hash)
        }
        try insertParked(deferral, db: db, counts: &counts, diagnostics: &diagnostics)
        // Read beside the fixtures (init(manifest:readingMigrations:)): their error is the build's.
        let migrations = try readMigrations()
        diagnostics = inFileOrder(diagnostics, plans: plans) + deferral.uncheckedRefs
        diagnostics += try unresolvedMigrationRefs(migrations, plans: plans, dialect: dialect, db: db)
        // An update's key that no fixture row and no migration provides is a typo (see MigrationKeys).
        if migrations.contains(where: \.findsRowsByKey) || !manifest.migrateOnlyTables.isEmpty,
            let tables = try? SemanticRows.make(manifest, in: db).rows
        {
            let finder = KeyFinder(db)  // each table's statement prepared once
            let unmatched = try MigrationKeys.unmatched(
                in: migrations, tables: tables, migrateOnly: manifest.migrateOnlyTables, everyKey: false
            ) { table, key in
                try finder.contains(table, key: key)
            }
            diagnostics += deferral.countingConsequences(of: unmatched)
        }
        if let coreData, diagnostics.isEmpty {
            try loadManyToMany(plans, coreData: coreData, db: db, diagnostics: &diagnostics)
        }
        if let coreData, diagnostics.isEmpty {
            try fillGeneratedValues(plans, coreData: coreData, db: db, diagnostics: &diagnostics)
        }
        if diagnostics.isEmpty {
            // What `migrate` would refuse in a migration the seed records as contained (an unknown
            // table or column, an update without from:): run on the seed, rolled back.
            var options = SeedMigrator.Options()
            options.dialect = dialect
            options.coreDataFacts = manifest.model?.facts
            diagnostics += try SeedMigrator.configurationProblems(
                of: try migrationsToCheck(), tables: manifest.specs, options: options, in: db)
        }
        if diagnostics.isEmpty {
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0]
                let file = plans.first { $0.table.name == table }?.config.displayFile
                diagnostics.append(
                    Diagnostic(
                        file: file, code: .unresolvedReference,
                        message:
                            "a row of \(table) (rowid \(row[1] as Int64? ?? 0)) references a missing row of \(row[2] as String)",
                        table: table))
            }
        }
        if diagnostics.isEmpty {
            diagnostics += try auditRowCounts(db, plans: plans, before: rowsBefore, counts: &counts)
        }
        if diagnostics.isEmpty {
            // What SQLite holds, read back and compared with the fixtures: a difference is seedkit's
            // failure or the schema's (a trigger), not the data's: exit 4, nothing written.
            let differences = try readBack(deferral.readBacks, db: db, counts: rowsBefore, deferral: deferral)
            if !differences.isEmpty { throw SeedError(.io, differences) }
            if readsBack { try db.execute(sql: "DROP TABLE temp.\(Self.readBackBefore)") }
        }
        if !diagnostics.isEmpty {
            // Only configuration problems (a migration that updates an entity with no key): exit 2, as `migrate` refuses it.
            throw SeedError(
                diagnostics.allSatisfy { $0.code == .configuration } ? .configuration : .invalidData,
                capped(diagnostics))
        }
        for index in keyIndexes { try db.execute(sql: "DROP INDEX \(quoteIdentifier(index))") }
        var meta = [("format_version", String(SeedCatalog.formatVersion))]
        if let coreData {
            // Fixtures that give a one-to-one's two sides to different rows, before the bookkeeping
            // fills the sides they leave empty (and would overwrite one they gave).
            try refuseOneSidedPairs(db, coreData: coreData, plans: plans, givenOnly: true)
            // Order keys, entity-type columns, one-to-one inverses and Z_MAX: the dialect's bookkeeping.
            try coreData.completeBulkInsert(
                db,
                tables: plans.map { plan in
                    CoreDataDialect.BulkTable(
                        table: plan.table, entity: plan.config.name,
                        references: plan.referencesByColumn.reduce(into: [:]) { result, entry in
                            if let column = plan.table.column(entry.key) {
                                result[column.name] = entry.value.spec.table
                            }
                        })
                })
            try refuseOneSidedPairs(db, coreData: coreData, plans: plans, givenOnly: false)
            // What an app's migrations at launch need from the model (no manifest there).
            if let model = manifest.model { meta.append((CoreDataModelFacts.metaKey, try model.facts.json())) }
            // Every row the build inserted, as one persistent-history transaction (a template that tracks it).
            try coreData.recordBuiltRows(db, after: keyMarks)
            _ = try aboutTemplate {
                try coreData.writeHistory(db, transaction: CoreDataHistory.Transaction(timestamp: historyTimestamp))
            }
        }
        let hash = "sha256:" + contentHash.hexDigest
        meta.append(("content_hash", hash))
        try SeedCatalog.writeSeedMetadata(db, meta: meta, tables: manifest.specs)
        for migration in migrations {
            try MigrationLedger.record(
                LedgerEntry(
                    number: migration.number, name: migration.name, checksum: migration.checksum, appliedAt: nil,
                    origin: .seed), in: db)
            if let digest = BundledMigration.digest(of: migration) {
                try MigrationLedger.recordFileDigest(number: migration.number, sha256: digest, in: db)
            }
        }
        try db.execute(sql: "COMMIT")
        if !keyIndexes.isEmpty { try db.execute(sql: "VACUUM") }
        return (counts, hash)
    }

    /// Refuses a seed whose one-to-one pairs disagree (1550): fixtures that give one target to two
    /// rows (pegase's Account copied with its one-to-ones), or two sides that name different rows.
    private func refuseOneSidedPairs(_ db: Database, coreData: CoreDataDialect, plans: [TablePlan], givenOnly: Bool)
        throws
    {
        let findings = try StoreVerifier.oneSidedFindings(
            db, manifest: manifest, dialect: coreData, givenOnly: givenOnly)
        guard !findings.isEmpty else { return }
        throw SeedError(
            .invalidData,
            capped(
                findings.map { finding in
                    Diagnostic(
                        file: plans.first { $0.config.name == finding.table }?.config.displayFile, code: finding.code,
                        message:
                            "\(finding.table ?? "") \(finding.key.map { "[\($0)]" } ?? "").\(finding.column ?? ""): \(finding.message); a one-to-one holds one row on each side, and the fixtures give this target to another row too",
                        table: finding.table)
                }))
    }

    /// Rows each table of `plans` holds (a template's own rows, before the build loads any).
    private func tableRowCounts(_ db: Database, plans: [TablePlan]) throws -> [String: Int] {
        var rows: [String: Int] = [:]
        for name in Set(plans.map(\.table.name)) {
            rows[name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(name))") ?? 0
        }
        return rows
    }

    /// What the seed holds, from SQLite: a table holding fewer rows than the build inserted lost
    /// some to the schema (a trigger that deletes rows) and fails the build; otherwise the
    /// summary's count of a table one plan loads is the rows it holds (a trigger may add rows).
    private func auditRowCounts(
        _ db: Database, plans: [TablePlan], before: [String: Int], counts: inout [(name: String, rows: Int)]
    ) throws -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let held = try tableRowCounts(db, plans: plans)
        for name in Set(plans.map(\.table.name)).sorted() {
            let indexes = plans.indices.filter { plans[$0].table.name == name }
            let inserted = indexes.reduce(0) { $0 + counts[$1].rows }
            let now = (held[name] ?? 0) - (before[name] ?? 0)
            if now < inserted {
                let plan = plans[indexes[0]]
                // The triggers whose body deletes from this table (`DELETE FROM books`).
                let triggers = try Row.fetchAll(
                    db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
                ).compactMap { row -> String? in
                    let tokens = ConflictClauses.tokens(row[1] ?? "").map { $0.lowercasedName }
                    let quotes = CharacterSet(charactersIn: "\"`[]")
                    let table = name.lowercasedName
                    for index in tokens.indices.dropLast(2)
                    where tokens[index] == "delete" && tokens[index + 1] == "from" {
                        if tokens[index + 2].trimmingCharacters(in: quotes) == table { return row[0] as String? }
                    }
                    return nil
                }
                let blamed =
                    triggers.isEmpty
                    ? "" : ": removed by the schema (triggers that delete: \(triggers.joined(separator: ", ")))"
                diagnostics.append(
                    Diagnostic(
                        file: plan.config.displayFile, code: .otherRule,
                        message:
                            "\(inserted - now) of the \(inserted) rows seedkit inserted into \(name) are not in it\(blamed); seedkit keeps every row or fails",
                        table: name))
            } else if indexes.count == 1 {
                counts[indexes[0]].rows = held[name] ?? now
            }
        }
        return diagnostics
    }

    /// Whether the rows just loaded hold `value` in `table.column` (manifest names), converted as
    /// the column converts; nil for a table the manifest does not load.
    private func capped(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        guard diagnostics.count > Self.diagnosticLimit else { return diagnostics }
        return Array(diagnostics.prefix(Self.diagnosticLimit)) + [
            Diagnostic(
                severity: .note, code: .multipleErrors,
                message: "\(diagnostics.count - Self.diagnosticLimit) more errors not shown")
        ]
    }

    /// The model's generated UUIDs (`let id = UUID()`) that fixture rows leave out or empty: each
    /// row's name-based UUID, from its natural key (CoreDataDialect.nameBasedUUID), as `migrate`
    /// gives a row it inserts.
    ///
    /// A table without a key cannot have them: an error.
    private func fillGeneratedValues(
        _ plans: [TablePlan], coreData: CoreDataDialect, db: Database, diagnostics: inout [Diagnostic]
    ) throws {
        for plan in plans {
            let key = plan.config.key.compactMap { name -> CoreDataDialect.KeyPart? in
                guard let column = plan.table.column(plan.storeColumn(name)) else { return nil }
                guard let reference = plan.referencesByColumn[column.name.lowercasedName] else {
                    return .init(column: column.name)
                }
                return .init(
                    column: column.name,
                    parent: (
                        coreData.tableName(reference.spec.table),
                        coreData.columnName(reference.spec.column, in: reference.spec.table)
                    ))
            }
            // Rows of this table that lack a required value, said once per attribute.
            func missing(_ attribute: String, rows: Int, _ why: String) {
                diagnostics.append(
                    Diagnostic(
                        file: plan.config.displayFile, code: .missingRequired,
                        message: CoreDataDialect.requiredMessage(
                            entity: plan.config.name, key: "(\(rows) row\(rows == 1 ? "" : "s"))", attribute: attribute,
                            action: "not inserted") + ": " + why,
                        table: plan.table.name))
            }
            for (attribute, rows) in try coreData.fillGeneratedValues(
                db, entity: plan.config.name, table: plan.table, key: key) where rows > 0
            {
                missing(
                    attribute, rows: rows,
                    "seedkit generates it from the row's natural key, and the manifest gives \(plan.config.name) no key: add key:, or give \(attribute) in the fixture"
                )
            }
            // A non-optional enum without raw values (a composite, docs/core-data.md): each row needs a case.
            for (attribute, rows) in try coreData.rowsWithoutCase(db, entity: plan.config.name, table: plan.table) {
                missing(attribute, rows: rows, "give one of its cases' columns (\(attribute).<case>) the case's name")
            }
        }
    }

    /// - throws: ``SeedError`` (configuration, exit 2) saying what the output is.
    func refuseUnfitOutput(_ output: URL) throws(SeedError) {
        var info = stat()
        guard lstat(output.path, &info) == 0 else { return }  // a new file: nothing to lose
        let kind = info.st_mode & S_IFMT
        if kind != S_IFREG {
            let what: String
            switch kind {
            case S_IFLNK:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: output.path)) ?? "?"
                what = "a symbolic link (to \(target)); name the file itself"
            case S_IFDIR: what = "a folder; name a file in it"
            case S_IFCHR, S_IFBLK: what = "a device; name a regular file"
            default: what = "not a regular file; name a regular file"
            }
            throw SeedError(
                .configuration, file: output.path, "the output is \(what) (a build replaces its output with a new file)"
            )
        }
        var inputs: [String] = [manifest.path]
        switch manifest.source {
        case .schema(let url), .template(let url): inputs.append(url.path)
        case .none: break
        }
        inputs += manifest.tables.filter(\.hasFile).map(\.file.path)
        inputs += manifest.sources.map(\.file.path)
        inputs += migrations.map(\.file)
        try refuseOutputAmong(inputs, output)
        // Only a SQLite store (or an empty file, which holds nothing) is replaced: `--output notes.txt`
        // would lose the notes (docs/reference.md, "What build checks").
        if info.st_size > 0 {
            let header = FileHandle(forReadingAtPath: output.path).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 16)
            }
            guard let header, header == Data("SQLite format 3\0".utf8) else {
                // Migrations read beside the build: that the output is one of them is said first.
                if reading != nil { try refuseOutputAmong(try readMigrations().map(\.file), output) }
                throw SeedError(
                    .configuration, file: output.path,
                    "the output exists and is not a SQLite store (its first bytes are not \"SQLite format 3\"); a build replaces its output, so it would be lost: move it away or choose another --output; nothing was written"
                )
            }
        }
    }
}
