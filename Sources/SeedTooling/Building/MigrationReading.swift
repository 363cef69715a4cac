import Foundation
import SeedRuntime

/// A project's migrations read on a thread of their own while a build reads its fixtures
/// (``SeedBuilder/init(manifest:readingMigrations:)``).
///
/// A release's 150k-row YAML migration took a second to read and parse before a 1M-row build
/// began (docs/performance.md, "Migrations present in a build, deletes and ref changes"); read
/// beside the fixtures, the build waits for it only if its fixtures are in first.
final class MigrationReading: @unchecked Sendable {
    /// The migrations, and each one's sample for the configuration check
    /// (``SeedMigrator/sampled(_:tables:)``, pure work done on the reading thread too).
    struct Read {
        var migrations: [Migration]
        var sampled: [Migration]
    }

    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<Read, SeedError>?

    /// Starts `read` on a new thread, then samples what it read with `tables`; where no thread
    /// can start, runs it here.
    init(tables: [TableSpec], _ read: @escaping @Sendable () throws(SeedError) -> [Migration]) {
        @Sendable func run() -> Result<Read, SeedError> {
            do throws(SeedError) {
                let migrations = try read()
                return .success(
                    Read(migrations: migrations, sampled: migrations.map { SeedMigrator.sampled($0, tables: tables) }))
            } catch { return .failure(error) }
        }
        do {
            // The YAML reader recurses once per level of nesting: the main thread's stack size.
            try DetachedThread.start("read the migrations", stackSize: 8 << 20) { [self] in
                let outcome = run()
                lock.withLock { result = outcome }
                done.signal()
            }
        } catch {
            result = run()
            done.signal()
        }
    }

    /// The migrations and their samples, or what reading them threw; the first call waits for
    /// the read to end.
    func read() throws(SeedError) -> Read {
        if let ended = lock.withLock({ result }) { return try ended.get() }
        done.wait()
        done.signal()  // a later call (another thread's) finds the result without waiting
        guard let outcome = lock.withLock({ result }) else {
            throw SeedError(.io, "the thread reading the migrations ended without a result")
        }
        return try outcome.get()
    }
}

extension SeedBuilder {
    /// A builder of `manifest`'s fixtures whose migrations `read` reads on another thread while
    /// the build reads the fixtures (`seedkit build`); the build takes them once its fixtures are
    /// in, and records them in the seed as applied.
    ///
    /// What `read` throws is the build's error, ahead of any other (as if the migrations had been
    /// read first); nothing is written.
    public init(manifest: Manifest, readingMigrations read: @escaping @Sendable () throws(SeedError) -> [Migration]) {
        self.init(manifest: manifest, migrations: [])
        reading = MigrationReading(tables: manifest.specs, read)
    }

    /// The migrations the build records: ``migrations``, or those read beside the build (waiting
    /// for the read to end).
    ///
    /// - throws: what reading them threw.
    public func readMigrations() throws(SeedError) -> [Migration] {
        guard let reading else { return migrations }
        return try reading.read().migrations
    }

    /// The migrations for the configuration check: sampled on the reading thread when read beside
    /// the build (``SeedMigrator/configurationProblems(of:tables:options:in:)`` samples them again, a sample's
    /// sample being itself).
    func migrationsToCheck() throws(SeedError) -> [Migration] {
        guard let reading else { return migrations }
        return try reading.read().sampled
    }

    /// `body`'s result; when it throws and the migrations read beside it threw, their error: a
    /// migration that does not read fails the build as it did when read before it.
    func migrationsFirst<T>(_ body: () throws(SeedError) -> T) throws(SeedError) -> T {
        do { return try body() } catch {
            _ = try readMigrations()
            throw error
        }
    }

    /// Refuses an existing `output` that is one of `inputs` (the same file, by device and inode).
    ///
    /// - throws: ``SeedError`` (configuration, exit 2) naming the input.
    func refuseOutputAmong(_ inputs: [String], _ output: URL) throws(SeedError) {
        var info = stat()
        guard lstat(output.path, &info) == 0 else { return }
        for input in inputs {
            var other = stat()
            if stat(input, &other) == 0, other.st_dev == info.st_dev, other.st_ino == info.st_ino {
                throw SeedError(
                    .configuration, file: output.path,
                    "the output is one of the build's inputs (\(input)); building would replace it with a SQLite file: choose another --output"
                )
            }
        }
    }
}
