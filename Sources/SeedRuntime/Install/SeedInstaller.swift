import Foundation
public import GRDB

/// What an app calls at launch: installs the bundled seed when the store does not exist
/// yet, otherwise applies the bundled migrations that are pending.
///
/// ```swift
/// let installer = SeedInstaller(
///     store: appSupport.appendingPathComponent("BookStore.sqlite"),
///     seed: Bundle.main.url(forResource: "seed", withExtension: "sqlite")!,
///     migrations: try MigrationDirectory.load(Bundle.main.url(forResource: "migrations", withExtension: nil)!))
/// do {
///     let outcome = try installer.prepareStore()
/// } catch {
///     // error.kind == .refused: the store is newer than this app, or corrupt. Show a message.
/// }
/// ```
public struct SeedInstaller: Sendable {
    public var store: URL
    public var seed: URL
    public var migrations: [Migration]
    /// How long to wait for another connection's write lock, in seconds.
    public var busyTimeout: TimeInterval
    public var options: SeedMigrator.Options

    /// What ``prepareStore()`` did.
    public enum Outcome: Sendable, Equatable {
        /// There was no store: the seed was copied into place, then `report`'s migrations applied.
        case installedSeed(MigrationReport)
        /// The store existed; `report`'s migrations were applied.
        case migrated(MigrationReport)
        /// The store existed and had every migration already.
        case upToDate
    }

    public init(store: URL, seed: URL, migrations: [Migration], busyTimeout: TimeInterval = 5, options: SeedMigrator.Options = .init()) {
        self.store = store
        self.seed = seed
        self.migrations = migrations
        self.busyTimeout = busyTimeout
        self.options = options
    }

    /// Installs or migrates the store. Never leaves it half-written.
    ///
    /// - throws: ``SeedError``; the store is as it was (or absent, if it was absent).
    public func prepareStore() throws(SeedError) -> Outcome {
        let migrator = try SeedMigrator(migrations: migrations)
        let installed = !FileManager.default.fileExists(atPath: store.path)
        if installed { try Self.copyAtomically(seed, to: store) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: store.path, configuration: configuration) }
        catch { throw SeedError(databaseError: error, file: store.path) }
        // The launch fast path: one read of the ledger decides whether there is anything to do.
        let pending: [Migration]
        do { pending = try queue.read { db in try migrator.pending(db) } }
        catch let error as SeedError { throw error }
        catch { throw SeedError(databaseError: error, file: store.path) }
        if pending.isEmpty { return installed ? .installedSeed(MigrationReport(migrations: [], dryRun: false)) : .upToDate }
        var options = self.options
        if options.tables == nil {
            options.tables = try? DatabaseQueue(path: seed.path, configuration: Self.readOnly).read { db in try SeedCatalog.tableSpecs(db) }
        }
        let report = try migrator.migrate(queue, options: options)
        return installed ? .installedSeed(report) : .migrated(report)
    }

    private static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// Copies `source` to `destination` through a temporary file that is flushed to disk and
    /// then renamed, so that a crash leaves either no store or the whole seed. Stale
    /// `-wal`, `-shm` and `-journal` files beside the missing store are removed first:
    /// SQLite would otherwise apply them to the new file.
    public static func copyAtomically(_ source: URL, to destination: URL) throws(SeedError) {
        let manager = FileManager.default
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).seedkit-\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            for suffix in ["-wal", "-shm", "-journal"] {
                let stale = destination.path + suffix
                if manager.fileExists(atPath: stale) { try manager.removeItem(atPath: stale) }
            }
            if manager.fileExists(atPath: temporary.path) { try manager.removeItem(at: temporary) }
            try manager.copyItem(at: source, to: temporary)
            try fsync(path: temporary.path)
            guard rename(temporary.path, destination.path) == 0 else {
                throw SeedError(.io, file: destination.path, "cannot move the seed into place: \(String(cString: strerror(errno)))")
            }
            try fsync(path: directory.path)
        } catch let error as SeedError {
            try? manager.removeItem(at: temporary)
            throw error
        } catch {
            try? manager.removeItem(at: temporary)
            throw SeedError(.io, file: destination.path, "cannot install the seed from \(source.path): \(error.localizedDescription)")
        }
    }

    /// Flushes a file or directory to disk.
    public static func fsync(path: String) throws(SeedError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SeedError(.io, file: path, "cannot open to flush: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard Foundation.fsync(descriptor) == 0 else { throw SeedError(.io, file: path, "cannot flush to disk: \(String(cString: strerror(errno)))") }
    }
}
