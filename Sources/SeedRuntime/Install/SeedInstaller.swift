import Foundation
public import GRDB

/// What an app calls at launch: installs the bundled seed when the store does not exist
/// yet, otherwise applies the bundled migrations that are pending.
///
/// ```swift
/// let installer = SeedInstaller(
///     store: storeURL,
///     seed: Bundle.main.url(forResource: "seed", withExtension: "sqlite")!,
///     migrations: try MigrationDirectory.load(Bundle.main.url(forResource: "migrations", withExtension: nil)!))
/// let outcome = try installer.prepareStore()
/// ```
///
/// Errors are ``SeedError`` (thrown untyped, so that `catch let error as SeedError where …`
/// and a plain `catch` both work); the store is then as it was, or absent if it was absent.
public struct SeedInstaller: Sendable {
    /// Where the app keeps its store; nil when the app passes its own GRDB writer to ``prepareStore(in:)``.
    public var store: URL?
    /// The seed bundled with the app (`seedkit build`'s output).
    public var seed: URL
    /// The migrations bundled with the app (`seedkit export-migrations`), any order.
    public var migrations: [Migration]
    /// How long to wait for another connection's write lock, in seconds.
    public var busyTimeout: TimeInterval
    /// How migrations are applied (conflict policy; table specs default to the seed's catalog).
    public var options: SeedMigrator.Options

    /// The options an installer applies migrations with unless it is given others:
    /// ``SeedMigrator/Options``' defaults, except that the report lists at most the first 100
    /// rows of each kind a migration applied and counts the rest
    /// (``SeedMigrator/Options/eventsPerKind``): a 100,000-row data update at launch then does not
    /// build and hold 100,000 events.
    ///
    /// Every row a migration did not apply is listed with its key and why. Pass
    /// `SeedMigrator.Options()` to list every event.
    public static var defaultOptions: SeedMigrator.Options {
        var options = SeedMigrator.Options()
        options.eventsPerKind = 100
        return options
    }

    /// What ``prepareStore()`` did.
    public enum Outcome: Sendable, Equatable {
        /// There was no store: the seed was copied into place, then `report`'s migrations applied.
        case installedSeed(MigrationReport)
        /// The store existed; `report`'s migrations were applied.
        case migrated(MigrationReport)
        /// The store existed and had every migration already.
        case upToDate
    }

    /// An installer for the store at `store`, which ``prepareStore()`` opens and closes itself.
    public init(
        store: URL, seed: URL, migrations: [Migration], busyTimeout: TimeInterval = 5,
        options: SeedMigrator.Options = SeedInstaller.defaultOptions
    ) {
        self.store = store
        self.seed = seed
        self.migrations = migrations
        self.busyTimeout = busyTimeout
        self.options = options
    }

    /// An installer for a store the app opens itself (a `DatabaseQueue` or `DatabasePool`): see ``prepareStore(in:)``.
    public init(seed: URL, migrations: [Migration], options: SeedMigrator.Options = SeedInstaller.defaultOptions) {
        self.store = nil
        self.seed = seed
        self.migrations = migrations
        self.busyTimeout = 5
        self.options = options
    }

    /// Installs or migrates the store at ``store``.
    ///
    /// Never leaves it half-written.
    ///
    /// The seed is checked against the migrations before anything is copied (a seed newer than
    /// them is refused, with no store left behind); when the store is new and a migration then
    /// fails, the new store is removed again.
    ///
    /// - throws: ``SeedError``; the store is as it was (or absent, if it was absent).
    public func prepareStore() throws -> Outcome {
        guard let store else {
            throw SeedError(
                .configuration, "this installer has no store path; call prepareStore(in:) with the app's database")
        }
        let busyTimeout = try BusyTimeout.validated(busyTimeout)
        let migrator = try SeedMigrator(migrations: migrations)
        // A big data update's file is read while the store is opened; let go when this call returns.
        migrator.readAhead()
        defer { migrator.releaseBytes() }
        let installed = !FileManager.default.fileExists(atPath: store.path)
        if installed {
            try checkSeed(migrator)
            try Self.copyAtomically(seed, to: store)
        }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(busyTimeout)
            let queue: DatabaseQueue
            do { queue = try DatabaseQueue(path: store.path, configuration: configuration) } catch {
                throw SeedError(databaseError: error, file: store.path)
            }
            defer { try? queue.close() }
            return try migrate(queue, migrator: migrator, installed: installed, file: store.path, ownConnection: true)
        } catch {
            if installed { Self.remove(store) }
            throw error
        }
    }

    /// Installs the seed into the app's own, empty database, or migrates it: for an app that
    /// opens its store with GRDB (a `DatabaseQueue`, or a `DatabasePool` in WAL mode).
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: storeURL.path)
    /// let outcome = try SeedInstaller(seed: seedURL, migrations: migrations).prepareStore(in: pool)
    /// ```
    ///
    /// A database with no tables gets the seed's contents (SQLite's backup API, so the
    /// writer's journal mode is kept); then pending migrations apply in one transaction.
    ///
    /// - throws: ``SeedError``; the database is as it was (emptied again if the seed was just copied in).
    public func prepareStore(in writer: some DatabaseWriter) throws -> Outcome {
        let migrator = try SeedMigrator(migrations: migrations)
        migrator.readAhead()
        defer { migrator.releaseBytes() }
        let installed: Bool
        do {
            installed =
                try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 } == 0
        } catch { throw SeedError(databaseError: error, file: writer.path) }
        if installed {
            try checkSeed(migrator)
            do { try DatabaseQueue(path: seed.path, configuration: Self.readOnly).backup(to: writer) } catch {
                throw SeedError(
                    .io, file: seed.path,
                    "cannot copy the seed into the store: \(SeedError(databaseError: error).diagnostics.first?.message ?? "\(error)")"
                )
            }
        }
        do {
            return try migrate(writer, migrator: migrator, installed: installed, file: writer.path)
        } catch {
            if installed { try? writer.erase() }
            throw error
        }
    }

    /// Refuses a seed that these migrations cannot migrate (newer than them, or changed), before it is copied.
    private func checkSeed(_ migrator: SeedMigrator) throws(SeedError) {
        guard FileManager.default.fileExists(atPath: seed.path) else {
            throw SeedError(
                .configuration, file: seed.path,
                "the seed does not exist (is it in the app's bundle?); nothing was installed")
        }
        do {
            _ = try DatabaseQueue(path: seed.path, configuration: Self.readOnly).read { db in try migrator.pending(db) }
        } catch let error as SeedError {
            throw SeedError(
                error.kind,
                error.diagnostics.map { diagnostic in
                    var diagnostic = diagnostic
                    diagnostic.file = diagnostic.file ?? seed.path
                    diagnostic.message =
                        "the bundled seed cannot be installed: "
                        + diagnostic.message.replacingOccurrences(of: "the store is", with: "it is")
                    return diagnostic
                })
        } catch { throw SeedError(databaseError: error, file: seed.path) }
    }

    /// The shared tail: one read of the ledger decides whether there is anything to do.
    ///
    /// `ownConnection`: the installer opened `writer` itself (nobody observes it: rows may be
    /// written directly).
    private func migrate(
        _ writer: some DatabaseWriter, migrator: SeedMigrator, installed: Bool, file: String,
        ownConnection: Bool = false
    ) throws(SeedError) -> Outcome {
        let pending: [Migration]
        do { pending = try writer.read { db in try migrator.pending(db) } } catch let error as SeedError {
            throw error.about(store: file)
        } catch { throw SeedError(databaseError: error, file: file) }
        if pending.isEmpty {
            return installed ? .installedSeed(MigrationReport(migrations: [], dryRun: false)) : .upToDate
        }
        var options = self.options
        options.writesDirectly = options.writesDirectly || ownConnection
        if options.tables == nil {
            options.tables = try? DatabaseQueue(path: seed.path, configuration: Self.readOnly).read { db in
                try SeedCatalog.tableSpecs(db)
            }
        }
        if options.coreDataFacts == nil {
            // A store installed from an older seed may lack what the bundled seed knows of the Core Data model.
            options.coreDataFacts = try? DatabaseQueue(path: seed.path, configuration: Self.readOnly).read { db in
                try CoreDataModelFacts.recorded(db)
            }
        }
        let report: MigrationReport
        do { report = try migrator.migrate(writer, options: options) } catch let error as SeedError {
            throw error.about(store: file)
        } catch { throw SeedError(databaseError: error, file: file) }  // migrate throws SeedError only
        return installed ? .installedSeed(report) : .migrated(report)
    }

    /// Removes a store this installer created, with its journal files.
    private static func remove(_ store: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: store.path + suffix)
        }
    }

    static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// Copies `source` to `destination` through a temporary file that is flushed to disk and
    /// then renamed, so that a crash leaves either no store or the whole seed.
    ///
    /// Stale `-wal`, `-shm` and `-journal` files beside the missing store are removed first: SQLite
    /// would otherwise apply them to the new file.
    package static func copyAtomically(_ source: URL, to destination: URL) throws(SeedError) {
        let manager = FileManager.default
        let directory = destination.deletingLastPathComponent()
        let temporary = ProcessTemporaryFile.url(beside: destination)
        ProcessTemporaryFile.removeStale(beside: destination)
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            for suffix in ["-wal", "-shm", "-journal"] {
                let stale = destination.path + suffix
                if manager.fileExists(atPath: stale) { try manager.removeItem(atPath: stale) }
            }
            if manager.fileExists(atPath: temporary.path) { try manager.removeItem(at: temporary) }
            try copyFile(source.path, to: temporary.path)
            guard rename(temporary.path, destination.path) == 0 else {
                throw SeedError(
                    .io, file: destination.path, "cannot move the seed into place: \(String(cString: strerror(errno)))")
            }
            try fsync(path: directory.path)
        } catch let error as SeedError {
            try? manager.removeItem(at: temporary)
            throw error
        } catch {
            try? manager.removeItem(at: temporary)
            throw SeedError(
                .io, file: destination.path,
                "cannot install the seed from \(source.path): \(error.localizedDescription)")
        }
    }

    /// Copies `source` into a new file `destination`, flushed to disk, with the platform's own copy:
    /// an APFS clone where it can (`clonefile`, no bytes copied) or `copyfile` on Apple platforms,
    /// the kernel's `sendfile` on Linux (no bytes through the process: 0.23-0.36 s for 160 MB
    /// against FileManager's 0.68-0.71 s, docs/performance.md).
    static func copyFile(_ source: String, to destination: String) throws(SeedError) {
        #if canImport(Darwin)
            if clonefile(source, destination, 0) != 0 {
                guard copyfile(source, destination, nil, copyfile_flags_t(COPYFILE_DATA | COPYFILE_EXCL)) == 0 else {
                    throw SeedError(
                        .io, file: destination, "cannot copy the seed: \(String(cString: strerror(errno)))")
                }
            }
            try fsync(path: destination)
        #else
            let input = open(source, O_RDONLY)
            guard input >= 0 else {
                throw SeedError(.io, file: source, "cannot open the seed: \(String(cString: strerror(errno)))")
            }
            defer { close(input) }
            let output = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard output >= 0 else {
                throw SeedError(.io, file: destination, "cannot create: \(String(cString: strerror(errno)))")
            }
            defer { close(output) }
            var status = stat()
            guard fstat(input, &status) == 0 else {
                throw SeedError(.io, file: source, "cannot read the seed: \(String(cString: strerror(errno)))")
            }
            var left = Int(status.st_size)
            while left > 0 {
                let sent = sendfile(output, input, nil, min(left, 1 << 30))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else {
                    throw SeedError(
                        .io, file: destination,
                        sent < 0
                            ? "cannot copy the seed: \(String(cString: strerror(errno)))"
                            : "cannot copy the seed: it ended \(left) bytes early")
                }
                left -= sent
            }
            guard Foundation.fsync(output) == 0 else {
                throw SeedError(.io, file: destination, "cannot flush to disk: \(String(cString: strerror(errno)))")
            }
        #endif
    }

    /// Flushes a file or directory to disk.
    package static func fsync(path: String) throws(SeedError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw SeedError(.io, file: path, "cannot open to flush: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard Foundation.fsync(descriptor) == 0 else {
            throw SeedError(.io, file: path, "cannot flush to disk: \(String(cString: strerror(errno)))")
        }
    }
}
